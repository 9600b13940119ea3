"""The line index of one text: start offsets in an ``array('q')`` (8 bytes a line), so a
page costs only its slice. The text is a ``str``, or the file's UTF-8 bytes (a file is then held
once, as read, and only the page asked for is decoded)."""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import accumulate, islice

__all__ = ["LineIndex"]

_CHUNK = 1 << 20  # lines are found a chunk at a time: never a list of every line at once


def _line_starts(text: str | bytes, first: int = 0) -> array[int]:
    """Where each line starts (``first``: where the text's first line starts); a trailing
    newline starts no extra line. The array is sized once (the newlines counted first), so
    it is never copied while it grows."""
    n = len(text)
    if first >= n:
        return array("q")
    newline = b"\n" if isinstance(text, bytes) else "\n"
    lines = text.count(newline, first) + 1  # type: ignore[arg-type]
    starts = array("q", [0]) * lines
    filled = 1
    starts[0] = first
    position = first
    while position < n:
        end = min(position + _CHUNK, n)
        pieces = text[position:end].split(newline)  # type: ignore[arg-type]
        # a newline after each piece but the last: the next line starts right after it
        found = array(
            "q", islice(accumulate((len(p) + 1 for p in pieces[:-1]), initial=position), 1, None)
        )
        starts[filled : filled + len(found)] = found
        filled += len(found)
        position = end
    if starts[filled - 1] == n:
        filled -= 1  # the empty piece after the last newline is no line
    del starts[filled:]
    return starts


@dataclass
class LineIndex:
    """Start offsets of every line of one text, so slicing costs only the slice."""

    text: str | bytes
    starts: Sequence[int] = field(default_factory=lambda: array("q"))

    @classmethod
    def build(cls, text: str) -> LineIndex:
        """Index ``text`` (a trailing newline does not start an extra line); 8 bytes a line."""
        return cls(text, _line_starts(text))

    @classmethod
    def of_bytes(cls, data: bytes, first: int = 0) -> LineIndex:
        """Index UTF-8 ``data`` with LF line breaks (``first``: where the text starts, past a
        byte-order mark); pages are decoded when sliced (bad bytes replaced)."""
        return cls(data, _line_starts(data, first))

    @property
    def total(self) -> int:
        """Number of lines."""
        return len(self.starts)

    def slice(self, start: int, end: int) -> str:
        """Lines ``start``…``end`` (1-based, inclusive) joined by newlines, no trailing one."""
        text = self.text
        begin = self.starts[start - 1]
        stop = self.starts[end] - 1 if end < self.total else len(text)
        if end == self.total and text.endswith(b"\n" if isinstance(text, bytes) else "\n"):  # type: ignore[arg-type]
            stop -= 1
        piece = text[begin:stop]
        return piece.decode("utf-8", errors="replace") if isinstance(piece, bytes) else piece

    def line_at(self, offset: int) -> int:
        """The 1-based line holding ``offset`` (a character, or a byte of indexed bytes)."""
        return bisect.bisect_right(self.starts, offset)
