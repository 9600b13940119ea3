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
    confine,
    decode_text,
    entry_kind,
    normalize_newlines,
    read_bytes,
    real_path,
)
from ..limits import LIMITS
from ..token_budget import CONFIG_FILES, resolve_token_budget
from ._agents import ROOT_FILES, agent_memory, agents_context, memory_beside
from ._folder import (
    KNOWN_FOLDERS,
    READ_ORDER,
    STEERING_FOLDER,
    THEME_FOLDERS,
    context_files,
    find_context_dir,
    label_of,
)
from ._layout_map import CTX_LAYOUT, LayoutReport, ctx_layout_files
from ._markdown import (
    Convention,
    Entry,
    Rule,
    Steering,
    Task,
    is_effectively_empty,
    parse_constitution,
    parse_conventions,
    parse_entries,
    parse_steering,
    parse_tasks,
)
from ._records import other_layout, unread_count_text, unread_counts
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


def _signature(files: list[Path], project: Path) -> tuple[tuple[str, int, int], ...]:
    stamps = []
    beside = (project / name for name in (*CONFIG_FILES, *ROOT_FILES))
    for path in [*files, *beside]:
        try:
            info = path.stat()
        except OSError:
            continue
        stamps.append((os.fspath(path), info.st_size, info.st_mtime_ns))
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
    newest = max((stamp[2] for stamp in signature[0]), default=0)
    if wall_time_ns() - newest > RACY_NS:
        with _CACHE_LOCK:
            _CACHE[key] = (signature, loaded)
    return loaded


def _load(context_dir: Path, files: list[Path], skipped: int) -> ProjectContext:
    project = context_dir.parent
    warnings: list[str] = []
    if skipped:
        warnings.append(
            f".context/: {skipped:,} files beyond {LIMITS['context_files'].describe()} "
            "were not read"
        )
    texts: dict[str, str] = {}
    for file in files:
        label = label_of(context_dir, file)
        texts[label] = normalize_newlines(decode_text(read_bytes(file), label, warnings))

    # a known file however its name is cased (many projects write decisions.md)
    spelled: dict[str, str] = {}
    for label in texts:
        if label.count("/") == 1:
            for name in READ_ORDER:
                if label[len(".context/") :].lower() == name.lower():
                    if f".context/{name}" in texts:  # the exact spelling wins
                        spelled[name] = f".context/{name}"
                    else:
                        spelled.setdefault(name, label)

    def known(name: str) -> str:
        """The label of the known top-level file ``name`` as this project spells it."""
        return spelled.get(name, f".context/{name}")

    def themed(name: str) -> list[str]:
        """The labels of the top-level file ``name`` and its theme folder's files."""
        folder = THEME_FOLDERS.get(name)
        prefix = f".context/{folder}/" if folder else None
        top = [known(name)] if known(name) in texts else []
        return top + [k for k in texts if prefix and k.startswith(prefix)]

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

    ctx_shaped: list[str] = []  # the files with entries in ctx's own shape

    def entries(name: str, kind: str) -> tuple[Entry, ...]:
        found: list[Entry] = []
        for label in themed(name):
            text = texts[label]
            here = parse_entries(
                text, kind, source=label, warnings=warnings, start_index=len(found)
            )
            if here:
                ctx_shaped.append(label)
            elif not is_effectively_empty(text):
                here = other_layout(
                    label, text, kind, len(found), THEME_FOLDERS[name], warnings, known(name)
                )
            found += here
        return capped(name, found)

    rules = capped("CONSTITUTION.md", parse_constitution(texts.get(known("CONSTITUTION.md"), "")))
    tasks = capped(
        "TASKS.md", parse_tasks(texts.get(known("TASKS.md"), ""), source=known("TASKS.md"))
    )
    conventions = capped(
        "CONVENTIONS.md",
        [
            c
            for label in themed("CONVENTIONS.md")
            for c in parse_conventions(texts[label], source=label)
        ],
    )
    decisions = entries("DECISIONS.md", "decision")
    learnings = entries("LEARNINGS.md", "learning")
    steering = []
    for label, text in texts.items():
        top_level = label.lower() == ".context/steering.md"  # one steering file, as a file
        if label.startswith(f".context/{STEERING_FOLDER}/") or top_level:
            stem = label.rsplit("/", 1)[1][: -len(".md")]
            found = parse_steering(text, source=label, stem=stem, warnings=warnings)
            if found is not None:
                steering.append(found)
    # A file is listed when it has content, or entries read from inside a comment.
    sources = {e.source for e in (*decisions, *learnings)}

    def listed(label: str) -> bool:
        return label in sources or not is_effectively_empty(texts[label])

    read_order: list[str] = []
    for name in READ_ORDER:
        label = known(name)
        if label in texts and listed(label):
            read_order.append(label)
        folder = THEME_FOLDERS.get(name)
        if folder and any(listed(k) for k in themed(name) if k != label):
            read_order.append(f".context/{folder}/")
    for name, items, shape in (
        ("CONSTITUTION.md", rules, "checkbox rules (- [ ] …)"),
        ("TASKS.md", tasks, "checkbox tasks (- [ ] …)"),
    ):
        label = known(name)
        if not items and label in texts and not is_effectively_empty(texts[label]):
            warnings.append(
                f"{label}: no {shape}, the only shape ctx's layout reads: listed under Read "
                "These Files, nothing of it in the packet's sections"
            )
    if not (
        rules or tasks or ctx_shaped
    ):  # another layout: its own top-level files are the context too
        for label in sorted(texts):
            if label.count("/") == 1 and label.endswith(".md") and label not in read_order:
                if label in spelled.values() or is_effectively_empty(texts[label]):
                    continue
                read_order.append(label)
                warnings.append(
                    f"{label}: not one of ctx's own files: listed under Read These Files, its "
                    "sections not read into the packet"
                )
    else:  # ctx's layout: another top-level Markdown file is neither read nor listed: say so
        for label in sorted(texts):
            if label.count("/") == 1 and label.endswith(".md") and label not in read_order:
                if label in spelled.values() or is_effectively_empty(texts[label]):
                    continue
                if label[len(".context/") :] in READ_ORDER or label.lower().endswith(
                    "/steering.md"
                ):
                    continue
                warnings.append(
                    f"{label}: not one of ctx's own files ({', '.join(READ_ORDER)}): not read "
                    "into the packet"
                )
    not_read: dict[str, str] = {}
    for folder, count, more in unread_counts(context_dir, KNOWN_FOLDERS):
        files_text = unread_count_text(count, more)
        warnings.append(f"{folder}: {files_text} not read (not one of ctx's folders)")
        not_read[folder] = f"not read: {files_text} (not one of ctx's folders)"
    not_read.update(memory_beside(project, warnings))
    layout = LayoutReport(
        CTX_LAYOUT,
        ctx_layout_files(
            texts,
            rules_source=known("CONSTITUTION.md"),
            rules=len(rules),
            tasks=tasks,
            conventions=conventions,
            decisions=decisions,
            learnings=learnings,
            steering=steering,
            read_order=read_order,
            empty=is_effectively_empty,
            not_read=not_read,
        ),
    )

    settings = read_settings(project, warnings)
    return ProjectContext(
        root=project,
        context_dir=context_dir,
        rules=rules,
        tasks=tasks,
        conventions=conventions,
        decisions=decisions,
        learnings=learnings,
        steering=tuple(sorted(steering, key=lambda s: (s.priority, s.name, s.source))),
        read_order=tuple(read_order),
        settings=settings,
        warnings=tuple(warnings),
        texts=texts,
        layout=layout,
    )
