"""Reading one ``.context/`` directory into the parts of a project context, as named stages
over one small state object (:class:`_Loading`): the texts, how this project spells ctx's file
names, the sections (rules, tasks, conventions, decisions, learnings, steering), the read
order, what is neither read nor listed, and the layout report."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from ..files import decode_text, normalize_newlines, read_bytes
from ..limits import LIMITS
from ._agents import memory_beside
from ._folder import KNOWN_FOLDERS, READ_ORDER, STEERING_FOLDER, THEME_FOLDERS, label_of
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

__all__ = ["load_parts"]

T = TypeVar("T")


@dataclass
class _Loading:
    """What the stages share: the directory, every file's text by label, how the project
    spells ctx's own file names, and the warnings so far."""

    context_dir: Path
    texts: dict[str, str] = field(default_factory=dict)
    spelled: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    ctx_shaped: list[str] = field(default_factory=list)  # files with entries in ctx's shape

    def known(self, name: str) -> str:
        """The label of the known top-level file ``name`` as this project spells it."""
        return self.spelled.get(name, f".context/{name}")

    def themed(self, name: str) -> list[str]:
        """The labels of the top-level file ``name`` and its theme folder's files."""
        folder = THEME_FOLDERS.get(name)
        prefix = f".context/{folder}/" if folder else None
        top = [self.known(name)] if self.known(name) in self.texts else []
        return top + [k for k in self.texts if prefix and k.startswith(prefix)]

    def capped(self, name: str, items: list[T]) -> tuple[T, ...]:
        """``items``, at most the entries limit of them (the last), said in a warning."""
        rule = LIMITS["entries"]
        most = rule.value()
        if len(items) <= most:
            return tuple(items)
        self.warnings.append(
            f".context/{name}: {len(items):,} entries is over {rule.describe()}; "
            f"the last {most:,} were read"
        )
        return tuple(items[-most:])


def _read_texts(state: _Loading, files: list[Path], skipped: int) -> None:
    if skipped:
        state.warnings.append(
            f".context/: {skipped:,} files beyond {LIMITS['context_files'].describe()} "
            "were not read"
        )
    for file in files:
        label = label_of(state.context_dir, file)
        text = decode_text(read_bytes(file), label, state.warnings)
        state.texts[label] = normalize_newlines(text)


def _spellings(state: _Loading) -> None:
    """A known file however its name is cased (many projects write decisions.md); the exact
    spelling wins."""
    for label in state.texts:
        if label.count("/") != 1:
            continue
        for name in READ_ORDER:
            if label[len(".context/") :].lower() == name.lower():
                if f".context/{name}" in state.texts:
                    state.spelled[name] = f".context/{name}"
                else:
                    state.spelled.setdefault(name, label)


def _entries(state: _Loading, name: str, kind: str) -> tuple[Entry, ...]:
    """Decisions or learnings: ctx's shape, else another layout's (or a warning), per file."""
    found: list[Entry] = []
    for label in state.themed(name):
        text = state.texts[label]
        here = parse_entries(
            text, kind, source=label, warnings=state.warnings, start_index=len(found)
        )
        if here:
            state.ctx_shaped.append(label)
        elif not is_effectively_empty(text):
            here = other_layout(
                label,
                text,
                kind,
                len(found),
                THEME_FOLDERS[name],
                state.warnings,
                state.known(name),
            )
        found += here
    return state.capped(name, found)


@dataclass(frozen=True)
class _Sections:
    rules: tuple[Rule, ...]
    tasks: tuple[Task, ...]
    conventions: tuple[Convention, ...]
    decisions: tuple[Entry, ...]
    learnings: tuple[Entry, ...]
    steering: tuple[Steering, ...]


def _sections(state: _Loading) -> _Sections:
    """Each section, in the order ctx reads them (warnings keep that order)."""
    texts, known = state.texts, state.known
    rules = state.capped(
        "CONSTITUTION.md", parse_constitution(texts.get(known("CONSTITUTION.md"), ""))
    )
    tasks = state.capped(
        "TASKS.md", parse_tasks(texts.get(known("TASKS.md"), ""), source=known("TASKS.md"))
    )
    conventions = state.capped(
        "CONVENTIONS.md",
        [
            c
            for label in state.themed("CONVENTIONS.md")
            for c in parse_conventions(texts[label], source=label)
        ],
    )
    decisions = _entries(state, "DECISIONS.md", "decision")
    learnings = _entries(state, "LEARNINGS.md", "learning")
    steering = []
    for label, text in texts.items():
        top_level = label.lower() == ".context/steering.md"  # one steering file, as a file
        if label.startswith(f".context/{STEERING_FOLDER}/") or top_level:
            stem = label.rsplit("/", 1)[1][: -len(".md")]
            found = parse_steering(text, source=label, stem=stem, warnings=state.warnings)
            if found is not None:
                steering.append(found)
    return _Sections(
        rules=rules,
        tasks=tasks,
        conventions=conventions,
        decisions=decisions,
        learnings=learnings,
        steering=tuple(sorted(steering, key=lambda s: (s.priority, s.name, s.source))),
    )


def _read_order(state: _Loading, sections: _Sections) -> list[str]:
    """ctx's files in its order, a theme folder after its file; a file is listed when it has
    content, or entries read from inside a comment."""
    sources = {e.source for e in (*sections.decisions, *sections.learnings)}

    def listed(label: str) -> bool:
        return label in sources or not is_effectively_empty(state.texts[label])

    order: list[str] = []
    for name in READ_ORDER:
        label = state.known(name)
        if label in state.texts and listed(label):
            order.append(label)
        folder = THEME_FOLDERS.get(name)
        if folder and any(listed(k) for k in state.themed(name) if k != label):
            order.append(f".context/{folder}/")
    return order


def _shape_warnings(state: _Loading, sections: _Sections) -> None:
    """A constitution or task file with content but none of ctx's checkbox items."""
    for name, items, shape in (
        ("CONSTITUTION.md", sections.rules, "checkbox rules (- [ ] …)"),
        ("TASKS.md", sections.tasks, "checkbox tasks (- [ ] …)"),
    ):
        label = state.known(name)
        if not items and label in state.texts and not is_effectively_empty(state.texts[label]):
            state.warnings.append(
                f"{label}: no {shape}, the only shape ctx's layout reads: listed under Read "
                "These Files, nothing of it in the packet's sections"
            )


def _other_top_files(state: _Loading, sections: _Sections, order: list[str]) -> None:
    """Top-level Markdown that is not one of ctx's files: in another layout (nothing in ctx's
    shape) it is the context too, listed; in ctx's layout it is neither read nor listed — both
    said in a warning."""
    other_layout_here = not (sections.rules or sections.tasks or state.ctx_shaped)
    for label in sorted(state.texts):
        if label.count("/") != 1 or not label.endswith(".md") or label in order:
            continue
        if label in state.spelled.values() or is_effectively_empty(state.texts[label]):
            continue
        if other_layout_here:
            order.append(label)
            state.warnings.append(
                f"{label}: not one of ctx's own files: listed under Read These Files, its "
                "sections not read into the packet"
            )
        elif not (
            label[len(".context/") :] in READ_ORDER or label.lower().endswith("/steering.md")
        ):
            state.warnings.append(
                f"{label}: not one of ctx's own files ({', '.join(READ_ORDER)}): not read "
                "into the packet"
            )


def _layout(state: _Loading, sections: _Sections, order: list[str]) -> LayoutReport:
    """What each file became; folders ctx does not read and other agents' memory beside
    ``.context/`` are named in the report and in a warning."""
    not_read: dict[str, str] = {}
    for folder, count, more in unread_counts(state.context_dir, KNOWN_FOLDERS):
        files_text = unread_count_text(count, more)
        state.warnings.append(f"{folder}: {files_text} not read (not one of ctx's folders)")
        not_read[folder] = f"not read: {files_text} (not one of ctx's folders)"
    not_read.update(memory_beside(state.context_dir.parent, state.warnings))
    return LayoutReport(
        CTX_LAYOUT,
        ctx_layout_files(
            state.texts,
            rules_source=state.known("CONSTITUTION.md"),
            rules=len(sections.rules),
            tasks=sections.tasks,
            conventions=sections.conventions,
            decisions=sections.decisions,
            learnings=sections.learnings,
            steering=sections.steering,
            read_order=order,
            empty=is_effectively_empty,
            not_read=not_read,
        ),
    )


def load_parts(context_dir: Path, files: list[Path], skipped: int) -> dict[str, Any]:
    """The keyword arguments of a ``ProjectContext`` read from ``files`` of ``context_dir``
    (``skipped`` files beyond the limit are said in a warning), settings aside."""
    state = _Loading(context_dir)
    _read_texts(state, files, skipped)
    _spellings(state)
    sections = _sections(state)
    order = _read_order(state, sections)
    _shape_warnings(state, sections)
    _other_top_files(state, sections, order)
    layout = _layout(state, sections, order)
    return {
        "root": context_dir.parent,
        "context_dir": context_dir,
        "rules": sections.rules,
        "tasks": sections.tasks,
        "conventions": sections.conventions,
        "decisions": sections.decisions,
        "learnings": sections.learnings,
        "steering": sections.steering,
        "read_order": tuple(order),
        "texts": state.texts,
        "layout": layout,
        "warnings": state.warnings,
    }
