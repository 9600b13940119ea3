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
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, datetime
from functools import cached_property
from typing import Any

import yaml

from ..validate import shown

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

_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_HEADING = re.compile(r"^\s{0,3}#{1,6}(?:\s|$)")
_RULE_LINE = re.compile(r"^\s*([-*_])(?:\s*\1){2,}\s*$")
_CHECKBOX = re.compile(r"^(?P<indent>\s*)[-*+]\s*\[(?P<mark>[ xX-]?)\]:?\s*(?P<text>.*)$")
_BULLET = re.compile(r"^(?P<indent>\s*)[-*+]\s+(?P<text>.*)$")
_ENTRY_HEADER = re.compile(r"^##\s+\[(?P<stamp>[^\]]*)\]\s*(?P<title>.*?)\s*$")
_TAG = re.compile(r"(?<!\S)#(?P<name>[A-Za-z][\w-]*)(?::(?P<value>\S+))?(?!\S)")
_HEADING_TAG = re.compile(r"`?#[A-Za-z][\w-]*(?::[^\s`]+)?`?")
_SUPERSEDED_STATUS = re.compile(r"^\*\*Status\*\*\s*:\s*Superseded\b", re.IGNORECASE)
_TAGS_ONLY = re.compile(r"^(?:`?#[A-Za-z][\w-]*(?::\S+?)?`?\s*)+$")
_DIGIT_STAMP = re.compile(r"\d{4}-\d{1,2}-\d{1,2}(?:-\d{6})?")


def _where(source: str, line: int) -> str:
    return f"{source}:{line}" if source else f"line {line}"


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


@dataclass(frozen=True)
class Entry:
    """A dated decision or learning: ``## [YYYY-MM-DD-HHMMSS] Title`` and its body.

    ``text`` is the whole entry (header included, trailing blank lines and ``---`` removed);
    ``timestamp`` is None when the header's stamp is malformed (``stamp`` keeps the raw text).
    ``source`` is the file it came from (``.context/decisions/cli.md``); ``in_comment`` marks an
    entry read from inside an HTML comment.
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
    source: str = ""
    in_comment: bool = False

    @property
    def key(self) -> tuple[str, int]:
        """``(source, line)``: unique among the entries of one context."""
        return self.source, self.line

    @property
    def has_time(self) -> bool:
        """Whether the header's stamp carries a time of day (``YYYY-MM-DD-HHMMSS``)."""
        found = _STAMP.fullmatch(self.stamp.strip())
        return self.timestamp is not None and found is not None and found.group(4) is not None

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
                clean,
                _STATUS[m["mark"]],
                number,
                len(stack),
                parent,
                heading,
                tags,
                added,
                source,
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


_PLACEHOLDER_STAMP = re.compile(r"[YMDHS]{2,4}(?:-[YMDHS]{2,6})*", re.IGNORECASE)


def _line_starts(text: str) -> list[int]:
    starts = [0]
    starts.extend(m.end() for m in re.finditer("\n", text))
    return starts


def _comment_spans(text: str, starts: list[int]) -> list[tuple[int, int, int]]:
    """Each comment as ``(first line, last line, column after its -->)`` (0-based lines; the
    column is None-like ``-1`` when it never closes)."""
    spans = []
    for m in _COMMENT.finditer(text):
        first = bisect_right(starts, m.start()) - 1
        closed = m.group(0).endswith("-->")
        last = bisect_right(starts, max(m.end() - 1, m.start())) - 1
        column = m.end() - starts[last] - 3 if closed else -1
        spans.append((first, last, column))
    return spans


_DATE_PREFIX = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})[-_ T]")


def _date_prefix(stamp: str) -> datetime | None:
    """The date a stamp such as ``2026-07-06-a`` starts with (None when there is none)."""
    match = _DATE_PREFIX.match(stamp.strip())
    if match is None:
        return None
    year, month, day = (int(g) for g in match.groups())
    try:
        return datetime(year, month, day)
    except ValueError:
        return None


def _stamp_problem(stamp: str) -> str | None:
    """Why a header's stamp gives no date: ``impossible`` (digits, but no such day or time),
    ``placeholder`` (``YYYY-MM-DD``), ``malformed``; None when it parses."""
    if parse_stamp(stamp) is not None:
        return None
    if _DIGIT_STAMP.fullmatch(stamp.strip()):
        return "impossible"
    if _PLACEHOLDER_STAMP.fullmatch(stamp.strip()):
        return "placeholder"
    return "malformed"


def parse_entries(
    text: str,
    kind: str,
    *,
    source: str = "",
    warnings: list[str] | None = None,
    start_index: int = 0,
) -> list[Entry]:
    """Entries start at ``## [stamp] Title`` and run to the next header.

    Headers inside an HTML comment count only when their stamp is a real date: those entries
    are read (``in_comment``, ending where the comment closes) and warned about; placeholder
    headers (``## [YYYY-MM-DD] Title``) are never entries. A header whose date does not exist
    (``2026-13-45``) keeps its entry, undated, with a warning.
    """
    problems = warnings if warnings is not None else []
    raw = text.split("\n")
    lines = strip_comments(text).split("\n")
    spans: list[tuple[int, int, int]] = []
    if "<!--" in text:
        spans = _comment_spans(text, _line_starts(text))
    span_starts = [first for first, _, _ in spans]
    headers: list[tuple[int, re.Match[str], tuple[int, int, int] | None]] = []
    for i, line in enumerate(lines):
        m = _ENTRY_HEADER.match(line)
        if m is not None:
            headers.append((i, m, None))
            continue
        if spans and not line.strip() and raw[i].startswith("##"):
            c = _ENTRY_HEADER.match(raw[i])
            if c is None:
                continue
            span = spans[bisect_right(span_starts, i) - 1]
            problem = _stamp_problem(c["stamp"])
            if problem is None:
                headers.append((i, c, span))
            elif problem == "impossible":
                problems.append(
                    f"{_where(source, i + 1)}: entry header inside an HTML comment has an "
                    f"impossible date [{c['stamp']}]: ignored"
                )
    entries: list[Entry] = []
    in_comment: dict[tuple[int, int, int], list[int]] = {}
    for n, (i, m, where) in enumerate(headers):
        end = headers[n + 1][0] if n + 1 < len(headers) else len(lines)
        if where is None:
            problem = _stamp_problem(m["stamp"])
            timestamp = parse_stamp(m["stamp"])
            if problem == "placeholder":
                problems.append(
                    f"{_where(source, i + 1)}: placeholder header [{m['stamp']}] ignored"
                )
                continue
            if problem == "malformed" and (timestamp := _date_prefix(m["stamp"])) is not None:
                problems.append(
                    f"{_where(source, i + 1)}: stamp [{m['stamp']}] has more than a date: "
                    f"read as {timestamp.date().isoformat()} (no time)"
                )
            elif problem is not None:
                problems.append(
                    f"{_where(source, i + 1)}: {problem} date [{m['stamp']}] in the header of "
                    f"{m['title'] or '(untitled)'!r}: scored as undated"
                )
            block = lines[i:end]
        else:
            timestamp = parse_stamp(m["stamp"])
            first, last, column = where
            cut = column >= 0 and last < end
            block = [*raw[i:last], raw[last][:column]] if cut else raw[i:end]
            in_comment.setdefault(where, []).append(i + 1)
        while block and (not block[-1].strip() or _RULE_LINE.match(block[-1])):
            block.pop()
        body_lines = block[1:]
        superseded = any(
            line.strip().startswith("~~Superseded") or _SUPERSEDED_STATUS.match(line.strip())
            for line in body_lines
        )
        entries.append(
            Entry(
                kind=kind,
                title=m["title"] or "(untitled)",
                stamp=m["stamp"],
                timestamp=timestamp,
                text="\n".join(block),
                body="\n".join(body_lines).strip("\n"),
                line=i + 1,
                index=start_index + len(entries),
                superseded=superseded,
                source=source,
                in_comment=where is not None,
            )
        )
    for (first, last, _), numbers in in_comment.items():
        count = f"{len(numbers)} {kind}{'' if len(numbers) == 1 else 's'}"
        problems.append(
            f"{_where(source, numbers[0])}: {count} inside an HTML comment (lines "
            f"{first + 1}–{last + 1}) read anyway; move them below the comment's closing -->"
        )
    return entries


STEERING_PLACEHOLDER = "<!-- remove this after you edit the steering file !-->"
_STEERING_PLACEHOLDER = re.compile(
    r"<!--\s*remove this after you edit the steering file\s*!?\s*-->", re.IGNORECASE
)
INCLUSIONS = ("always", "auto", "manual")
DEFAULT_STEERING_PRIORITY = 50


@dataclass(frozen=True)
class Steering:
    """A steering file of ``.context/steering/``: behavioural rules and when they apply.

    ``inclusion`` is ``always`` (every packet), ``auto`` (when a keyword of ``description`` is
    among the packet's focus or task keywords) or ``manual`` (only when named); lower
    ``priority`` goes first. ``body`` is the Markdown after the front matter, comments removed.
    """

    name: str
    description: str
    inclusion: str
    priority: int
    body: str
    source: str
    line: int
    tools: tuple[str, ...] = ()

    @property
    def title(self) -> str:
        """The file's name (front matter ``name``)."""
        return self.name


def front_matter(lines: list[str]) -> tuple[list[str], int] | None:
    """A file's ``---`` front matter: its lines and the 0-based index of the first body line
    (None when the file has none)."""
    if not lines or lines[0].strip() != "---":
        return None
    for i in range(1, len(lines)):
        if lines[i].strip() in ("---", "..."):
            return lines[1:i], i + 1
    return None


def parse_steering(
    text: str, *, source: str = "", stem: str = "", warnings: list[str] | None = None
) -> Steering | None:
    """A steering file: YAML front matter (``name``, ``description``, ``inclusion``,
    ``priority``, ``tools``) and a body. None when the body still holds the scaffold's
    placeholder marker or is empty (with a warning). Front-matter problems fall back to the
    defaults (name = file stem, ``always``, priority 50) with a warning each."""
    problems = warnings if warnings is not None else []
    lines = text.split("\n")
    found = front_matter(lines)
    data: Any = {}
    body_start = 0
    if found is None:
        problems.append(
            f"{_where(source, 1)}: no front matter (--- name/description/inclusion ---): "
            f"read as inclusion always, priority {DEFAULT_STEERING_PRIORITY}"
        )
    else:
        matter, body_start = found
        try:
            data = yaml.safe_load("\n".join(matter)) or {}
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line = 2 + (mark.line if mark is not None else 0)
            problems.append(
                f"{_where(source, line)}: front matter is not valid YAML: defaults used"
            )
            data = {}
        if not isinstance(data, dict):
            problems.append(f"{_where(source, 2)}: front matter is not a mapping: defaults used")
            data = {}

    def field_text(key: str, default: str) -> str:
        value = data.get(key, default)
        if value is None:
            return default
        if not isinstance(value, str | int | float) or isinstance(value, bool):
            problems.append(f"{_where(source, 2)}: front matter {key} is not text: ignored")
            return default
        return str(value).strip()

    name = field_text("name", stem) or stem
    description = field_text("description", "")
    inclusion = field_text("inclusion", "always").lower()
    if inclusion not in INCLUSIONS:
        problems.append(
            f"{_where(source, 2)}: inclusion {inclusion!r} is not one of "
            f"{', '.join(INCLUSIONS)}: read as manual (included only when named)"
        )
        inclusion = "manual"
    priority = data.get("priority", DEFAULT_STEERING_PRIORITY)
    if isinstance(priority, bool) or not isinstance(priority, int):
        problems.append(
            f"{_where(source, 2)}: priority {shown(priority)} is not an integer: "
            f"{DEFAULT_STEERING_PRIORITY} used"
        )
        priority = DEFAULT_STEERING_PRIORITY
    tools_value = data.get("tools") or ()
    tools = (
        tuple(str(t) for t in tools_value if isinstance(t, str))
        if isinstance(tools_value, list)
        else ()
    )
    body_text = "\n".join(lines[body_start:])
    if _STEERING_PLACEHOLDER.search(body_text):
        problems.append(
            f"{_where(source, body_start + 1)}: still holds the scaffold's placeholder "
            f"{STEERING_PLACEHOLDER}: skipped until it is edited"
        )
        return None
    body_lines = strip_comments(body_text).split("\n")
    first = 0
    while first < len(body_lines) and not body_lines[first].strip():
        first += 1
    body = "\n".join(body_lines[first:]).strip()
    if not body:
        problems.append(f"{_where(source, body_start + 1)}: empty body: skipped")
        return None
    return Steering(
        name, description, inclusion, priority, body, source, body_start + first + 1, tools
    )
