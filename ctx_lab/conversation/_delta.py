"""Usage-delta calibration: between two consecutive calls of a session, the reported input grows
by exactly the tokens of what was added (a tool result, an answer), so every such pair measures
the provider's tokenizer against a named counter — per content class, because a counter's error
depends on what it counts (bytes/4 undercounts prose and JSON for Claude more than code).

Pairs are mined from sessions with usage; a pair is left out, and counted by reason, when it
cannot measure the content: a compaction between the calls (or one the provider made), a switch
of model, earlier thinking dropped between the calls, growth of nothing (a cache-only call) or a
shrinking input. Each class's ratio is the median over the pairs it makes at least 80 % of, with
the 5–95 % band; a class with fewer than :data:`MIN_SAMPLES` such pairs takes the pooled ratio of
every pair (and says so). Images are priced by the provider's rule, never fitted.

**Thinking** is its own class. A file holds a summary of the model's thinking, while the request
that sends it back carries the full thinking (Anthropic's extended-thinking guide; which earlier
thinking a request sends again is :func:`ctx_lab.models.keeps_earlier_thinking`). A pair that
sends new thinking measures no text class; it measures the thinking: its growth beyond the
fitted classes' share of what else was added, per counted token of the summary. Too few such
pairs (or none) leave the thinking at the prose ratio, a lower bound (said: ``pooled``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..models import keeps_earlier_thinking
from ..tokens import CLASSES, ClassRatio, text_class
from ._calibrate_band import band as _band
from ._messages import Message
from .transcripts import Transcript, images_cost

__all__ = [
    "CLASSES",
    "THINKING",
    "GrowthPair",
    "content_class",
    "estimate_call",
    "fit_classes",
    "mine_growth",
    "thinking_sent",
]

MIN_SAMPLES = 5
MIN_GROWTH = 64  # counted tokens added below this are too few to measure a ratio
DOMINANT = 0.8  # a pair measures a class when that class is this share of what was added
THINKING = "thinking"  # the class of thinking sent back (see the module docstring)


def content_class(message: Message) -> str:
    """A message's class (:func:`ctx_lab.tokens.text_class`; a tool call's arguments are
    JSON)."""
    return text_class(message.counted_as()[1], message.role == "tool_use")


@dataclass(frozen=True)
class GrowthPair:
    """What was added between two calls (counted tokens per class) and how much the reported
    input grew."""

    call: int  # the later call, 0-based
    added: dict[str, int]
    grown: int
    thinking: int = 0  # counted tokens of the thinking summaries sent for the first time

    @property
    def counted(self) -> int:
        return sum(self.added.values())


def _counts(transcript: Transcript, counter: Any, model: str) -> tuple[list[str], list[int]]:
    from ._cache_sizes import message_counts

    _, counts = message_counts(transcript, counter, model)
    images = [images_cost(m, model) for m in transcript.messages]
    return [content_class(m) for m in transcript.messages], [
        c - i for c, i in zip(counts, images, strict=True)
    ]


def thinking_sent(transcript: Transcript, counter: Any, model: str) -> dict[int, int]:
    """Per call index: the counted tokens of earlier thinking the call sends again — every
    earlier thinking block of its segment where the model keeps them, else those of the current
    turn (since the last user prompt); a compaction starts afresh."""
    made: dict[int, int] = {}
    for index, text in transcript.thinking:
        made[index] = made.get(index, 0) + counter.count(text)
    keeps_all = keeps_earlier_thinking(model)
    roles = [m.role for m in transcript.messages]
    sent: dict[int, int] = {}
    held, segment, end = 0, None, 0
    for call in transcript.calls:
        begin, stop = transcript.sent_range(call)
        if begin != segment:
            held, segment, end = 0, begin, begin
        if not keeps_all and "user" in roles[max(end, begin) : stop]:
            held = 0  # a new prompt: the earlier turn's thinking is no longer sent
        sent[call.index] = held
        held += made.get(call.index, 0)
        end = stop
    return sent


def mine_growth(
    transcript: Transcript, counter: Any, model: str
) -> tuple[list[GrowthPair], Counter[str]]:
    """The session's growth pairs for ``model`` and the pairs left out, by reason."""
    classes, counts = _counts(transcript, counter, model)
    thinking = thinking_sent(transcript, counter, model)
    compactions = set(transcript.compaction_calls())
    pairs: list[GrowthPair] = []
    excluded: Counter[str] = Counter()
    previous: Any = None
    for call in transcript.calls:
        if call.usage is None:
            previous = None
            continue
        if call.model != model:
            if previous is not None:
                excluded["model switch"] += 1
            previous = None
            continue
        reason = _left_out(call, previous, compactions, thinking, transcript)
        if reason is None:
            start = previous.sent_end
            added: Counter[str] = Counter()
            for at in range(start, call.sent_end):
                added[classes[at]] += counts[at]
            grown = call.usage.reported_input - previous.usage.reported_input
            new = thinking[call.index] - thinking[previous.index]
            if sum(added.values()) + new < MIN_GROWTH or grown <= 0:
                reason = "cache-only or nothing added"
            else:
                pairs.append(GrowthPair(call.index, dict(added), grown, new))
        if reason:
            excluded[reason] += 1
        previous = call
    return pairs, excluded


def _left_out(
    call: Any,
    previous: Any,
    compactions: set[int],
    thinking: dict[int, int],
    transcript: Transcript,
) -> str | None:
    """Why the pair ending at ``call`` measures nothing ("" for the first call), or None."""
    if previous is None:
        return ""
    if (
        call.index in compactions
        or transcript.sent_range(call)[0] != transcript.sent_range(previous)[0]
    ):
        return "compaction between the calls"
    if call.compacted or previous.compacted:
        return "compacted by the provider"
    if thinking[call.index] < thinking[previous.index]:
        return "earlier thinking no longer sent"
    if call.usage.reported_input < previous.usage.reported_input:
        return "reported input shrank"
    return None


def fit_classes(pairs: Sequence[GrowthPair]) -> tuple[ClassRatio, ...]:
    """Each class's ratio with its 90 % band, then the thinking's (see the module docstring);
    empty without pairs."""
    plain = [p for p in pairs if not p.thinking]
    if not plain:
        return ()
    samples: dict[str, list[float]] = {}
    for pair in plain:
        top, tokens = Counter(pair.added).most_common(1)[0]
        if tokens >= DOMINANT * pair.counted:
            samples.setdefault(top, []).append(pair.grown / pair.counted)
    pooled = _band([p.grown / p.counted for p in plain])
    found = []
    for klass in CLASSES:
        mine = samples.get(klass, [])
        if len(mine) >= MIN_SAMPLES:
            ratio, low, high = _band(mine)
            found.append(ClassRatio(klass, round(ratio, 4), round(low, 4), round(high, 4),
                                    len(mine), False))  # fmt: skip
        else:
            found.append(ClassRatio(klass, round(pooled[0], 4), round(pooled[1], 4),
                                    round(pooled[2], 4), len(mine), True))  # fmt: skip
    return (*found, _thinking_ratio(pairs, {c.klass: c.ratio for c in found}))


def _thinking_ratio(pairs: Sequence[GrowthPair], ratios: dict[str, float]) -> ClassRatio:
    """What a counted token of thinking summary is sent back as: each thinking pair's growth
    beyond the fitted share of what else it added (never below nothing), per counted token."""
    samples = [
        max(p.grown - sum(ratios[k] * n for k, n in p.added.items()), 0) / p.thinking
        for p in pairs
        if p.thinking >= MIN_GROWTH
    ]
    if len(samples) >= MIN_SAMPLES:
        ratio, low, high = _band(samples)
        return ClassRatio(THINKING, round(ratio, 4), round(low, 4), round(high, 4),
                          len(samples), False)  # fmt: skip
    prose = ratios["prose"]  # the summary as prose: a lower bound
    return ClassRatio(THINKING, prose, prose, prose, len(samples), True)


def estimate_call(
    classes: dict[str, ClassRatio],
    kinds: Sequence[str],
    counts: Sequence[int],
    images: Sequence[int],
    start: int,
    end: int,
    thinking: int = 0,
) -> tuple[float, float, float]:
    """The provider tokens of messages ``[start, end)`` and of ``thinking`` counted tokens of
    thinking summaries sent again: ``(estimate, low, high)``."""
    middle = low = high = 0.0
    for at in range(start, end):
        fitted = classes[kinds[at]]
        middle += fitted.ratio * counts[at] + images[at]
        low += fitted.low * counts[at] + images[at]
        high += fitted.high * counts[at] + images[at]
    if thinking:
        fitted = classes[THINKING]
        middle += fitted.ratio * thinking
        low += fitted.low * thinking
        high += fitted.high * thinking
    return middle, low, high
