"""Decisions and learnings written in the layouts other projects use, read as entries.

Seen in public repositories' ``.context/`` folders (not ctx's ``## [YYYY-MM-DD] Title``):

- **numbered headers** in one file — ``## D001 — Title`` (certs-lol's DECISIONS.md, its
  GOTCHAS ``## G01 — …``), ``## ADR-001: Title`` (agentbench), ``### ADR-7: Title``; the date,
  when there is one, on a ``**Date:** 2026-05-14`` / ``Date: …`` / ``- Date: …`` line;
- **dated headers without ctx's brackets** — ``## 2026-07-21 — Title`` (a second-brain
  project's DECISIONS.md), ``## 2026-04-24 [ci,workflow]`` (memtext's decisions.md: the tags
  stand where the title is, so the first line of the body titles the entry);
- **one record per file** in ``decisions/`` — ``ADR-0007-replaceable-adapters.md`` with
  ``# ADR-0007: Title`` and ``- Status: Accepted`` / ``- Date: 2026-07-18`` lines (uc-rust), or
  MADR's front matter (``status:``, ``date:``, ``title:``).

An entry without a full ``YYYY-MM-DD`` date is undated (its ``stamp`` empty): it is ranked by
relevance alone, and the ledger says so. ``Status: Superseded…`` marks it superseded.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from datetime import date, datetime
from pathlib import Path

from ..files import entry_kind
from ._markdown import Entry, front_matter, parse_stamp
from ._steering import matter_data

__all__ = [
    "level_two_headers",
    "other_layout",
    "parse_dated_entries",
    "parse_numbered_entries",
    "parse_record",
    "unread_count_text",
    "unread_counts",
    "unread_names",
]

# ``## D001 — Title``, ``## ADR-001: Title``, ``### ADR-7: Title``, ``## G01 - Title``
_NUMBERED = re.compile(
    r"^(?P<level>#{2,3})\s+(?P<id>[A-Z]{1,6}[-_ ]?\d{1,5}[a-z]?)\s*(?:[—–:.|]|-(?=\s))\s*"
    r"(?P<title>\S.*?)\s*$"
)
_HEADING = re.compile(r"^(?P<level>#{1,6})\s")
_DATED = re.compile(
    r"^(?P<level>#{2,3})\s+(?P<date>\d{4}-\d{2}(?:-\d{2})?)(?:[ T]\d{1,2}:\d{2}(?::\d{2})?)?"
    r"\s*(?:[—–:|]|-(?=\s))?\s*(?P<title>.*?)\s*$"
)
_TAG_LIST = re.compile(r"^\[[^\]]*\]$")
_LEVEL_TWO = re.compile(r"^##[ \t]", re.MULTILINE)
_FIELD = re.compile(
    r"^\s*(?:[-*+]\s+)?(?:\*\*|__)?(?P<key>date|status|title)(?:\*\*|__)?\s*:\s*(?:\*\*|__)?"
    r"\s*(?P<value>.*?)\s*$",
    re.IGNORECASE,
)
_FULL_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_TITLE = re.compile(r"^#\s+(?P<title>\S.*?)\s*#*\s*$")
_FIELD_LINES = 30  # a record's metadata sits near its top


def level_two_headers(text: str) -> int:
    """How many level-2 headings ``text`` has."""
    return len(_LEVEL_TWO.findall(text))


def _dated(value: str) -> tuple[str, datetime | None]:
    found = _FULL_DATE.search(value)
    if found is None:  # a month alone (``### 2026-06 — Title``) is not a date: undated
        return "", None
    stamp = found.group(0)
    return (stamp, parse_stamp(stamp)) if parse_stamp(stamp) is not None else ("", None)


def _fields(lines: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for line in lines[:_FIELD_LINES]:
        m = _FIELD.match(line)
        if m is not None and m["value"]:
            found.setdefault(m["key"].lower(), m["value"].strip("*_ "))
    return found


def _superseded(status: str) -> bool:
    return status.lower().startswith("superseded")


def _headed(text: str, header: re.Pattern[str]) -> Iterator[tuple[int, re.Match[str], list[str]]]:
    """``(line index, header match, block)`` for each header: the block runs to the next such
    header or the next heading of its level or above (trailing blanks and rules dropped)."""
    lines = text.split("\n")
    starts = [(i, m) for i, line in enumerate(lines) if (m := header.match(line)) is not None]
    headed = {i for i, _ in starts}
    for i, m in starts:
        level = len(m["level"])
        end = next(
            (
                j
                for j in range(i + 1, len(lines))
                if j in headed
                or ((h := _HEADING.match(lines[j])) is not None and len(h["level"]) <= level)
            ),
            len(lines),
        )
        block = lines[i:end]
        while block and (not block[-1].strip() or block[-1].strip() == "---"):
            block.pop()
        yield i, m, block


def _entry(
    kind: str, title: str, date_text: str, block: list[str], line: int, index: int, source: str
) -> Entry:
    body = block[1:]
    stamp, timestamp = _dated(date_text)
    return Entry(
        kind=kind,
        title=title,
        stamp=stamp,
        timestamp=timestamp,
        base="\n".join(block),
        body_at=len(block[0]) + 1 if block else 0,
        line=line + 1,
        index=index,
        superseded=_superseded(_fields(body).get("status", "")),
        source=source,
    )


def parse_dated_entries(
    text: str, kind: str, *, source: str = "", start_index: int = 0
) -> list[Entry]:
    """Entries under dated headers without ctx's brackets (``## 2026-07-21 — Title``); each
    runs to the next dated header or heading of its level or above."""
    entries: list[Entry] = []
    for i, m, block in _headed(text, _DATED):
        title = m["title"]
        if not title or _TAG_LIST.match(title):  # tags where the title would be
            first = next(
                (line.strip().lstrip("-*• ").strip() for line in block[1:] if line.strip()), ""
            )
            title = (first[:100] + "…") if len(first) > 100 else first or m["date"]
        entries.append(_entry(kind, title, m["date"], block, i, start_index + len(entries), source))
    return entries


def parse_numbered_entries(
    text: str, kind: str, *, source: str = "", start_index: int = 0
) -> list[Entry]:
    """Entries under numbered headers (``## D001 — Title``); each runs to the next numbered
    header or the next heading of its level or above."""
    entries: list[Entry] = []
    for i, m, block in _headed(text, _NUMBERED):
        date_text = _fields(block[1:]).get("date", "")
        title = f"{m['id']} — {m['title']}"
        entries.append(_entry(kind, title, date_text, block, i, start_index + len(entries), source))
    return entries


def parse_record(
    text: str, kind: str, *, source: str = "", stem: str = "", index: int = 0
) -> Entry | None:
    """A whole file as one entry (an ADR or MADR record): title from front matter or the
    first ``# `` heading (else the file name), date and status from front matter or the
    ``Date:``/``Status:`` lines near the top. None when the file has no text."""
    lines = text.split("\n")
    meta: dict[str, str] = {}
    body_start = 0
    found = front_matter(lines)
    if found is not None:
        matter, body_start = found
        data = matter_data(matter)[0]
        if isinstance(data, dict):
            for key in ("title", "status", "date"):
                value = data.get(key)
                if isinstance(value, datetime | date):
                    meta[key] = value.isoformat()
                elif isinstance(value, str | int | float) and not isinstance(value, bool):
                    meta[key] = str(value).strip()
    body = lines[body_start:]
    while body and not body[-1].strip():
        body.pop()
    if not any(line.strip() for line in body):
        return None
    title_line = next(
        ((i, m) for i, line in enumerate(body) if (m := _TITLE.match(line)) is not None), None
    )
    for key, value in _fields(body).items():
        meta.setdefault(key, value)
    title = meta.get("title") or (title_line[1]["title"] if title_line else "") or stem
    stamp, timestamp = _dated(meta.get("date", ""))
    first = title_line[0] if title_line else 0
    return Entry(
        kind=kind,
        title=title,
        stamp=stamp,
        timestamp=timestamp,
        base="\n".join(body[first:]).strip("\n"),
        body_at=len(body[first]) + 1 if title_line else 0,
        line=body_start + first + 1,
        index=index,
        superseded=_superseded(meta.get("status", "")),
        source=source,
    )


_RECORD_SKIP = ("readme", "index", "template")  # a records folder's own furniture
_FOLDER_SCAN = 1000  # files looked at per folder when counting what is not read


def _unread_walk(context_dir: Path, known: set[str]) -> Iterator[tuple[Path, Path, list[str]]]:
    """``(folder, here, files)`` for each folder of ``.context/`` that ctx's layout does not
    read, up to :data:`_FOLDER_SCAN` files per folder (symlinked folders are not followed)."""
    try:
        folders = sorted(p for p in context_dir.iterdir() if entry_kind(p) == "dir")
    except OSError:
        return
    for folder in folders:
        if folder.name in known or folder.name.startswith("."):
            continue
        seen = 0
        for here, _, files in os.walk(folder):
            yield folder, Path(here), files
            seen += len(files)
            if seen >= _FOLDER_SCAN:  # a huge folder: looked at up to here
                break


def unread_names(context_dir: Path, known: set[str]) -> list[str]:
    """The files of the folders :func:`unread_counts` counts, as ``.context/…`` labels (as
    many as it looks at): what a copy of ``.context/`` needs for the same warnings."""
    return [
        ".context/" + (here / name).relative_to(context_dir).as_posix()
        for _, here, files in _unread_walk(context_dir, known)
        for name in files
    ]


def unread_counts(context_dir: Path, known: set[str]) -> list[tuple[str, int, bool]]:
    """``(".context/folder/", Markdown files, more)`` for each folder of ``.context/`` that
    ctx's layout does not read but that holds Markdown (``more``: the folder was larger than
    the files looked at)."""
    seen: dict[Path, int] = {}
    markdown: dict[Path, int] = {}
    for folder, _, files in _unread_walk(context_dir, known):
        seen[folder] = seen.get(folder, 0) + len(files)
        markdown[folder] = markdown.get(folder, 0) + sum(1 for n in files if n.endswith(".md"))
    return [
        (f".context/{folder.name}/", count, seen[folder] >= _FOLDER_SCAN)
        for folder, count in markdown.items()
        if count
    ]


def unread_count_text(count: int, more: bool) -> str:
    """``3+ Markdown files``."""
    return f"{count}{'+' if more else ''} Markdown file{'s' if count > 1 else ''}"


def other_layout(
    label: str, text: str, kind: str, index: int, folder: str, warnings: list[str], top: str
) -> list[Entry]:
    """The entries of a file with none in ctx's shape: numbered headers, else (in a theme
    folder) the file as one record; else a warning naming the file and what was expected."""
    for parse in (parse_dated_entries, parse_numbered_entries):
        found = parse(text, kind, source=label, start_index=index)
        if found:
            return found
    stem = label.rsplit("/", 1)[1].rsplit(".", 1)[0]
    if label != top:  # in decisions/ or learnings/: one record per file
        if any(word in stem.lower() for word in _RECORD_SKIP):
            return []
        record = parse_record(text, kind, source=label, stem=stem, index=index)
        return [record] if record is not None else []
    headers = level_two_headers(text)
    if headers:
        warnings.append(
            f"{label}: {headers} level-2 headers but no {kind}s: expected ctx's "
            "`## [YYYY-MM-DD] Title`, dated (`## 2026-07-21 — Title`) or numbered headers "
            f"(`## D001 — Title`, `## ADR-001: Title`) or one record per file in "
            f".context/{folder}/"
        )
    return []
