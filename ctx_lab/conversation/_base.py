"""The state every part of a :class:`~ctx_lab.conversation.ContextManager` shares: its
settings, the model and its limits, how messages are counted, the append-only history with its
running token totals, and the tool units that may never be split."""

from __future__ import annotations

import json
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from cachetools import LRUCache

from ..clock import utc_now
from ..errors import UsageError
from ..models import ModelRegistry, ResolvedModelLimits, get_registry
from ..tokens import (
    MESSAGE_OVERHEAD,
    MODEL_COUNTER,
    CounterLike,
    count_message,
    get_counter,
    resolve_counter,
)
from ..validate import savable_data, savable_text, whole_number
from ._history import MAX_TOKEN_COUNT, FullHistory
from ._messages import Message
from ._units import UnitIndex
from ._working import SUMMARY_PREFIX

__all__ = ["ManagerBase"]


@dataclass
class _Settings:
    preserve_recent: int
    target_ratio: float
    output_limit: int | None = None
    system_prompt: str | None = None
    tools: list[Any] | None = field(default=None)


class ManagerBase:
    """Settings, counting and history of one conversation (see ContextManager)."""

    def __init__(
        self,
        model: str,
        registry: str | ModelRegistry | None = None,
        counter: CounterLike = "cl100k",
        preserve_recent: int = 4,
        target_ratio: float = 0.15,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        whole_number(preserve_recent, "preserve_recent")
        if (
            isinstance(target_ratio, bool)
            or not isinstance(target_ratio, int | float)
            or not 0 < target_ratio <= 1
        ):
            raise UsageError(f"target_ratio must be in (0, 1], got {target_ratio!r}")
        self.registry = get_registry(registry)
        if counter == MODEL_COUNTER:  # the model's own tokenizer, or a named estimate
            choice = resolve_counter(MODEL_COUNTER, model, "cl100k", budget=True)
            self.counter = get_counter(choice.name)
            self.counter_note = choice.note
        else:
            self.counter = get_counter(counter)
            self.counter_note = ""
        self._role_tokens: dict[str, int] = {}
        self._unit_index = UnitIndex()
        self._prefix = array("q", [0])
        self._prefix_last: Any = None  # the message the running totals end with
        self._summary_ids: LRUCache[tuple[int, int, int], tuple[int, ...]] = LRUCache(8)
        self._id_pool: list[int] = []
        self.clock = clock or utc_now
        self.history = FullHistory()
        self._settings = _Settings(preserve_recent, target_ratio)
        self._model = model
        self._limits = self.registry.get(model)
        self._overhead_cache: tuple[tuple[Any, ...], int] | None = None

    # -- configuration ----------------------------------------------------------------------

    @property
    def model(self) -> str:
        """The current model."""
        return self._model

    @property
    def limits(self) -> ResolvedModelLimits:
        """The current model's resolved limits."""
        return self._limits

    @property
    def preserve_recent(self) -> int:
        """How many newest messages are always kept as originals."""
        return self._settings.preserve_recent

    @property
    def target_ratio(self) -> float:
        """A summary's target size as a share of what it replaces."""
        return self._settings.target_ratio

    def set_output_limit(self, limit: int | None) -> None:
        """Reserve ``limit`` output tokens instead of the model's maximum (None: the maximum)."""
        if limit is not None:
            whole_number(limit, "output limit")
        self._settings.output_limit = limit

    def set_system_prompt(self, text: str | None) -> None:
        """The system prompt every call carries (counted in every context, never evicted)."""
        self._settings.system_prompt = savable_text(text, "the system prompt") if text else None

    def set_tools(self, definitions: Sequence[Any] | None) -> None:
        """The tool definitions every call carries (counted in every context, never evicted)."""
        tools = list(definitions) if definitions else None
        self._settings.tools = savable_data(tools, "the tool definitions") if tools else None

    def effective_budget(self) -> int:
        """The model's effective input budget, honouring the output limit."""
        return self._limits.effective_input_budget(self._settings.output_limit)

    def overhead_tokens(self) -> int:
        """Tokens of the system prompt (as a system message) plus the tool definitions."""
        key = (self._settings.system_prompt, json.dumps(self._settings.tools, sort_keys=True))
        if self._overhead_cache is None or self._overhead_cache[0] != key:
            tokens = 0
            if self._settings.system_prompt:
                tokens += count_message("system", self._settings.system_prompt, self.counter)
            if self._settings.tools:
                tokens += self.counter.count(
                    json.dumps(
                        self._settings.tools,
                        sort_keys=True,
                        separators=(",", ":"),
                        ensure_ascii=False,
                    )
                )
            self._overhead_cache = (key, tokens)
        return self._overhead_cache[1]

    def message_budget(self) -> int:
        """B: the effective budget minus the system prompt and tools."""
        return max(self.effective_budget() - self.overhead_tokens(), 0)

    # -- history ----------------------------------------------------------------------------

    def count(self, message: Message) -> int:
        """A message's tokens: content + role + 4 (tool calls as assistant, results as user),
        and for a tool call or result the framing a calibrated counter measured
        (``tool_framing``; none for a tokenizer)."""
        role, content = message.counted_as()
        roles = self._role_tokens
        if role not in roles:
            roles[role] = count_message(role, "", self.counter) - MESSAGE_OVERHEAD
        framing = 0
        if message.role in ("tool_use", "tool_result"):
            framing = round(getattr(self.counter, "tool_framing", 0))
        return self.counter.count(content) + roles[role] + MESSAGE_OVERHEAD + framing

    def summary_tokens(self, content: str) -> int:
        """Tokens of a summary as it is sent: a system message with the summary prefix."""
        return count_message("system", f"{SUMMARY_PREFIX}\n{content}", self.counter)

    def _token_count(self, message: Message, token_count: int | None) -> int:
        if token_count is None:
            return self.count(message)
        return whole_number(token_count, "token_count", maximum=MAX_TOKEN_COUNT)

    def push_message(self, message: Message, token_count: int | None = None) -> int:
        """Append a message (``token_count`` injects its full count); returns its id."""
        return self.history.push(message, self._token_count(message, token_count), self.clock())

    def push_message_with_step_id(
        self, message: Message, step_id: int, token_count: int | None = None
    ) -> int:
        """Append a message linked to a stream journal step (for idempotent recovery)."""
        return self.history.push(
            message, self._token_count(message, token_count), self.clock(), step_id
        )

    def has_step_id(self, step_id: int) -> bool:
        """True when a message of this stream step is already in history."""
        return self.history.has_step_id(step_id)

    def rollback_last_message(self, message_id: int) -> Message | None:
        """Remove the last message if it is ``message_id`` (and not summarized)."""
        return self.history.pop_if_last(message_id)

    # -- tool units -------------------------------------------------------------------------

    def tool_units(self) -> list[tuple[int, int]]:
        """Inclusive id ranges from a tool_use to the last result answering it, merged when
        they overlap (parallel calls). A call still waiting for its result reaches to the end
        of the history: it cannot be summarized before it is answered. Kept up to date as the
        history grows (summaries change no role)."""
        return self._units().units()

    def _units(self) -> UnitIndex:
        self._unit_index.update(self.history.entries.messages)
        return self._unit_index

    def _prefix_tokens(self) -> array[int]:
        """Running totals of the messages' token counts (``[0, t0, t0+t1, …]``), extended as
        the history grows — counts never change, summaries only point at messages."""
        entries = self.history.entries
        messages = entries.messages
        prefix = self._prefix
        known = len(prefix) - 1
        if known > len(messages) or (known and messages[known - 1] is not self._prefix_last):
            prefix = self._prefix = array("q", [0])
            known = 0
        total = prefix[-1]
        for tokens in entries.tokens[known:]:
            total += tokens
            prefix.append(total)
        self._prefix_last = messages[-1] if messages else None
        return prefix
