"""What every policy of the lab reads from a recorded session — per message its provider
tokens (the counter's count scaled by the session's calibration, thinking inferred from usage
added to the answer it belongs to), the hidden prefix per model, what a recorded compaction
re-attached — and the context a policy keeps, block by block, with the first position that
changed since the last call (what the cache can still read)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...models import get_registry
from ..cache import HIDDEN, REATTACHED, THINKING, counted_sizes
from ..calibration import message_counts
from ..transcripts import Transcript
from ._policy_specs import CLAUDE_CODE_WINDOW, claude_code_window, codex_window

__all__ = [
    "CLAUDE_CODE_WINDOW",
    "Context",
    "PolicySession",
    "Sent",
    "main_model",
    "peak_input",
    "policy_session",
]


@dataclass
class PolicySession:
    """What every policy reads: per message its provider tokens (calibrated counts, thinking
    inferred from usage added to the answer it belongs to), the hidden prefix per model, and
    what a recorded compaction sent beyond its summary."""

    transcript: Transcript
    model: str | None
    tokens: list[int]
    thinking: list[int]
    hidden: dict[str, int]
    reattached: dict[int, int]  # segment start → tokens
    recorded_summary: int | None
    window: int
    counter: Any
    skip: set[int] = field(default_factory=set)
    counted_with: str = ""
    main: str = "unknown"
    totals: dict[int, int] = field(default_factory=dict)
    # per call index: its reported input less what the policies count for what it sent (what
    # anchors every policy's sizes to the bill); empty where the recording has no usage or the
    # calls are counted as another model's
    offsets: dict[int, int] = field(default_factory=dict)

    def hidden_for(self, model: str) -> int:
        return self.hidden.get(model, next(iter(self.hidden.values()), 0))


def policy_session(
    transcript: Transcript, counter: Any, model: str | None, registry: Any
) -> PolicySession:
    sizes = counted_sizes(transcript, counter, model=model)
    main = model or main_model(transcript)
    ratio = sizes.ratios.get(main, next(iter(sizes.ratios.values()), 1.0))
    overhead, counts = message_counts(transcript, counter, main)
    tokens = [round(ratio * c) for c in counts]
    thinking = [0] * len(tokens)
    # the prefix every call sends before its messages: the system prompt and tools the file
    # holds, counted; or, where it holds neither, each model's inferred from its usage (below)
    hidden: dict[str, int] = {main: round(ratio * overhead)} if overhead else {}
    reattached: dict[int, int] = {}
    calls = transcript.calls
    for part in sizes.inferred:
        call = calls[part.call - 1]
        if part.what == HIDDEN:
            hidden.setdefault(model or call.model or "unknown", part.tokens)
        elif part.what == REATTACHED:
            reattached[transcript.sent_range(call)[0]] = part.tokens
        elif part.what == THINKING and part.call >= 2:
            before = calls[part.call - 2]  # the answer whose thinking this call was sent
            if before.sent_end < len(tokens):
                thinking[before.sent_end] += part.tokens
                tokens[before.sent_end] += part.tokens
    recorded = None
    if transcript.recorded_summaries:
        first = transcript.recorded_summaries[0]
        recorded = tokens[first] + reattached.get(first, 0)
    window = get_registry(registry).get(main).limits.context_window
    if transcript.format == "claude-code":  # the window the recording ran in: Claude Code's
        window = claude_code_window(peak_input(transcript))
    elif transcript.agent_window:  # the agent said it (Codex: 95 % of its window for the model)
        window = codex_window(transcript.agent_window)
    offsets = _offsets(transcript, model, tokens, hidden, reattached)
    return PolicySession(
        transcript=transcript,
        model=model,
        tokens=tokens,
        thinking=thinking,
        hidden=hidden,
        reattached=reattached,
        recorded_summary=recorded,
        window=window,
        counter=counter,
        skip=set(transcript.recorded_summaries),
        counted_with=sizes.counted_with,
        main=main,
        totals=sizes.totals,
        offsets=offsets,
    )


def _offsets(
    transcript: Transcript,
    model: str | None,
    tokens: list[int],
    hidden: dict[str, int],
    reattached: dict[int, int],
) -> dict[int, int]:
    """Per call with usage (of ``model``, where one is named): its reported input less what
    the policies count for what the recording sent — the hidden prefix, the segment's
    re-attachments and its messages' tokens (thinking inferred from usage and all). What this
    offset holds (earlier thinking the provider no longer sent, the counter's error) stays the
    same under every policy, so each policy's sizes are the bill's plus what it changed."""
    running = [0]
    for value in tokens:
        running.append(running[-1] + value)
    first = next(iter(hidden.values()), 0)
    found = {}
    for call in transcript.calls:
        if call.usage is None or model not in (None, call.model):
            continue
        begin, end = transcript.sent_range(call)
        prefix = hidden.get(model or call.model or "unknown", first)
        counted = prefix + reattached.get(begin, 0) + running[end] - running[begin]
        found[call.index] = call.usage.reported_input - counted
    return found


def peak_input(transcript: Transcript) -> int:
    """The largest input a call of the recording reports (0 without usage)."""
    return max((c.usage.reported_input for c in transcript.calls if c.usage), default=0)


def main_model(transcript: Transcript) -> str:
    models = [c.model for c in transcript.calls if c.model]
    return max(set(models), key=models.count) if models else "unknown"


@dataclass
class Sent:
    """One call as a policy sends it: its input, how much of it is the previous call's prefix
    unchanged, and what happened."""

    total: int
    stable: int
    compacted: bool = False
    removed: int = 0
    blocks: int = 0  # content blocks sent (the tools and system prompt count as two)
    anchors: tuple[int, ...] = ()  # breakpoints the policy places, as token positions


class Context:
    """A policy's context: blocks ``(key, tokens, message)``, appended to and edited, with the
    first position changed since the last call."""

    def __init__(self) -> None:
        self.keys: list[Any] = []
        self.tokens: list[int] = []
        self.messages: list[int | None] = []
        self.changed: int | None = None
        self.previous_total = 0
        self.total = 0

    def append(self, key: Any, tokens: int, message: int | None) -> None:
        self.keys.append(key)
        self.tokens.append(tokens)
        self.messages.append(message)
        self.total += tokens

    def replace(self, at: int, key: Any, tokens: int) -> None:
        self.total += tokens - self.tokens[at]
        self.keys[at], self.tokens[at] = key, tokens
        self.mark(at)

    def cut(self, start: int, end: int, key: Any = None, tokens: int = 0) -> None:
        """Remove ``[start, end)``, with a block in its place when ``key`` is given."""
        middle = [(key, tokens, None)] if key is not None else []
        self.total += sum(m[1] for m in middle) - sum(self.tokens[start:end])
        self.keys[start:end] = [m[0] for m in middle]
        self.tokens[start:end] = [m[1] for m in middle]
        self.messages[start:end] = [m[2] for m in middle]
        self.mark(start)

    def mark(self, at: int) -> None:
        self.changed = at if self.changed is None else min(self.changed, at)

    def sent(self, compacted: bool = False, removed: int = 0) -> Sent:
        total = self.total
        stable = self.previous_total if self.changed is None else sum(self.tokens[: self.changed])
        self.changed, self.previous_total = None, total
        return Sent(total, min(stable, total), compacted, removed)
