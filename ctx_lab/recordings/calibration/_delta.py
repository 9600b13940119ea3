"""Usage-delta calibration: between two consecutive calls of a session, the reported input grows
by exactly the tokens of what was added (a tool result, an answer), so every such pair measures
the provider's tokenizer against a named counter — per content class, because a counter's error
depends on what it counts (bytes/4 undercounts prose and JSON for Claude more than code).

Pairs are mined from sessions with usage; a pair is left out, and counted by reason, when it
cannot measure the content: a compaction between the calls (or one the provider made), a switch
of model, earlier thinking dropped between the calls, growth of nothing (a cache-only call) or a
shrinking input. Images are priced by the provider's rule, never fitted.

The growth model fitted on the pairs is :mod:`._growth_fit`'s.

**Thinking**: a file holds a summary of the model's thinking, while the request that sends it
back carries the full thinking (Anthropic's extended-thinking guide; which earlier thinking a
request sends again is :func:`ctx_lab.models.keeps_earlier_thinking`, per block:
:func:`thinking_blocks`). A pair that sends new thinking measures the thinking, not a text
class (:attr:`GrowthPair.thinking`); a pair after which earlier thinking is no longer sent
measures nothing.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from ...conversation import ContextManager, Message
from ...models import keeps_earlier_thinking
from ...tokens import CLASSES, MESSAGE_OVERHEAD, text_class
from ..transcripts import Transcript, images_cost

__all__ = [
    "CLASSES",
    "THINKING",
    "GrowthPair",
    "MessageParts",
    "content_class",
    "message_counts",
    "message_parts",
    "mine_growth",
    "thinking_blocks",
    "thinking_sent",
]

MIN_SAMPLES = 5
MIN_GROWTH = 64  # counted tokens added below this are too few to measure a ratio
THINKING = "thinking"  # the class of thinking sent back (see the module docstring)
TOOL_ROLES = ("tool_use", "tool_result")


def content_class(message: Message) -> str:
    """A message's class (:func:`ctx_lab.tokens.text_class`; a tool call's arguments are
    JSON)."""
    return text_class(message.counted_as()[1], message.role == "tool_use")


@dataclass(frozen=True)
class GrowthPair:
    """What was added between two calls — the counter's tokens per class (content and role),
    the tool calls and results, the messages and the images' tokens — and how much the
    reported input grew."""

    call: int  # the later call, 0-based
    added: dict[str, int]
    grown: int
    thinking: int = 0  # counted tokens of the thinking summaries sent for the first time
    tools: int = 0
    messages: int = 0
    images: int = 0

    @property
    def counted(self) -> int:
        """The counter's tokens of what was added (without the per-message constant)."""
        return sum(self.added.values())

    @property
    def measured(self) -> int:
        """The growth the fitted model explains: less the per-message constant and images."""
        return self.grown - MESSAGE_OVERHEAD * self.messages - self.images


@dataclass(frozen=True)
class MessageParts:
    """Each message of a session as the growth model sees it, for one model (its images'
    rule): class, the counter's tokens of content and role, whether it is a tool message, and
    its images' tokens."""

    kinds: tuple[str, ...]
    tokens: tuple[int, ...]
    tools: tuple[bool, ...]
    images: tuple[int, ...]

    def added(self, start: int, end: int) -> tuple[dict[str, int], int, int, int]:
        """Messages ``[start, end)``: tokens per class, tool messages, messages, images."""
        per: Counter[str] = Counter()
        for at in range(start, end):
            per[self.kinds[at]] += self.tokens[at]
        return dict(per), sum(self.tools[start:end]), end - start, sum(self.images[start:end])


def message_counts(transcript: Transcript, counter: Any, model: str) -> tuple[int, list[int]]:
    """The counter's count of the system prompt and tools (one overhead), and of each message
    as ``model`` is sent it (its per-message overhead, images by its provider's rule)."""
    manager = ContextManager(model, counter=counter)
    manager.set_system_prompt(transcript.system or None)
    manager.set_tools(list(transcript.tools) or None)
    counts = [manager.count(m) + images_cost(m, model) for m in transcript.messages]
    return manager.overhead_tokens(), counts


def message_parts(transcript: Transcript, counter: Any, model: str) -> MessageParts:
    """The session's messages for the growth model (see :class:`MessageParts`)."""
    _, counts = message_counts(transcript, counter, model)
    images = [images_cost(m, model) for m in transcript.messages]
    return MessageParts(
        tuple(content_class(m) for m in transcript.messages),
        tuple(c - i - MESSAGE_OVERHEAD for c, i in zip(counts, images, strict=True)),
        tuple(m.role in TOOL_ROLES for m in transcript.messages),
        tuple(images),
    )


def thinking_blocks(transcript: Transcript, model: str | None = None) -> dict[int, tuple[int, ...]]:
    """Per call index: the calls whose thinking it sends again — every earlier thinking block of
    its segment where the model (``model``, else the call's own) keeps them, else those of the
    current turn (since the last user prompt); a compaction starts afresh."""
    made = {index for index, _ in transcript.thinking}
    roles = [m.role for m in transcript.messages]
    sent: dict[int, tuple[int, ...]] = {}
    held: list[int] = []
    segment, end = None, 0
    for call in transcript.calls:
        begin, stop = transcript.sent_range(call)
        if begin != segment:
            held, segment, end = [], begin, begin
        if (
            not keeps_earlier_thinking(model or call.model)
            and "user" in roles[max(end, begin) : stop]
        ):
            held = []  # a new prompt: the earlier turn's thinking is no longer sent
        sent[call.index] = tuple(held)
        if call.index in made:
            held = [*held, call.index]
        end = stop
    return sent


def thinking_sent(transcript: Transcript, counter: Any, model: str) -> dict[int, int]:
    """Per call index: the counted tokens of earlier thinking the call sends again
    (:func:`thinking_blocks` as ``model`` keeps them)."""
    made: dict[int, int] = {}
    for index, text in transcript.thinking:
        made[index] = made.get(index, 0) + counter.count(text)
    return {
        index: sum(made[block] for block in blocks)
        for index, blocks in thinking_blocks(transcript, model).items()
    }


def mine_growth(
    transcript: Transcript, counter: Any, model: str
) -> tuple[list[GrowthPair], Counter[str]]:
    """The session's growth pairs for ``model`` and the pairs left out, by reason."""
    parts = message_parts(transcript, counter, model)
    blocks = thinking_blocks(transcript, model)
    summaries: dict[int, int] = {}
    for index, text in transcript.thinking:
        summaries[index] = summaries.get(index, 0) + counter.count(text)
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
        reason = _left_out(call, previous, compactions, blocks, transcript)
        if reason is None:
            added, tools, messages, images = parts.added(previous.sent_end, call.sent_end)
            grown = call.usage.reported_input - previous.usage.reported_input
            before = set(blocks[previous.index])
            new = sum(summaries.get(b, 0) for b in blocks[call.index] if b not in before)
            if sum(added.values()) + new < MIN_GROWTH or grown <= 0:
                reason = "cache-only or nothing added"
            else:
                pairs.append(
                    GrowthPair(
                        call=call.index,
                        added=added,
                        grown=grown,
                        thinking=new,
                        tools=tools,
                        messages=messages,
                        images=images,
                    )
                )
        if reason:
            excluded[reason] += 1
        previous = call
    return pairs, excluded


def _left_out(
    call: Any,
    previous: Any,
    compactions: set[int],
    blocks: dict[int, tuple[int, ...]],
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
    if set(blocks[previous.index]) - set(blocks[call.index]):
        return "earlier thinking no longer sent"
    if call.usage.reported_input < previous.usage.reported_input:
        return "reported input shrank"
    return None
