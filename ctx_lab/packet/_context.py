"""Loading a project's ``.context/`` directory: :func:`load_context` → :class:`ProjectContext`."""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from cachetools import LRUCache

from ..clock import wall_time_ns
from ..errors import ContextNotFound
from ..files import (
    FileIdentity,
    confine,
    entry_kind,
    identity,
    real_path,
)
from ..limits import LIMITS
from ..token_budget import CONFIG_FILES, resolve_token_budget
from ._agents import ROOT_FILES, agent_memory, load_agent_memory
from ._folder import (
    READ_ORDER,
    STEERING_FOLDER,
    THEME_FOLDERS,
    context_files,
    find_context_dir,
    label_of,
)
from ._layout_map import LayoutReport
from ._loading import load_parts
from ._markdown import (
    Convention,
    Entry,
    Rule,
    Steering,
    Task,
)
from ._settings import ContextSettings, read_settings

__all__ = [
    "DEFAULT_TOKEN_BUDGET",
    "READ_ORDER",
    "STEERING_FOLDER",
    "THEME_FOLDERS",
    "ContextSettings",
    "ProjectContext",
    "context_files",
    "load_context",
]

T = TypeVar("T")
DEFAULT_TOKEN_BUDGET = 8000


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
    steering: tuple[Steering, ...] = ()
    read_order: tuple[str, ...] = ()
    settings: ContextSettings = field(default_factory=ContextSettings)
    warnings: tuple[str, ...] = ()
    # every file read, as text (newlines normalized), by its label (".context/TASKS.md")
    texts: Mapping[str, str] = field(default_factory=dict)
    # the layout found and what each file became (tier, or not read)
    layout: LayoutReport = field(default_factory=LayoutReport)

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


def agents_context(
    project: Path, files: list[tuple[str, Path]], root: Any, start: Path
) -> ProjectContext:
    """A project without ``.context/`` read from its agents' memory."""
    from ._settings import read_settings

    made = load_agent_memory(project, files, None if root is None else Path(root))
    warnings = list(made["warnings"])
    settings = read_settings(project, warnings)
    return ProjectContext(
        root=project,
        context_dir=start,
        steering=made["steering"],
        read_order=made["read_order"],
        settings=settings,
        warnings=tuple(warnings),
        texts=made["texts"],
        layout=made["layout"],
    )


def _signature(files: list[Path], project: Path) -> tuple[FileIdentity, ...]:
    stamps = []
    beside = (project / name for name in (*CONFIG_FILES, *ROOT_FILES))
    for path in [*files, *beside]:
        try:
            stamps.append(identity(path))
        except OSError:
            continue
    return tuple(stamps)


# A file changed within this long of now may change again without its size or modification
# time moving (coarse file-system clocks): such loads are not kept.
RACY_NS = 2_000_000_000
_CACHE: LRUCache[tuple[str, str | None], tuple[Any, ProjectContext]] = LRUCache(maxsize=16)
_CACHE_LOCK = threading.Lock()


def load_context(
    path: str | os.PathLike[str] = ".",
    *,
    root: str | os.PathLike[str] | None = None,
    cached: bool = True,
) -> ProjectContext:
    """Load ``path`` (a ``.context/`` directory or a directory containing one).

    Reads the top-level files, the theme folders ``decisions/``, ``learnings/`` and
    ``conventions/`` (their entries join the top-level file's, each with its ``source``) and
    ``steering/``. Never fails on content: undecodable bytes are replaced and every parse
    problem becomes a warning naming file and line. A missing directory raises
    :class:`ContextNotFound`. With ``root`` (the REST server's root), ``path`` and every file
    read — the ``.context/`` files and ``.ctxrc`` — must resolve inside it
    (:class:`~ctx_lab.errors.PathOutsideRoot` otherwise, e.g. for a symlink out).

    Results are kept by the files' path, size and modification time: loading an unchanged
    directory again (a slider, a sidebar poll, a REST call per budget) returns the same object;
    ``cached=False`` parses anew.
    """
    start = confine(root, path, what="dir") if root is not None else Path(path)
    try:
        context_dir = find_context_dir(start)
    except ContextNotFound:  # no .context/: other agents' memory, when the project has some
        found = agent_memory(start) if entry_kind(start) == "dir" else None
        if found is None:
            raise
        return agents_context(*found, root, start)
    project = context_dir.parent
    files = context_files(context_dir)
    most = LIMITS["context_files"].value()
    skipped = max(len(files) - most, 0)
    files = files[:most]
    if root is not None:
        for file in files:
            confine(root, file, what=label_of(context_dir, file))
        for name in CONFIG_FILES:
            if (project / name).exists():
                confine(root, project / name, what=name)
    key = (os.fspath(real_path(context_dir)), None if root is None else os.fspath(root))
    signature = (_signature(files, project), most, LIMITS["entries"].value())
    with _CACHE_LOCK:
        known = _CACHE.get(key) if cached else None
    if known is not None and known[0] == signature:
        return known[1]
    loaded = _load(context_dir, files, skipped)
    newest = max((stamp.mtime_ns for stamp in signature[0]), default=0)
    if wall_time_ns() - newest > RACY_NS:
        with _CACHE_LOCK:
            _CACHE[key] = (signature, loaded)
    return loaded


def _load(context_dir: Path, files: list[Path], skipped: int) -> ProjectContext:
    parts = load_parts(context_dir, files, skipped)
    warnings = parts.pop("warnings")
    settings = read_settings(context_dir.parent, warnings)  # its warnings come last
    return ProjectContext(**parts, settings=settings, warnings=tuple(warnings))
