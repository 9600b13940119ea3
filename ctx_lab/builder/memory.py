"""Memory for the builder: anything with ``search(query, k)``; by default the decisions and
learnings of a ``.context/`` directory, matched with the packet engine's keyword relevance."""

from __future__ import annotations

import os
from typing import Protocol, runtime_checkable

from ..packet.context import ProjectContext, load_context
from ..packet.scoring import extract_keywords, matched_keywords
from .blocks import ContentBlock

__all__ = ["ContextMemory", "MemorySource"]


@runtime_checkable
class MemorySource(Protocol):
    """Returns the memory blocks most relevant to ``query``, at most ``k``."""

    def search(self, query: str, k: int) -> list[ContentBlock]:
        """The best ``k`` blocks for ``query``."""
        ...


class ContextMemory:
    """Decisions and learnings of a ``.context/`` directory (superseded ones left out), ranked
    by how many of the query's keywords they match as whole words, newer first on ties."""

    def __init__(self, source: str | os.PathLike[str] | ProjectContext) -> None:
        self.context = source if isinstance(source, ProjectContext) else load_context(source)

    def search(self, query: str, k: int = 10) -> list[ContentBlock]:
        """Entries matching at least one keyword of ``query``."""
        keywords = extract_keywords([query])
        scored = []
        for file, entries in (
            ("DECISIONS.md", self.context.decisions),
            ("LEARNINGS.md", self.context.learnings),
        ):
            for entry in entries:
                if entry.superseded:
                    continue
                hits = len(matched_keywords(keywords, f"{entry.title}\n{entry.body}"))
                if hits:
                    stamp = entry.timestamp.timestamp() if entry.timestamp else 0.0
                    scored.append((-hits, -stamp, file, entry))
        scored.sort(key=lambda item: item[:2])
        return [
            ContentBlock.for_memory(f".context/{file}#{entry.stamp}", entry.text)
            for _, _, file, entry in scored[:k]
        ]
