"""The layout report: which memory layout a project's context was read from, and what each of
its files became — the packet tier it feeds (1 constitution and Read These Files, 2 tasks,
3 conventions and steering, 4 decisions, 5 learnings, as ``smart-retrieval-packet.md``
allocates them), or that it was not read. ``ctx-lab context`` prints it; every packet carries
it (``layout`` in its JSON)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..wire import to_wire, wire

__all__ = ["CTX_LAYOUT", "LayoutFile", "LayoutReport", "ctx_layout_files"]

CTX_LAYOUT = "ctx (.context/)"


@dataclass(frozen=True)
class LayoutFile:
    """One file of the project's memory and what it was read as."""

    file: str = field(metadata=wire("relative to the project"))
    read_as: str = field(metadata=wire("the tier it feeds (with counts), or not read and why"))

    def to_dict(self) -> dict[str, str]:
        """``{"file", "read_as"}``."""
        return to_wire(self)


@dataclass(frozen=True)
class LayoutReport:
    """The layout found (``ctx (.context/)`` or other agents' layouts) and each file's fate."""

    name: str = ""
    files: tuple[LayoutFile, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """``{"name", "files": [{"file", "read_as"}, …]}``."""
        return {"name": self.name, "files": [f.to_dict() for f in self.files]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> LayoutReport:
        """The inverse of :meth:`to_dict` (an absent report is the empty one)."""
        if not data:
            return cls()
        files = tuple(LayoutFile(str(f["file"]), str(f["read_as"])) for f in data.get("files", ()))
        return cls(str(data.get("name", "")), files)

    def lines(self) -> list[str]:
        """``file → read as``, one per file."""
        return [f"{f.file} → {f.read_as}" for f in self.files]


def _plural(n: int, word: str, words: str) -> str:
    return f"{n:,} {word if n == 1 else words}"


def ctx_layout_files(
    texts: Mapping[str, str],
    *,
    rules_source: str,
    rules: int,
    tasks: Iterable[Any],
    conventions: Iterable[Any],
    decisions: Iterable[Any],
    learnings: Iterable[Any],
    steering: Iterable[Any],
    read_order: Sequence[str],
    empty: Any,
    not_read: Mapping[str, str],
) -> tuple[LayoutFile, ...]:
    """What each file of a ``.context/`` became. ``texts`` are the files read (by label),
    ``empty`` tells an effectively empty text, ``not_read`` names files outside ``.context/``
    (other agents' memory beside it) with why they were not read."""
    task_count = Counter(t.source for t in tasks)
    pending = Counter(t.source for t in tasks if t.status == "pending")
    convention_count = Counter(c.source for c in conventions)
    decision_count = Counter(e.source for e in decisions)
    learning_count = Counter(e.source for e in learnings)
    steering_by = {s.source: s.inclusion for s in steering}
    listed = {path.rstrip("/") for path in read_order}
    made: list[LayoutFile] = []
    for label, text in texts.items():
        parts: list[str] = []
        if label == rules_source and rules:
            parts.append(f"tier 1 constitution: {_plural(rules, 'rule', 'rules')}")
        if task_count[label]:
            parts.append(f"tier 2 tasks: {task_count[label]:,} ({pending[label]:,} pending)")
        if convention_count[label]:
            parts.append(f"tier 3 conventions: {convention_count[label]:,}")
        if label in steering_by:
            parts.append(f"tier 3 steering ({steering_by[label]})")
        if decision_count[label]:
            parts.append(f"tier 4 decisions: {_plural(decision_count[label], 'entry', 'entries')}")
        if learning_count[label]:
            parts.append(f"tier 5 learnings: {_plural(learning_count[label], 'entry', 'entries')}")
        folder = label.rsplit("/", 1)[0]
        if label in listed or (folder != ".context" and folder in listed and not parts):
            parts.append("tier 1 Read These Files")
        if not parts:
            parts.append("nothing (empty)" if empty(text) else "not read (see the warnings)")
        made.append(LayoutFile(label, "; ".join(parts)))
    made += [LayoutFile(file, why) for file, why in not_read.items()]
    return tuple(made)
