"""The packet's Markdown layout, written once: every line and heading the packet renders, and
the same functions the assembler prices drafts with — so what is costed is what is printed.
(The lab renderers get the section titles from the generated ``labextension/src/generated.ts``.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ._markdown import Task

__all__ = [
    "INSTRUCTION",
    "SECTION_LABELS",
    "SECTION_TIERS",
    "SECTION_TITLES",
    "convention_line",
    "counted_line",
    "counted_text",
    "entry_block",
    "header_text",
    "instruction_block",
    "noted_line",
    "read_order_line",
    "render_parts",
    "rule_line",
    "section_heading",
    "steering_block",
    "task_line",
    "task_text",
]


class _Noted(Protocol):
    @property
    def section(self) -> str: ...

    @property
    def title(self) -> str: ...


INSTRUCTION = (
    "Before starting work, confirm to the user: "
    '"I have read the required context files and I\'m following project conventions."'
)

SECTION_TITLES = {
    "read_order": "Read These Files",
    "constitution": "Constitution (NEVER VIOLATE)",
    "tasks": "Current Tasks",
    "conventions": "Key Conventions",
    "steering": "Steering",
    "decisions": "Recent Decisions",
    "learnings": "Key Learnings",
    "also_noted": "Also Noted",
}
# the same sections as a display names them (the lab's renderers, widgets)
SECTION_LABELS = {**SECTION_TITLES, "constitution": "Constitution"}
SECTION_TIERS = {
    "header": 1,
    "read_order": 1,
    "constitution": 1,
    "instruction": 1,
    "tasks": 2,
    "conventions": 3,
    "steering": 3,
    "decisions": 4,
    "learnings": 5,
}
_COUNTED_NOUNS = {
    "tasks": ("pending task", "pending tasks", "TASKS.md"),
    "conventions": ("convention", "conventions", "CONVENTIONS.md"),
    "steering": ("steering file", "steering files", ".context/steering/"),
    "decisions": ("decision", "decisions", "DECISIONS.md"),
    "learnings": ("learning", "learnings", "LEARNINGS.md"),
}


def counted_line(section: str, n: int) -> str:
    """The one line that stands for ``n`` items left out of a section."""
    singular, plural, file = _COUNTED_NOUNS[section]
    return f"- …and {n} more {singular if n == 1 else plural} in {file}"


def counted_text(section: str, n: int) -> str:
    """:func:`counted_line` as a line of the packet."""
    return counted_line(section, n) + "\n"


def section_heading(key: str) -> str:
    """The heading that opens section ``key``."""
    return f"\n## {SECTION_TITLES[key]}\n"


def header_text(generated: str, budget: int, used: int | None, counter: str) -> str:
    """The packet's first lines; ``used`` is its own token count (None: not stated yet)."""
    stated = f"{used} tokens ({counter})" if used is not None else f"≤ {budget} tokens ({counter})"
    return f"# Context Packet\nGenerated: {generated} | Budget: {budget} tokens | Used: {stated}\n"


def read_order_line(number: int, path: str) -> str:
    """One file of Read These Files."""
    return f"{number}. {path}\n"


def rule_line(rule: str) -> str:
    """One rule of the constitution."""
    return f"- {rule}\n"


def task_text(task: Task) -> str:
    """A pending task as the packet shows it (indented by depth, with its state)."""
    notes = []
    if task.in_progress:
        notes.append("in progress")
    if task.blocked and "blocked" not in task.text.lower():
        notes.append("blocked")
    if task.priority:
        notes.append(f"priority {task.priority}")
    suffix = f" ({', '.join(notes)})" if notes else ""
    return f"{'  ' * task.depth}- [ ] {task.text}{suffix}"


def task_line(text: str) -> str:
    """A task (as :func:`task_text` wrote it) as a line of the packet."""
    return f"{text}\n"


def convention_line(text: str) -> str:
    """One convention."""
    return f"- {text}\n"


def entry_block(text: str) -> str:
    """A decision or learning shown in full."""
    return f"\n{text}\n"


def steering_block(name: str, body: str) -> str:
    """A steering file shown whole, under its name."""
    return f"\n### {name}\n\n{body}\n"


def noted_line(title: str) -> str:
    """An entry shown by its title under Also Noted."""
    return f"- {title}\n"


def instruction_block(instruction: str = INSTRUCTION) -> str:
    """The closing instruction."""
    return f"\n{instruction}\n"


def render_parts(
    *,
    generated: str,
    budget: int,
    used: int | None,
    counter: str,
    read_order: tuple[str, ...],
    constitution: tuple[str, ...],
    tasks: tuple[str, ...],
    conventions: tuple[str, ...],
    decisions: tuple[str, ...],
    learnings: tuple[str, ...],
    summaries: Sequence[_Noted],
    counted: dict[str, int],
    instruction: str = INSTRUCTION,
    steering: Sequence[tuple[str, str]] = (),
) -> list[tuple[str, str]]:
    """The packet's Markdown as ``(section, text)`` parts; joined they are the packet.

    ``used`` is the packet's own token count stated in its header (None: not stated). Counted
    lines appear for sections whose ``counted`` value is positive.
    """
    parts = [("header", header_text(generated, budget, used, counter))]

    def section(key: str, lines: list[str], owner: str | None = None) -> None:
        if not lines:
            return
        parts.append((owner or key, section_heading(key)))
        parts.extend((owner or key, line) for line in lines)

    section("read_order", [read_order_line(i, path) for i, path in enumerate(read_order, 1)])
    if not read_order:  # the section is always printed, even with no files
        parts.append(("read_order", section_heading("read_order")))
    section("constitution", [rule_line(rule) for rule in constitution])
    task_lines = [task_line(t) for t in tasks]
    if counted.get("tasks"):
        task_lines.append(counted_text("tasks", counted["tasks"]))
    section("tasks", task_lines)
    convention_lines = [convention_line(c) for c in conventions]
    if counted.get("conventions"):
        convention_lines.append(counted_text("conventions", counted["conventions"]))
    section("conventions", convention_lines)
    steering_lines = [steering_block(name, body) for name, body in steering]
    if counted.get("steering"):
        steering_lines.append(counted_text("steering", counted["steering"]))
    section("steering", steering_lines)
    section("decisions", [entry_block(text) for text in decisions])
    section("learnings", [entry_block(text) for text in learnings])
    noted: list[tuple[str, str]] = []
    for side in ("decisions", "learnings"):
        noted += [(side, noted_line(s.title)) for s in summaries if s.section == side]
        if counted.get(side):
            noted.append((side, counted_text(side, counted[side])))
    if noted:
        parts.append((noted[0][0], section_heading("also_noted")))
        parts.extend(noted)
    parts.append(("instruction", instruction_block(instruction)))
    return parts
