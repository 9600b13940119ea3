"""Where the nearest project with a ``.context/`` (or, without one, other agents' memory: see
:mod:`._agents`) is, at or above a directory and never above a root — with a signature of its
files that changes whenever one of them does (the sidebar polls it)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from ..display import RichResult
from ..files import confine, identity, resolve_root
from ..wire import wire
from ._agents import AGENT_LAYOUTS, agent_memory
from ._folder import context_files, label_of
from ._layout_map import CTX_LAYOUT, LayoutFile

__all__ = ["CTX_LAYOUT", "ContextLocation", "find_context"]


@dataclass(frozen=True, kw_only=True)
class ContextLocation(RichResult):
    """Where the nearest project with a ``.context/`` is (relative to the root searched), and a
    signature of its files that changes whenever one of them changes (the sidebar polls it)."""

    found: bool
    directory: str | None = field(metadata=wire("the project's directory", key="dir"))
    signature: str
    layout: str = field(
        default="",
        metadata=wire(
            "which memory layout was found: ctx (.context/), or other agents' (Kiro steering, "
            "Cursor rules, Cline memory bank, instruction and rules files)"
        ),
    )
    files: tuple[LayoutFile, ...] = field(
        default=(),
        metadata=wire(
            "each file of the memory found and what a packet reads it as (tier, or not read)"
        ),
    )

    payload_kind = "context"

    def to_text(self) -> str:
        """The directory (and, for other agents' memory, its layout), then each file and what it
        is read as; or that none was found."""
        if not self.directory:
            return "no .context/ found"
        head = self.directory if self.layout == CTX_LAYOUT else f"{self.directory} ({self.layout})"
        return "\n".join([head, *(f"  {f.file} → {f.read_as}" for f in self.files)])


def find_context(
    start: str | os.PathLike[str] = ".", *, root: str | os.PathLike[str] = "."
) -> ContextLocation:
    """Walk up from ``start`` (confined to ``root``, never above it) to the first directory
    holding ``.context/``."""
    base = resolve_root(root)
    current = confine(base, start, what="dir")
    if not current.is_dir():
        current = current.parent
    while True:
        candidate = current / ".context"
        if candidate.is_dir():
            confine(base, candidate, what="dir")
            stamps = []
            for p in context_files(candidate):
                confine(base, p, what=label_of(candidate, p))
                stamps.append(f"{label_of(candidate, p)}:{identity(p).token()}")
            where = "." if current == base else current.relative_to(base).as_posix()
            return ContextLocation(
                found=True, directory=where, signature="|".join(stamps), layout=CTX_LAYOUT
            )
        memory = agent_memory(current)  # no .context/: other agents' memory counts too
        if memory is not None and memory[0] == current:
            stamps = []
            for _, p in memory[1]:
                confine(base, p, what=p.name)
                stamps.append(f"{p.relative_to(current).as_posix()}:{identity(p).token()}")
            where = "." if current == base else current.relative_to(base).as_posix()
            layouts = ", ".join(dict.fromkeys(AGENT_LAYOUTS[kind] for kind, _ in memory[1]))
            return ContextLocation(
                found=True, directory=where, signature="|".join(stamps), layout=layouts
            )
        if current == base or base not in current.parents:
            return ContextLocation(found=False, directory=None, signature="")
        current = current.parent
