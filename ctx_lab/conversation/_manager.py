"""``ContextManager``: keep a long conversation inside a model's window without silently
dropping anything (design: conversation-context-manager.md, refined by its issue).

History is append-only. ``prepare()`` derives the working context — recent messages always,
older ones newest first while they fit, summaries standing in for ranges they replace — and
either proves it fits (:class:`PreparedContext`) or says what to summarize.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from ..errors import HistoryCorrupted, UsageError
from ..files import read_text, write_atomic
from ..models import ModelRegistry
from ..tokens import CounterLike
from ._history import FORMAT_VERSION, FullHistory
from ._summarizing import Summarizing
from ._usage import ContextUsage
from ._working import (
    SUMMARY_PREFIX,
    Expanding,
    NoChange,
    PendingSummarization,
    PreparedContext,
    Segment,
    Shrinking,
    SummarizationScope,
    UsageStatus,
)

__all__ = [
    "SUMMARY_PREFIX",
    "ContextManager",
    "Expanding",
    "NoChange",
    "PendingSummarization",
    "PreparedContext",
    "Segment",
    "Shrinking",
    "SummarizationScope",
    "UsageStatus",
]


class ContextManager(Summarizing):
    """Conversation history and its working context for one (switchable) model.

    Its layers, one module each: settings, counting and history (``_base``), the working
    context (``_selection``), summarization (``_summarizing``); here model switches,
    persistence and the notebook surface.
    """

    # -- models -----------------------------------------------------------------------------

    def switch_model(self, name: str) -> NoChange | Shrinking | Expanding:
        """Switch to ``name`` and say how the budget changed."""
        old = self.effective_budget()
        self._limits = self.registry.get(name)
        self._model = name
        new = self.effective_budget()
        if new == old:
            return NoChange(new)
        selection = self._select(self.message_budget())
        if new < old:
            return Shrinking(old, new, selection.error is not None)
        restored = sum(
            1
            for s in selection.segments
            if s.kind == "original" and self.history.entries[s.ids[0]].is_summarized
        )
        return Expanding(old, new, restored)

    # -- persistence ------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The design's history JSON plus format_version, model and context settings."""
        return {
            "format_version": FORMAT_VERSION,
            "model": self._model,
            **self.history.to_dict(),
            "context": {
                "preserve_recent": self._settings.preserve_recent,
                "target_ratio": self._settings.target_ratio,
                "output_limit": self._settings.output_limit,
                "system_prompt": self._settings.system_prompt,
                "tools": self._settings.tools,
                "counter": self.counter.name,
            },
        }

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the history atomically (temporary file, fsync, rename, fsync the directory)."""
        return write_atomic(path, json.dumps(self.to_dict(), indent=1, ensure_ascii=False) + "\n")

    @classmethod
    def load(
        cls,
        path: str | os.PathLike[str],
        model: str | None = None,
        *,
        registry: str | ModelRegistry | None = None,
        counter: CounterLike | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> ContextManager:
        """Load and validate a saved history (:class:`HistoryCorrupted` names the first
        violation); ``model`` overrides the saved model."""
        try:
            data = json.loads(read_text(Path(path), []))
        except (ValueError, RecursionError) as exc:
            raise HistoryCorrupted(f"{path}: not JSON ({type(exc).__name__})") from None
        if not isinstance(data, dict):
            raise HistoryCorrupted(f"{path}: not a history object")
        version = data.get("format_version", FORMAT_VERSION)
        if version != FORMAT_VERSION:
            raise HistoryCorrupted(f"{path}: format_version {version!r} is not supported")
        history = FullHistory.from_dict(data)
        settings = data.get("context", {})
        if not isinstance(settings, dict):
            raise HistoryCorrupted(f"{path}: context must be an object")
        chosen = model or data.get("model")
        if not isinstance(chosen, str) or not chosen:
            raise HistoryCorrupted(f"{path}: no model saved; pass one")
        saved_counter = settings.get("counter")
        if saved_counter is not None and not isinstance(saved_counter, str):
            raise HistoryCorrupted(f"{path}: context.counter must be a counter's name")
        try:  # the settings were validated when saved: anything else is a damaged file
            manager = cls(
                chosen,
                registry,
                counter=counter or saved_counter or "cl100k",
                preserve_recent=settings.get("preserve_recent", 4),
                target_ratio=settings.get("target_ratio", 0.15),
                clock=clock,
            )
            manager.history = history
            manager.set_output_limit(settings.get("output_limit"))
            manager.set_system_prompt(settings.get("system_prompt"))
            tools = settings.get("tools")
            if tools is not None and not isinstance(tools, list):
                raise UsageError("the tool definitions must be a list")
            manager.set_tools(tools)
        except UsageError as exc:
            raise HistoryCorrupted(f"{path}: {exc}") from None
        return manager

    # -- notebook surface -------------------------------------------------------------------

    def ledger(self) -> Any:
        """A DataFrame of the history: id, role, tokens, summary_id, in_context."""
        import pandas as pd

        used = self.in_context()
        rows = [
            {
                "id": e.id,
                "role": e.message.role,
                "tokens": e.token_count,
                "summary_id": e.summary_id,
                "in_context": e.id in used,
            }
            for e in self.history.entries
        ]
        frame = pd.DataFrame(rows, columns=["id", "role", "tokens", "summary_id", "in_context"])
        return frame.astype({"summary_id": "Int64"})

    def usage(self) -> ContextUsage:
        """The current usage (displays as a gauge coloured by severity)."""
        return self.usage_status().usage
