"""Extractive summaries of prose: headings, the first paragraph of the document and of each
section, and key lines (must / never / always / TODO / FIXME / NOTE / WARNING / important)."""

from __future__ import annotations

import re

from ..packet import strip_comments

__all__ = ["KEY_LINE", "MAX_KEY_LINES", "reference", "summarize"]

KEY_LINE = re.compile(r"\b(must|never|always|todo|fixme|note|warning|important)\b", re.IGNORECASE)
MAX_KEY_LINES = 20
_ATX = re.compile(r"^\s{0,3}#{1,6}\s")
_UNDERLINE = re.compile(r"^\s*(=+|-+|~+|\^+)\s*$")
MAX_FALLBACK = 200
_VISIBLE = re.compile(r"\S")  # what str.strip() keeps: \s is str.isspace()


def _is_heading(lines: list[str], i: int) -> bool:
    line = lines[i]
    if _ATX.match(line):
        return True
    following = lines[i + 1] if i + 1 < len(lines) else ""
    return bool(line.strip()) and bool(_UNDERLINE.match(following)) and len(following.strip()) >= 3


def summarize(text: str) -> str:
    """The extractive summary (HTML comments are not content; no line twice); never empty
    for non-empty input."""
    lines = strip_comments(text.replace("\r\n", "\n")).split("\n")
    out: list[str] = []
    key_lines = 0
    need_paragraph = True  # the first paragraph of the document, then of each section
    in_paragraph = False
    in_fence = False
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            in_fence = not in_fence
            in_paragraph = False
            i += 1
            continue
        if not in_fence and _is_heading(lines, i):
            out.append(line.rstrip())
            if not _ATX.match(line):
                out.append(lines[i + 1].rstrip())
                i += 1
            need_paragraph, in_paragraph = True, False
            i += 1
            continue
        if not stripped:
            if in_paragraph:
                need_paragraph = False
            in_paragraph = False
            i += 1
            continue
        if need_paragraph and not in_fence:
            out.append(line.rstrip())
            in_paragraph = True
        elif KEY_LINE.search(stripped) and key_lines < MAX_KEY_LINES:
            out.append(line.rstrip())
            key_lines += 1
        i += 1
    seen: set[str] = set()
    unique = []
    for line in out:  # a line said twice is said once
        if line.strip() and line in seen:
            continue
        seen.add(line)
        unique.append(line)
    summary = "\n".join(unique).strip("\n")
    if not summary and text.strip():
        first = next(line.strip() for line in lines if line.strip())
        summary = first[:MAX_FALLBACK] + ("…" if len(first) > MAX_FALLBACK else "")
    return summary + "\n" if summary else ""


def reference(path: str, text: str, size: int | None = None, binary: bool = False) -> str:
    """``[ref: <path> (<bytes> bytes, <lines> lines)] <first non-empty line, cut to 120>``."""
    nbytes = size if size is not None else len(text.encode("utf-8", "surrogatepass"))
    nlines = 0 if binary else (text.count("\n") + (0 if text.endswith("\n") or not text else 1))
    first = "(binary)" if binary else _first_line(text)
    if len(first) > 120:
        first = first[:119] + "…"
    return f"[ref: {path} ({nbytes} bytes, {nlines} lines)] {first}".rstrip() + "\n"


def _first_line(text: str) -> str:
    """The first line with more than whitespace, stripped (found without splitting the text)."""
    found = _VISIBLE.search(text)
    if found is None:
        return ""
    start = text.rfind("\n", 0, found.start()) + 1
    end = text.find("\n", found.start())
    return text[start : None if end < 0 else end].strip()
