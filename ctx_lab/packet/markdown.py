"""Parsing the Markdown files of a ``.context/`` directory into rules, tasks, conventions and
dated entries. Pure functions over text; no file access.

Everything inside an HTML comment is not content (a comment that never closes runs to the end
of the file). Lines keep their numbers so warnings can point at them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, datetime
from functools import cached_property

__all__ = [
    "Convention",
    "Entry",
    "Rule",
    "Task",
    "is_effectively_empty",
    "parse_constitution",
    "parse_conventions",
    "parse_entries",
    "parse_tasks",
    "strip_comments",
]

_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_HEADING = re.compile(r"^\s{0,3}#{1,6}(?:\s|$)")
_RULE_LINE = re.compile(r"^\s*([-*_])(?:\s*\1){2,}\s*$")
_CHECKBOX = re.compile(r"^(?P<indent>\s*)[-*+]\s*\[(?P<mark>[ xX-]?)\]\s*(?P<text>.*)$")
_BULLET = re.compile(r"^(?P<indent>\s*)[-*+]\s+(?P<text>.*)$")
_ENTRY_HEADER = re.compile(r"^##\s+\[(?P<stamp>[^\]]*)\]\s*(?P<title>.*?)\s*$")
_TAG = re.compile(r"(?<!\S)#(?P<name>[A-Za-z][\w-]*)(?::(?P<value>\S+))?(?!\S)")
_HEADING_TAG = re.compile(r"`?#[A-Za-z][\w-]*(?::[^\s`]+)?`?")
_SUPERSEDED_STATUS = re.compile(r"^\*\*Status\*\*\s*:\s*Superseded\b", re.IGNORECASE)


def strip_comments(text: str) -> str:
    """Remove every ``<!-- … -->`` (an unclosed one runs to the end), keeping line breaks."""
    return _COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)


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

    @property
    def title(self) -> str:
        """The first line of the convention."""
        return self.text.split("\n", 1)[0]


@dataclass(frozen=True)
class Entry:
    """A dated decision or learning: ``## [YYYY-MM-DD-HHMMSS] Title`` and its body.

    ``text`` is the whole entry (header included, trailing blank lines and ``---`` removed);
    ``timestamp`` is None when the header's stamp is malformed (``stamp`` keeps the raw text).
    """

    kind: str
    title: str
    stamp: str
    timestamp: datetime | None
    text: str
    body: str
    line: int
    index: int
    superseded: bool = False

    @cached_property
    def day(self) -> date | None:
        """The entry's local date."""
        return None if self.timestamp is None else self.timestamp.date()

    @cached_property
    def day_text(self) -> str | None:
        """The entry's local date as ``YYYY-MM-DD`` (None when undated)."""
        return None if self.day is None else self.day.isoformat()


_STAMP = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})(?:-(\d{2})(\d{2})(\d{2}))?")


def parse_stamp(stamp: str) -> datetime | None:
    """``YYYY-MM-DD-HHMMSS`` (or ``YYYY-MM-DD``) as a naive local datetime; None if malformed."""
    match = _STAMP.fullmatch(stamp.strip())
    if match is None:
        return None
    year, month, day, hour, minute, second = (int(g) if g else 0 for g in match.groups())
    try:
        return datetime(year, month, day, hour, minute, second)
    except ValueError:  # a day or time that does not exist
        return None


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


def parse_tasks(text: str) -> list[Task]:
    """Every checkbox item is a task; nesting by indentation gives depth and parent."""
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
        more, _ = _continuations(lines, number - 1, indent)
        raw = " ".join([m["text"].strip(), *more])
        clean, tags = _parse_tags(raw)
        added = parse_stamp(tags["added"]) if tags.get("added") else None
        parent = stack[-1][1] if stack else None
        tasks.append(
            Task(clean, _STATUS[m["mark"]], number, len(stack), parent, heading, tags, added)
        )
        stack.append((indent, number))
    return tasks


def parse_conventions(text: str) -> list[Convention]:
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
                conventions.append(Convention(body, start, section))

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


def parse_entries(text: str, kind: str) -> list[Entry]:
    """Entries start at ``## [stamp] Title`` and run to the next header (not inside comments)."""
    lines = strip_comments(text).split("\n")
    headers = [(i, m) for i, line in enumerate(lines) if (m := _ENTRY_HEADER.match(line))]
    entries = []
    for n, (i, m) in enumerate(headers):
        end = headers[n + 1][0] if n + 1 < len(headers) else len(lines)
        block = lines[i:end]
        while block and (not block[-1].strip() or _RULE_LINE.match(block[-1])):
            block.pop()
        body_lines = block[1:]
        superseded = any(
            line.strip().startswith("~~Superseded") or _SUPERSEDED_STATUS.match(line.strip())
            for line in body_lines
        )
        title = m["title"] or "(untitled)"
        entries.append(
            Entry(
                kind=kind,
                title=title,
                stamp=m["stamp"],
                timestamp=parse_stamp(m["stamp"]),
                text="\n".join(block),
                body="\n".join(body_lines).strip("\n"),
                line=i + 1,
                index=n,
                superseded=superseded,
            )
        )
    return entries
