"""Parsing the Markdown files of a ``.context/`` directory into rules, tasks, conventions,
dated entries and steering files. Pure functions over text; no file access.

Everything inside an HTML comment is not content (a comment that never closes runs to the end
of the file) — except dated entries: the format's own ``add`` command files new entries inside
the template's unclosed legend comment, so an entry header with a real date inside a comment is
read (``in_comment``) and warned about. Lines keep their numbers so warnings point at them;
every problem a parser notices is appended to its ``warnings`` list as ``file:line: message``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime

from ._dated import Entry, parse_entries, parse_stamp
from ._steering import STEERING_PLACEHOLDER, Steering, front_matter, parse_steering
from ._text import (
    RULE_LINE as _RULE_LINE,
)
from ._text import (
    strip_comments,
)

_HEADING = re.compile(r"^\s{0,3}#{1,6}(?:\s|$)")
_CHECKBOX = re.compile(r"^(?P<indent>\s*)[-*+]\s*\[(?P<mark>[ xX-]?)\]:?\s*(?P<text>.*)$")
_BULLET = re.compile(r"^(?P<indent>\s*)[-*+]\s+(?P<text>.*)$")
_TAG = re.compile(r"(?<!\S)#(?P<name>[A-Za-z][\w-]*)(?::(?P<value>\S+))?(?!\S)")
_HEADING_TAG = re.compile(r"`?#[A-Za-z][\w-]*(?::[^\s`]+)?`?")
_TAGS_ONLY = re.compile(r"^(?:`?#[A-Za-z][\w-]*(?::\S+?)?`?\s*)+$")

__all__ = [
    "STEERING_PLACEHOLDER",
    "Convention",
    "Entry",
    "Rule",
    "Steering",
    "Task",
    "front_matter",
    "is_effectively_empty",
    "parse_constitution",
    "parse_conventions",
    "parse_entries",
    "parse_stamp",
    "parse_steering",
    "parse_tasks",
    "strip_comments",
]


def _indent(prefix: str) -> int:
    return len(prefix.expandtabs(4))


def is_effectively_empty(text: str) -> bool:
    """ctx's test: under 20 bytes, or only blank lines, headings, short rules and comments."""
    if len(text.encode("utf-8")) < 20:
        return True
    for line in strip_comments(text).split("\n"):
        stripped = line.strip()
        if stripped and not _HEADING.match(line) and not _RULE_LINE.match(line):
            return False
    return True


@dataclass(frozen=True)
class Rule:
    """One constitution rule: a checkbox item (checked or not), continuation lines joined."""

    text: str
    line: int
    section: str = ""


@dataclass(frozen=True)
class Task:
    """One task item of TASKS.md; nested subtasks are tasks of their own (``parent`` is its line).

    ``status`` is ``pending``, ``done`` or ``skipped``. Tags (``#added:…``, ``#priority:…``,
    ``#in-progress``, ``#blocked`` …) are parsed into ``tags`` and removed from ``text``.
    """

    text: str
    status: str
    line: int
    depth: int = 0
    parent: int | None = None
    section: str = ""
    tags: dict[str, str] = field(default_factory=dict)
    added: datetime | None = None
    source: str = ""

    @property
    def in_progress(self) -> bool:
        """Tagged ``#in-progress`` (or ``#started``)."""
        return "in-progress" in self.tags or "started" in self.tags

    @property
    def blocked(self) -> bool:
        """Tagged ``#blocked`` or listed under a heading named Blocked."""
        return "blocked" in self.tags or self.section.strip().lower() == "blocked"

    @property
    def priority(self) -> str | None:
        """The ``#priority:`` value, if any."""
        return self.tags.get("priority")


@dataclass(frozen=True)
class Convention:
    """One top-level convention bullet with its nested bullets and continuation lines."""

    text: str
    line: int
    section: str = ""
    source: str = ""

    @property
    def title(self) -> str:
        """The first line of the convention."""
        return self.text.split("\n", 1)[0]


def _parse_tags(text: str) -> tuple[str, dict[str, str]]:
    tags: dict[str, str] = {}
    for m in _TAG.finditer(text):
        tags.setdefault(m["name"].lower(), m["value"] or "")
    clean = " ".join(_TAG.sub(" ", text).split())
    return clean, tags


def _sections(lines: list[str]) -> Iterator[tuple[int, str, str]]:
    """Yield (line number, line, current heading text) for each line."""
    heading = ""
    for number, line in enumerate(lines, start=1):
        if _HEADING.match(line):
            heading = _HEADING_TAG.sub("", line.strip().lstrip("#")).strip()
        yield number, line, heading


def _continuations(lines: list[str], start: int, indent: int) -> tuple[list[str], int]:
    """Lines after ``start`` (0-based) indented deeper than ``indent`` and not list items."""
    taken: list[str] = []
    i = start + 1
    while i < len(lines):
        line = lines[i]
        if not line.strip() or _HEADING.match(line):
            break
        if _indent(line[: len(line) - len(line.lstrip())]) <= indent:
            break
        if _CHECKBOX.match(line) or _BULLET.match(line):
            break
        taken.append(line.strip())
        i += 1
    return taken, i


def parse_constitution(text: str) -> list[Rule]:
    """Every checkbox item is a rule; indented continuation lines join it."""
    lines = strip_comments(text).split("\n")
    rules = []
    for number, line, heading in _sections(lines):
        m = _CHECKBOX.match(line)
        if not m:
            continue
        more, _ = _continuations(lines, number - 1, _indent(m["indent"]))
        body = " ".join([m["text"].strip(), *more]).strip()
        if body:
            rules.append(Rule(body, number, heading))
    return rules


_STATUS = {"": "pending", " ": "pending", "x": "done", "X": "done", "-": "skipped"}


def _task_continuation(lines: list[str], start: int, indent: int) -> list[str]:
    """The text that belongs to the task item at ``start`` (0-based): deeper-indented lines and
    nested plain bullets (also after blank lines), lazy continuation lines right after it, and
    a line of tags only — up to the next checkbox item or heading."""
    taken: list[str] = []
    after_blank = False
    for line in lines[start + 1 :]:
        text = line.strip()
        if not text:
            after_blank = True
            continue
        if _HEADING.match(line) or _CHECKBOX.match(line):
            break
        bullet = _BULLET.match(line)
        if _indent(line[: len(line) - len(line.lstrip())]) > indent:
            taken.append(bullet["text"].strip() if bullet else text)
        elif _TAGS_ONLY.match(text):
            taken.append(text)
        elif not after_blank and not bullet and not _RULE_LINE.match(line):
            taken.append(text)  # a lazy continuation line of the item's paragraph
        else:
            break
        after_blank = False
    return taken


def parse_tasks(text: str, *, source: str = "") -> list[Task]:
    """Every checkbox item (``- [ ]``, ``* [ ]``, ``- [ ]:`` …) is a task; nesting by
    indentation gives depth and parent. Text continued after a blank line or in nested plain
    bullets, and its tags, belong to the task."""
    lines = strip_comments(text).split("\n")
    tasks: list[Task] = []
    stack: list[tuple[int, int]] = []  # (indent, line) of open parents
    for number, line, heading in _sections(lines):
        if _HEADING.match(line):
            stack.clear()
            continue
        m = _CHECKBOX.match(line)
        if not m:
            continue
        indent = _indent(m["indent"])
        while stack and stack[-1][0] >= indent:
            stack.pop()
        more = _task_continuation(lines, number - 1, indent)
        raw = " ".join([m["text"].strip(), *more])
        clean, tags = _parse_tags(raw)
        added = parse_stamp(tags["added"]) if tags.get("added") else None
        parent = stack[-1][1] if stack else None
        tasks.append(
            Task(
                text=clean,
                status=_STATUS[m["mark"]],
                line=number,
                depth=len(stack),
                parent=parent,
                section=heading,
                tags=tags,
                added=added,
                source=source,
            )
        )
        stack.append((indent, number))
    return tasks


def parse_conventions(text: str, *, source: str = "") -> list[Convention]:
    """Each top-level bullet is a convention; deeper lines until the next one belong to it."""
    lines = strip_comments(text).split("\n")
    conventions: list[Convention] = []
    current: list[str] | None = None
    start = 0
    section = ""
    base = 0

    def close() -> None:
        if current:
            body = "\n".join(current).rstrip()
            if body.strip():
                conventions.append(Convention(body, start, section, source))

    for number, line, heading in _sections(lines):
        if _HEADING.match(line):
            close()
            current, section = None, heading
            continue
        m = _BULLET.match(line)
        if m and (current is None or _indent(m["indent"]) <= base):
            close()
            base, start, section = _indent(m["indent"]), number, heading
            current = [m["text"].strip()]
        elif current is not None and line.strip():
            depth = _indent(line[: len(line) - len(line.lstrip())])
            if depth > base:
                current.append(" " * (depth - base) + line.strip())
            else:
                close()
                current = None
        elif current is not None and not line.strip():
            close()
            current = None
    close()
    return conventions
