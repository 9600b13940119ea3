"""Loading a project's ``.context/`` directory: :func:`load_context` → :class:`ProjectContext`."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from ..display import RichResult
from ..errors import ContextNotFound
from ..files import confine, decode_text, entry_kind, normalize_newlines, read_bytes, resolve_root
from ..limits import LIMITS
from ..token_budget import CONFIG_FILES, CTXRC, config_budget, read_ctxrc, resolve_token_budget
from ..validate import shown
from .markdown import (
    Convention,
    Entry,
    Rule,
    Task,
    is_effectively_empty,
    parse_constitution,
    parse_conventions,
    parse_entries,
    parse_tasks,
)

__all__ = [
    "DEFAULT_TOKEN_BUDGET",
    "READ_ORDER",
    "ContextLocation",
    "ContextNotFound",
    "ContextSettings",
    "ProjectContext",
    "find_context",
    "load_context",
]

T = TypeVar("T")
READ_ORDER = (
    "CONSTITUTION.md",
    "TASKS.md",
    "CONVENTIONS.md",
    "ARCHITECTURE.md",
    "DECISIONS.md",
    "LEARNINGS.md",
    "GLOSSARY.md",
    "AGENT_PLAYBOOK.md",
)
DEFAULT_TOKEN_BUDGET = 8000


@dataclass(frozen=True)
class ContextSettings:
    """What ``.ctxrc`` sets: the token budget and the task and convention shares."""

    token_budget: int | None = None
    task_budget_pct: float = 0.40
    convention_budget_pct: float = 0.20
    budget_source: str = CTXRC


@dataclass(frozen=True)
class ProjectContext:
    """Everything parsed from one ``.context/`` directory.

    ``root`` is the directory holding ``.context/``; ``read_order`` lists paths relative to it,
    so packets are the same on every machine.
    """

    root: Path
    context_dir: Path
    rules: tuple[Rule, ...] = ()
    tasks: tuple[Task, ...] = ()
    conventions: tuple[Convention, ...] = ()
    decisions: tuple[Entry, ...] = ()
    learnings: tuple[Entry, ...] = ()
    read_order: tuple[str, ...] = ()
    settings: ContextSettings = field(default_factory=ContextSettings)
    warnings: tuple[str, ...] = ()

    @property
    def pending_tasks(self) -> tuple[Task, ...]:
        """Tasks still to do (blocked ones included), in file order."""
        return tuple(t for t in self.tasks if t.status == "pending")

    def configured_budget(self, environ: Mapping[str, str] | None = None) -> tuple[int, str]:
        """The budget ctx would use without an explicit one: ``CTX_TOKEN_BUDGET``, else the
        project's configuration (``.ctxrc`` …), else 8000 — with where it came from."""
        configured = (
            (self.settings.token_budget, self.settings.budget_source)
            if self.settings.token_budget is not None
            else None
        )
        return resolve_token_budget(
            None, None, default=DEFAULT_TOKEN_BUDGET, configured=configured, environ=environ
        )


def _find_context_dir(path: Path) -> Path:
    kind = entry_kind(path)
    if kind == "missing":
        raise ContextNotFound(f"{path}: no such directory")
    if kind != "dir":
        raise ContextNotFound(f"{path}: not a directory")
    if path.name == ".context":
        return path
    candidate = path / ".context"
    if entry_kind(candidate) == "dir":
        return candidate
    raise ContextNotFound(
        f"{path} has no .context/ directory; pass the project directory or its .context/"
    )


def _settings(root: Path, warnings: list[str]) -> ContextSettings:
    data = read_ctxrc(root, warnings)
    defaults = ContextSettings()
    configured = config_budget(root, warnings)

    def share(key: str, default: float) -> float:
        value = data.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            warnings.append(
                f"{root / CTXRC}: {key} {shown(value)} ignored (need a fraction between 0 and 1)"
            )
            return default
        return float(value)

    return ContextSettings(
        configured[0] if configured else None,
        share("task_budget_pct", defaults.task_budget_pct),
        share("convention_budget_pct", defaults.convention_budget_pct),
        configured[1] if configured else CTXRC,
    )


def load_context(
    path: str | os.PathLike[str] = ".", *, root: str | os.PathLike[str] | None = None
) -> ProjectContext:
    """Load ``path`` (a ``.context/`` directory or a directory containing one).

    Never fails on content: undecodable bytes are replaced (with a warning naming file and
    line), malformed entries keep what can be read. A missing directory raises
    :class:`ContextNotFound`. With ``root`` (the REST server's root), ``path`` and every file
    read — the ``.context/`` files and ``.ctxrc`` — must resolve inside it
    (:class:`~ctx_lab.errors.PathOutsideRoot` otherwise, e.g. for a symlink out).
    """
    start = confine(root, path, what="dir") if root is not None else Path(path)
    context_dir = _find_context_dir(start)
    project = context_dir.parent
    warnings: list[str] = []
    texts: dict[str, str] = {}
    for name in READ_ORDER:
        file = context_dir / name
        if file.is_file():
            if root is not None:
                confine(root, file, what=f".context/{name}")
            data = read_bytes(file)
            texts[name] = normalize_newlines(decode_text(data, f".context/{name}", warnings))
    if root is not None:
        for name in CONFIG_FILES:
            if (project / name).exists():
                confine(root, project / name, what=name)
    read_order = tuple(
        f".context/{name}"
        for name in READ_ORDER
        if name in texts and not is_effectively_empty(texts[name])
    )

    def capped(name: str, items: list[T]) -> tuple[T, ...]:
        rule = LIMITS["entries"]
        most = rule.value()
        if len(items) <= most:
            return tuple(items)
        warnings.append(
            f".context/{name}: {len(items):,} entries is over {rule.describe()}; "
            f"the last {most:,} were read"
        )
        return tuple(items[-most:])

    settings = _settings(project, warnings)
    return ProjectContext(
        root=project,
        context_dir=context_dir,
        rules=capped("CONSTITUTION.md", parse_constitution(texts.get("CONSTITUTION.md", ""))),
        tasks=capped("TASKS.md", parse_tasks(texts.get("TASKS.md", ""))),
        conventions=capped("CONVENTIONS.md", parse_conventions(texts.get("CONVENTIONS.md", ""))),
        decisions=capped("DECISIONS.md", parse_entries(texts.get("DECISIONS.md", ""), "decision")),
        learnings=capped("LEARNINGS.md", parse_entries(texts.get("LEARNINGS.md", ""), "learning")),
        read_order=read_order,
        settings=settings,
        warnings=tuple(warnings),
    )


@dataclass(frozen=True)
class ContextLocation(RichResult):
    """Where the nearest project with a ``.context/`` is (relative to the root searched), and a
    signature of its files that changes whenever one of them changes (the sidebar polls it)."""

    found: bool
    directory: str | None
    signature: str

    payload_kind = "context"

    def to_dict(self) -> dict[str, Any]:
        """``{"found", "dir", "signature"}``."""
        return {"found": self.found, "dir": self.directory, "signature": self.signature}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ContextLocation:
        """The inverse of :meth:`to_dict`."""
        return cls(bool(data["found"]), data.get("dir"), str(data.get("signature", "")))

    def to_text(self) -> str:
        """The directory, or that none was found."""
        return self.directory or "no .context/ found"


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
            stamps = sorted(
                f"{p.name}:{p.stat().st_mtime_ns}:{p.stat().st_size}"
                for p in candidate.glob("*.md")
                if confine(base, p, what=f".context/{p.name}").is_file()
            )
            where = "." if current == base else current.relative_to(base).as_posix()
            return ContextLocation(True, where, "|".join(stamps))
        if current == base or base not in current.parents:
            return ContextLocation(False, None, "")
        current = current.parent
