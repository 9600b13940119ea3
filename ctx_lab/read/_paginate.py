"""Cutting an extracted text stream into chunks of at most ``max_chars`` characters.

Text and HTML paginate by character offset; PDFs by whole pages (a page longer than a chunk is
split, and the position then carries page and offset). A chunk ends at a line break, or else at
whitespace, when there is one in the last tenth of the window. Walking the chunks from the
start yields every character exactly once, in order.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "PdfChunk",
    "TextChunk",
    "chunk_pdf",
    "chunk_starts",
    "chunk_text",
    "cut_point",
    "page_marker",
]


def cut_point(window: str, limit: int) -> int:
    """How many characters of ``window`` to take when at most ``limit`` may be taken and more
    text follows: after the last line break (else whitespace) in the last tenth, else ``limit``."""
    if len(window) <= limit:
        return len(window)
    tail_start = limit - max(limit // 10, 1)
    tail = window[tail_start:limit]
    newline = tail.rfind("\n")
    if newline != -1:
        return tail_start + newline + 1
    for i in range(len(tail) - 1, -1, -1):
        if tail[i].isspace():
            return tail_start + i + 1
    return limit


@dataclass(frozen=True)
class TextChunk:
    """A chunk of text and where the next one starts (None at the end)."""

    content: str
    start: int
    end: int
    next_offset: int | None


def chunk_text(text: str, offset: int, max_chars: int) -> TextChunk:
    """The chunk of ``text`` starting at ``offset``."""
    window = text[offset : offset + max_chars + 1]
    take = cut_point(window, max_chars)
    end = offset + take
    return TextChunk(text[offset:end], offset, end, end if end < len(text) else None)


def chunk_starts(text: str, max_chars: int) -> list[int]:
    """Where each chunk of ``text`` starts when read from the beginning (``[0]`` for no text)."""
    starts = [0]
    offset: int | None = chunk_text(text, 0, max_chars).next_offset
    while offset is not None:
        starts.append(offset)
        offset = chunk_text(text, offset, max_chars).next_offset
    return starts


def page_marker(page: int, total: int, continued: bool = False) -> str:
    """The line that introduces a page in a PDF chunk (1-based ``page``)."""
    more = ", continued" if continued else ""
    return f"[page {page} of {total}{more}]\n"


@dataclass(frozen=True)
class PdfChunk:
    """Whole pages (or part of one long page) and the position of the next chunk."""

    content: str
    page_start: int
    page_end: int
    next_position: tuple[int, int] | None


def chunk_pdf(pages: tuple[str, ...], page: int, offset: int, max_chars: int) -> PdfChunk:
    """The chunk starting at 0-based ``page``, character ``offset`` within it.

    Each page appears as its marker line, its text and one closing newline; markers count
    towards ``max_chars`` (windows too small for a marker get none) and stand at line starts:
    a page split mid-line continues without one, as does the closing newline of a page whose
    text the previous chunk took whole — so no chunk is only a marker. Removing the markers from
    all chunks in order gives every page's text followed by a newline, exactly once.
    """
    total = len(pages)
    longest_marker = len(page_marker(total, total, continued=True))
    markers = max_chars >= longest_marker + 2
    parts: list[str] = []
    used = 0
    p, o = page, offset
    while p < total:
        rest = pages[p][o:]
        # a continued page is marked only where a line starts and text is left (else the
        # marker would split a line, or stand alone before the page's closing newline)
        mid_line = o > 0 and (not rest or pages[p][o - 1] != "\n")
        marker = page_marker(p + 1, total, continued=o > 0) if markers and not mid_line else ""
        block = f"{marker}{rest}\n"
        if used + len(block) <= max_chars:
            parts.append(block)
            used += len(block)
            p, o = p + 1, 0
            continue
        if parts:
            break
        take = cut_point(rest, max_chars - len(marker))
        if take >= len(rest) > 1:  # leave text for the chunk that carries the closing newline
            take = cut_point(rest, len(rest) - 1)
        parts.append(marker + rest[:take])
        o += take  # the closing newline of this page comes with the next chunk
        break
    touched_end = p if o == 0 else p + 1
    next_position = (p, o) if p < total else None
    return PdfChunk("".join(parts), page + 1, max(touched_end, page + 1), next_position)
