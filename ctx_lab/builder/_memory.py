"""Memory for the builder: anything with ``search(query, k)``; by default the decisions and
learnings of a ``.context/`` directory, matched with the packet engine's keyword relevance."""

from __future__ import annotations

import os
from typing import Protocol, runtime_checkable

from ..packet import ProjectContext, extract_keywords, load_context, matched_keywords
from ._blocks import ContentBlock

__all__ = ["ContextMemory", "MemorySource"]


@runtime_checkable
class MemorySource(Protocol):
    """Returns the memory blocks most relevant to ``query``, at most ``k``."""

    def search(self, query: str, k: int) -> list[ContentBlock]:
        """The best ``k`` blocks for ``query``."""
        ...


class ContextMemory:
    """Decisions and learnings of a ``.context/`` directory (superseded ones left out), ranked
    by how many of the query's keywords they match as whole words, newer first on ties. Each
    block is named by the file the entry lives in and its line (``.context/decisions/cli.md#L12``)
    so that paging the reference finds it."""

    def __init__(self, source: str | os.PathLike[str] | ProjectContext) -> None:
        self.context = source if isinstance(source, ProjectContext) else load_context(source)

    def search(self, query: str, k: int = 10) -> list[ContentBlock]:
        """Entries matching at least one keyword of ``query``."""
        keywords = extract_keywords([query])
        scored = []
        for name, entries in (
            ("DECISIONS.md", self.context.decisions),
            ("LEARNINGS.md", self.context.learnings),
        ):
            for entry in entries:
                if entry.superseded:
                    continue
                hits = len(matched_keywords(keywords, f"{entry.title}\n{entry.body}"))
                if hits:
                    stamp = entry.timestamp.timestamp() if entry.timestamp else 0.0
                    source = entry.source or f".context/{name}"
                    scored.append((-hits, -stamp, f"{source}#L{entry.line}", entry))
        scored.sort(key=lambda item: item[:2])
        return [ContentBlock.for_memory(where, entry.text) for _, _, where, entry in scored[:k]]
