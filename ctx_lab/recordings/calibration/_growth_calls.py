"""Every call of a recorded session estimated from counts — how a calibration is tried on
sessions it was not fitted on, and how its band is measured.

A call's estimate is its segment's **anchor** (the reported input of the segment's first call
with usage: the hidden prefix a file does not hold — Claude Code's system prompt and tools —
and, after a compaction, what the agent re-attached, both stated, never estimated) plus the
predicted growth of everything sent since: the messages added (the growth model,
:class:`~ctx_lab.recordings.calibration._delta.GrowthFit`) and the thinking sent again.

A thinking block's full size is not in the file (it holds a summary). Where the call right
after the block reports usage, the block's size is inferred from that call's growth beyond the
prediction for what else it added, as the hidden prefix is — that call is then a measurement of
the thinking, not an estimate, and is listed apart (``inferred``); elsewhere the block counts at
the thinking class's ratio × its summary.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..transcripts import Transcript
from ._delta import MessageParts, message_parts, thinking_blocks
from ._growth_fit import GrowthFit

__all__ = ["CallEstimate", "estimate_calls"]

Predict = Callable[[Mapping[str, int], int, int, int], float]


@dataclass(frozen=True)
class CallEstimate:
    """One call estimated: ``estimate = anchor + growth`` against its ``reported`` input."""

    index: int  # the call's index, 0-based
    reported: int
    anchor: int
    growth: float

    @property
    def estimate(self) -> float:
        """The anchor plus the predicted growth."""
        return self.anchor + self.growth


@dataclass
class SessionEstimates:
    """A session's estimated calls, and what its usage stated instead of estimating."""

    calls: list[CallEstimate]
    anchors: list[tuple[int, int]]  # (call index, reported input) of each segment's first call
    inferred: list[tuple[int, int]]  # (call index, tokens) of each thinking block inferred


def estimate_calls(
    transcript: Transcript,
    counter: Any,
    model: str,
    fit: GrowthFit,
    *,
    predict: Predict | None = None,
    parts: MessageParts | None = None,
) -> SessionEstimates:
    """Every call of ``model`` with usage in ``transcript`` (see the module docstring);
    ``predict``: another estimate of what messages add (a plain scalar, to compare) — the
    thinking still counts by ``fit``; ``parts``: the session's messages, when already
    counted."""
    parts = parts or message_parts(transcript, counter, model)
    predict = predict or fit.predict
    blocks = thinking_blocks(transcript, model)
    summaries: dict[int, int] = {}
    for index, text in transcript.thinking:
        summaries[index] = summaries.get(index, 0) + counter.count(text)
    found = SessionEstimates([], [], [])
    full: dict[int, float] = {}  # a thinking block (its call's index) → its size, inferred

    def size(block: int) -> float:
        return full.get(block, fit.thinking(summaries.get(block, 0)))

    segment: int | None = None
    anchor: Any = None
    previous: Any = None
    for call in transcript.calls:
        if call.usage is None or call.model != model:
            previous = None
            continue
        start = transcript.sent_range(call)[0]
        if start != segment:
            segment, anchor, previous = start, call, call
            found.anchors.append((call.index, call.usage.reported_input))
            continue
        sent, held = set(blocks[call.index]), set(blocks[anchor.index])
        unknown = [b for b in sent - held if b not in full]
        if previous is not None and unknown == [previous.index]:
            added = parts.added(previous.sent_end, call.sent_end)
            released = sum(size(b) for b in set(blocks[previous.index]) - sent)
            grown = call.usage.reported_input - previous.usage.reported_input
            full[previous.index] = max(grown - predict(*added) + released, 0.0)
            found.inferred.append((call.index, round(full[previous.index])))
            previous = call
            continue
        growth = (
            predict(*parts.added(anchor.sent_end, call.sent_end))
            + sum(size(b) for b in sent - held)
            - sum(size(b) for b in held - sent)
        )
        found.calls.append(
            CallEstimate(call.index, call.usage.reported_input, anchor.usage.reported_input, growth)
        )
        previous = call
    return found
