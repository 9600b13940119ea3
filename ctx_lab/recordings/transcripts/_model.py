"""What every transcript format becomes: :class:`Transcript`, its :class:`Call` s and their
:class:`Usage`."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...errors import TranscriptError, UsageError
from ...tokens import image_provider, sized_image_tokens
from ._read import count

# what every command says of a recording whose calls carry no usage: its sizes are counts
NO_USAGE = "no usage recorded: sizes counted"
IMAGE_PLACEHOLDER = "[image]"  # an image (or document) whose size the recording does not show
# an image in a message's text: "[image]", or "[image 800×600]" when its bytes gave its size
IMAGE_MARK = re.compile(r"\[image(?: (\d{1,5})×(\d{1,5}))?\]")


def image_placeholder(size: tuple[int, int] | None) -> str:
    """The text an image becomes: its size in it when known (``[image 800×600]``)."""
    return IMAGE_PLACEHOLDER if size is None else f"[image {size[0]}×{size[1]}]"


def images_cost(message: Any, model: str) -> int:
    """The tokens of the images a recorded message held, by ``model``'s provider rule (for
    their size when the recording kept their bytes): text counters see only placeholders."""
    if message.role not in ("user", "tool_result") or "[image" not in message.content:
        return 0
    provider = image_provider(model)
    return sum(sized_image_tokens(provider, size)[0] for size in image_marks(message.content))


def image_marks(text: str) -> list[tuple[int, int] | None]:
    """The images a message's text holds, each with its size (None: unknown)."""
    if "[image" not in text:
        return []
    return [(int(m[1]), int(m[2])) if m[1] else None for m in IMAGE_MARK.finditer(text)]


@dataclass(frozen=True, slots=True)
class Usage:
    """Provider-reported tokens of one call. ``reported_input`` is input + cache creation +
    cache read (Anthropic reports the three apart; OpenAI's and Gemini's prompt tokens include
    the cached ones, split out here). ``reasoning_tokens`` is the part of the output spent on
    reasoning, where the provider says."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    reasoning_tokens: int = 0
    cache_write_1h: int = 0  # of the cache written, what was kept an hour (Anthropic's 1h TTL)

    @property
    def reported_input(self) -> int:
        """Every input token the call was billed for, cached or not."""
        return self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens

    @classmethod
    def from_anthropic(cls, data: Mapping[str, Any]) -> Usage:
        """From an Anthropic ``usage`` object. With server-side context management the last
        ``message`` entry of ``usage.iterations`` is the context the final sampling saw (a
        ``compaction`` entry is the cost of summarizing, not a context size)."""
        iterations = data.get("iterations")
        if isinstance(iterations, list):
            messages = [
                it for it in iterations if isinstance(it, Mapping) and it.get("type") == "message"
            ]
            if messages:
                last = messages[-1]
                return cls(
                    count(last.get("input_tokens"), "usage.iterations[].input_tokens"),
                    count(data.get("output_tokens"), "usage.output_tokens"),
                    count(
                        last.get("cache_creation_input_tokens"),
                        "usage.iterations[].cache_creation_input_tokens",
                    ),
                    count(
                        last.get("cache_read_input_tokens"),
                        "usage.iterations[].cache_read_input_tokens",
                    ),
                )
        creation = data.get("cache_creation")
        hour = creation.get("ephemeral_1h_input_tokens") if isinstance(creation, Mapping) else 0
        return cls(
            count(data.get("input_tokens"), "usage.input_tokens"),
            count(data.get("output_tokens"), "usage.output_tokens"),
            count(data.get("cache_creation_input_tokens"), "usage.cache_creation_input_tokens"),
            count(data.get("cache_read_input_tokens"), "usage.cache_read_input_tokens"),
            cache_write_1h=count(hour, "usage.cache_creation.ephemeral_1h_input_tokens"),
        )

    @classmethod
    def from_openai(cls, data: Mapping[str, Any]) -> Usage:
        """From an OpenAI ``usage`` object: Chat Completions (``prompt_tokens``,
        ``prompt_tokens_details.cached_tokens``) or Responses (``input_tokens``,
        ``input_tokens_details.cached_tokens``); cached tokens split out of the prompt."""
        if "prompt_tokens" in data or "completion_tokens" in data:
            prompt = count(data.get("prompt_tokens"), "usage.prompt_tokens")
            output = count(data.get("completion_tokens"), "usage.completion_tokens")
            details = data.get("prompt_tokens_details")
            out_details = data.get("completion_tokens_details")
            cached_field, reasoning_field = "prompt_tokens_details", "completion_tokens_details"
        else:
            prompt = count(data.get("input_tokens"), "usage.input_tokens")
            output = count(data.get("output_tokens"), "usage.output_tokens")
            details = data.get("input_tokens_details")
            out_details = data.get("output_tokens_details")
            cached_field, reasoning_field = "input_tokens_details", "output_tokens_details"
        cached = (
            count(details.get("cached_tokens"), f"usage.{cached_field}.cached_tokens")
            if isinstance(details, Mapping)
            else 0
        )
        reasoning = (
            count(out_details.get("reasoning_tokens"), f"usage.{reasoning_field}.reasoning_tokens")
            if isinstance(out_details, Mapping)
            else 0
        )
        if cached > prompt:
            raise TranscriptError(f"usage: {cached} cached tokens of only {prompt} prompt tokens")
        return cls(prompt - cached, output, 0, cached, reasoning)

    def to_dict(self) -> dict[str, int]:
        """The counts."""
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_creation_input_tokens": self.cache_creation_input_tokens,
            "cache_read_input_tokens": self.cache_read_input_tokens,
            "reasoning_tokens": self.reasoning_tokens,
        }


@dataclass(frozen=True, slots=True)
class Call:
    """One model call: ``prompt`` = how many of the transcript's messages came before its answer
    (what it was sent, from the last recorded compaction on), ``context`` = how many there are
    once its answer is in; its model, time and reported usage. ``compacted`` marks a call whose
    request history the provider compacted on its side (its usage does not measure the
    history the transcript holds: calibration leaves it out)."""

    index: int
    context: int
    model: str | None = None
    timestamp: str | None = None
    usage: Usage | None = None
    prompt: int | None = None
    compacted: bool = False

    @property
    def sent_end(self) -> int:
        """The end of what the call was sent (its ``prompt``; ``context`` when unknown)."""
        return self.context if self.prompt is None else self.prompt


@dataclass(frozen=True)
class Transcript:
    """A recorded session, ready to replay.

    ``skipped`` counts the records that are not conversation, by kind (Claude Code's
    ``progress``, ``system`` … lines, Codex's events, Gemini's ``info`` messages); ``thinking``
    holds the reasoning text each call produced (``(call index, text)``): counted apart, never
    part of the messages — a file holds a summary, and which earlier thinking a request sends
    again is the model's rule (:func:`ctx_lab.models.keeps_earlier_thinking`);
    ``agent_version`` the version of the agent that wrote it (Claude Code's records and Codex's
    ``session_meta.cli_version`` say it), which decides the agent's own rules (its
    auto-compaction threshold); ``agent_window`` the window the agent says it ran the model in,
    where the file says it (Codex's ``token_count`` carries ``model_context_window``).
    """

    format: str
    messages: tuple[Any, ...]
    calls: tuple[Call, ...] = ()
    system: str = ""
    tools: tuple[Any, ...] = ()
    compactions: tuple[int, ...] = ()  # message positions where a compaction was recorded
    recorded_summaries: tuple[int, ...] = ()  # positions of what those compactions wrote
    sidechain_lines: int = 0
    unknown_lines: int = 0
    images: int = 0
    warnings: tuple[str, ...] = field(default=())
    source: str = ""  # the file it was read from, as given
    skipped: tuple[tuple[str, int], ...] = ()
    thinking: tuple[tuple[int, str], ...] = ()
    subagent: bool = False
    agent_version: str = ""  # the recording agent's own version, where the file says it
    agent_window: int | None = None  # the agent's window for the model, where the file says it

    def sent_range(self, call: Call) -> tuple[int, int]:
        """The messages ``[start, end)`` the recorded call was sent: after the last compaction
        recorded before it (the agent's summary stands in for what came earlier)."""
        end = call.sent_end
        start = max((c for c in self.compactions if c < end), default=0)
        return start, end

    def compaction_calls(self) -> tuple[int, ...]:
        """The calls that were the first after a recorded compaction."""
        found = []
        previous = 0
        for call in self.calls:
            end = call.sent_end
            if any(previous <= c < end for c in self.compactions):
                found.append(call.index)
            previous = max(previous, call.context)
        return tuple(found)

    @property
    def models(self) -> tuple[str, ...]:
        """The models the calls were made with, in first-use order."""
        return tuple(dict.fromkeys(c.model for c in self.calls if c.model))

    def require_model(self, model: str | None, source: str | None = None) -> None:
        """Refuse, naming ``--model``, a recording that names no model when none is given
        (every command says it the same way: a usage error, never a default model)."""
        if model is None and self.calls and not self.models:
            where = source or self.source or "the transcript"
            raise UsageError(f"{where}: the recording names no model: pass --model")

    @property
    def has_usage(self) -> bool:
        """Whether any call carries provider-reported usage."""
        return any(c.usage is not None for c in self.calls)

    def tool_counts(self) -> tuple[int, int]:
        """Distinct tool calls and tool results in the messages."""
        uses = {m.call_id for m in self.messages if m.role == "tool_use"}
        results = {m.call_id for m in self.messages if m.role == "tool_result"}
        return len(uses), len(results)

    def to_manager(self, model: str | None = None, **options: Any) -> Any:
        """A :class:`~ctx_lab.conversation.ContextManager` holding this session's messages for
        ``model`` (default: the first model the session used); the system prompt and tool
        definitions are set as the manager's reserved overhead. ``options`` go to the manager
        (``counter``, ``preserve_recent`` …)."""
        from ...conversation import ContextManager

        chosen = model or (self.models[0] if self.models else None)
        if chosen is None:
            raise TranscriptError("the transcript names no model: pass one")
        manager = ContextManager(chosen, **options)
        manager.set_system_prompt(self.system or None)
        manager.set_tools(list(self.tools) or None)
        for message in self.messages:
            manager.push_message(message)
        return manager
