"""Dated entries (decisions and learnings): ``## [YYYY-MM-DD-HHMMSS] Title`` and its body — the
stamps, placeholders, impossible dates, and entries the format's own ``add`` command files
inside the template's unclosed comment."""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from dataclasses import dataclass, field
from datetime import date, datetime
from itertools import accumulate

from ._text import (
    COMMENT as _COMMENT,
)
from ._text import (
    DIGIT_STAMP as _DIGIT_STAMP,
)
from ._text import (
    ENTRY_HEADER as _ENTRY_HEADER,
)
from ._text import (
    RULE_LINE as _RULE_LINE,
)
from ._text import (
    strip_comments,
)
from ._text import (
    where as _where,
)

__all__ = ["Entry", "parse_entries", "parse_stamp"]

_SUPERSEDED_STATUS = re.compile(r"^\*\*Status\*\*\s*:\s*Superseded\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Entry:
    """A dated decision or learning: ``## [YYYY-MM-DD-HHMMSS] Title`` and its body.

    ``text`` is the whole entry (header included, trailing blank lines and ``---`` removed):
    ``base[start:end]`` — ``base`` is the file's text, shared by its entries (or the entry's
    own text, ``end`` -1, where the file's text does not hold it as it is), so an entry's
    words are held once, in the file they came from; ``body`` is the part of it after the
    header (``text`` from ``body_at``, blank lines around it removed), read when asked;
    ``timestamp`` is None when the header's stamp is malformed (``stamp`` keeps the raw text).
    ``source`` is the file it came from (``.context/decisions/cli.md``); ``in_comment`` marks an
    entry read from inside an HTML comment.
    """

    kind: str
    title: str
    stamp: str
    timestamp: datetime | None
    base: str = field(repr=False)
    body_at: int
    line: int
    index: int
    superseded: bool = False
    source: str = ""
    in_comment: bool = False
    start: int = field(default=0, repr=False)
    end: int = field(default=-1, repr=False)

    @property
    def text(self) -> str:
        """The whole entry (see the class docstring)."""
        return self.base if self.end < 0 else self.base[self.start : self.end]

    @property
    def body(self) -> str:
        """The entry without its header line (see the class docstring)."""
        return self.text[self.body_at :].strip("\n")

    @property
    def key(self) -> tuple[str, int]:
        """``(source, line)``: unique among the entries of one context."""
        return self.source, self.line

    @property
    def has_time(self) -> bool:
        """Whether the header's stamp carries a time of day (``YYYY-MM-DD-HHMMSS``)."""
        found = _STAMP.fullmatch(self.stamp.strip())
        return self.timestamp is not None and found is not None and found.group(4) is not None

    @property
    def day(self) -> date | None:
        """The entry's local date."""
        return None if self.timestamp is None else self.timestamp.date()

    @property
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


_Header = tuple[int, "re.Match[str]", tuple[int, int, int] | None]


def _headers(
    text: str, raw: list[str], lines: list[str], source: str, problems: list[str]
) -> list[_Header]:
    """Every entry header: ``(line index, match, the HTML comment it is inside or None)``; a
    header inside a comment counts only when its stamp is a real date."""
    spans: list[tuple[int, int, int]] = []
    if "<!--" in text:
        spans = _comment_spans(text, _line_starts(text))
    span_starts = [first for first, _, _ in spans]
    headers: list[_Header] = []
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
    return headers


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
    stripped = strip_comments(text)
    # the lines as read, and without comments (the same list where there are none); an
    # entry whose lines no comment touched is a slice of ``text`` (line ``k`` starts at
    # ``starts[k]``), anything else keeps its own text
    lines = raw if stripped == text else stripped.split("\n")
    touched = (
        set()
        if lines is raw
        else {k for k, (a, b) in enumerate(zip(raw, lines, strict=True)) if a != b}
    )
    del stripped
    starts = array("q", accumulate(map(len, raw), lambda at, n: at + n + 1, initial=0))
    headers = _headers(text, raw, lines, source, problems)
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
        last_line = i + len(block) - 1
        sliced = block and (not touched or touched.isdisjoint(range(i, last_line + 1)))
        entries.append(
            Entry(
                kind=kind,
                title=m["title"] or "(untitled)",
                stamp=m["stamp"],
                timestamp=timestamp,
                base=text if sliced else "\n".join(block),
                start=starts[i] if sliced else 0,
                end=starts[last_line] + len(block[-1]) if sliced else -1,
                body_at=len(block[0]) + 1 if block else 0,
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
