"""The line index of one text: start offsets in an ``array('q')`` (8 bytes a line), so a
page costs only its slice."""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import accumulate

__all__ = ["LineIndex"]


@dataclass
class LineIndex:
    """Start offsets of every line of one text, so slicing costs only the slice."""

    text: str
    starts: Sequence[int] = field(default_factory=lambda: array("q"))

    @classmethod
    def build(cls, text: str) -> LineIndex:
        """Index ``text`` (a trailing newline does not start an extra line); 8 bytes a line."""
        if not text:
            return cls(text, array("q"))
        lengths = [len(line) + 1 for line in text.split("\n")]
        starts = array("q", [0])
        starts.extend(accumulate(lengths[:-1]))
        if text.endswith("\n"):
            starts.pop()  # the empty piece after the last newline is no line
        return cls(text, starts)

    @property
    def total(self) -> int:
        """Number of lines."""
        return len(self.starts)

    def slice(self, start: int, end: int) -> str:
        """Lines ``start``…``end`` (1-based, inclusive) joined by newlines, no trailing one."""
        begin = self.starts[start - 1]
        stop = self.starts[end] - 1 if end < self.total else len(self.text)
        if end == self.total and self.text.endswith("\n"):
            stop -= 1
        return self.text[begin:stop]

    def line_at(self, offset: int) -> int:
        """The 1-based line holding character ``offset``."""
        return bisect.bisect_right(self.starts, offset)
