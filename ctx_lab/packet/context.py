"""Loading a project's ``.context/`` directory: :func:`load_context` → :class:`ProjectContext`."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import CtxLabError, UsageError
from ..textfile import decode_text, normalize_newlines, read_bytes
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
    "ContextNotFound",
    "ContextSettings",
    "ProjectContext",
    "load_context",
]

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
BUDGET_ENV = "CTX_TOKEN_BUDGET"


class ContextNotFound(CtxLabError):
    """The directory has no ``.context/`` (and is not one)."""


@dataclass(frozen=True)
class ContextSettings:
    """What ``.ctxrc`` sets: the token budget and the task and convention shares."""

    token_budget: int | None = None
    task_budget_pct: float = 0.40
    convention_budget_pct: float = 0.20


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
        """The budget ctx would use without an explicit one: ``CTX_TOKEN_BUDGET``, else
        ``.ctxrc``, else 8000 — with where it came from."""
        env = os.environ if environ is None else environ
        raw = env.get(BUDGET_ENV)
        if raw is not None and raw.strip():
            try:
                value = int(raw.strip())
            except ValueError:
                raise UsageError(f"{BUDGET_ENV}={raw!r} is not a whole number") from None
            if value < 0:
                raise UsageError(f"{BUDGET_ENV}={raw!r} is negative")
            return value, BUDGET_ENV
        if self.settings.token_budget is not None:
            return self.settings.token_budget, ".ctxrc"
        return DEFAULT_TOKEN_BUDGET, "default"


def _find_context_dir(path: Path) -> Path:
    if not path.exists():
        raise ContextNotFound(f"{path}: no such directory")
    if not path.is_dir():
        raise ContextNotFound(f"{path}: not a directory")
    if path.name == ".context":
        return path
    candidate = path / ".context"
    if candidate.is_dir():
        return candidate
    raise ContextNotFound(
        f"{path} has no .context/ directory; pass the project directory or its .context/"
    )


def _settings(root: Path, warnings: list[str]) -> ContextSettings:
    rc = root / ".ctxrc"
    if not rc.is_file():
        return ContextSettings()
    import yaml

    try:
        data: Any = yaml.safe_load(decode_text(rc.read_bytes(), str(rc), warnings)) or {}
    except (OSError, yaml.YAMLError) as exc:
        warnings.append(f"{rc}: ignored, not valid YAML ({exc.__class__.__name__})")
        return ContextSettings()
    if not isinstance(data, dict):
        warnings.append(f"{rc}: ignored, expected key: value pairs")
        return ContextSettings()
    defaults = ContextSettings()
    budget = data.get("token_budget")
    if budget is not None and (
        isinstance(budget, bool) or not isinstance(budget, int) or budget < 0
    ):
        warnings.append(f"{rc}: token_budget {budget!r} ignored (need a whole number ≥ 0)")
        budget = None

    def share(key: str, default: float) -> float:
        value = data.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            warnings.append(f"{rc}: {key} {value!r} ignored (need a fraction between 0 and 1)")
            return default
        return float(value)

    return ContextSettings(
        budget,
        share("task_budget_pct", defaults.task_budget_pct),
        share("convention_budget_pct", defaults.convention_budget_pct),
    )


def load_context(path: str | os.PathLike[str] = ".") -> ProjectContext:
    """Load ``path`` (a ``.context/`` directory or a directory containing one).

    Never fails on content: undecodable bytes are replaced (with a warning naming file and
    line), malformed entries keep what can be read. A missing directory raises
    :class:`ContextNotFound`.
    """
    context_dir = _find_context_dir(Path(path))
    root = context_dir.parent
    warnings: list[str] = []
    texts: dict[str, str] = {}
    for name in READ_ORDER:
        file = context_dir / name
        if file.is_file():
            data = read_bytes(file)
            texts[name] = normalize_newlines(decode_text(data, f".context/{name}", warnings))
    read_order = tuple(
        f".context/{name}"
        for name in READ_ORDER
        if name in texts and not is_effectively_empty(texts[name])
    )
    return ProjectContext(
        root=root,
        context_dir=context_dir,
        rules=tuple(parse_constitution(texts.get("CONSTITUTION.md", ""))),
        tasks=tuple(parse_tasks(texts.get("TASKS.md", ""))),
        conventions=tuple(parse_conventions(texts.get("CONVENTIONS.md", ""))),
        decisions=tuple(parse_entries(texts.get("DECISIONS.md", ""), "decision")),
        learnings=tuple(parse_entries(texts.get("LEARNINGS.md", ""), "learning")),
        read_order=read_order,
        settings=_settings(root, warnings),
        warnings=tuple(warnings),
    )
