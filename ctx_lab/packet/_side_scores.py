"""One side's scores as columns: what a new keyword set costs is a list of floats, not an
:class:`EntryScore` per entry — the ranking reads the score column, and an entry's whole
score is made when something (a ledger row, a fate's reason) asks for it."""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Iterator, Mapping, Sequence

from ._markdown import Entry
from ._scoring import Age, EntryScore, score_with

__all__ = ["Locator", "SideScores"]

Key = tuple[str, int]


class Locator:
    """Where each entry key of one side is: its position in the side's entries. Entries of
    one file sit together in line order, so a key is found by its file and a binary search
    of that file's lines (arrays: a dict of 100k key tuples held 13 MB); a side laid out
    otherwise is looked up in a dict."""

    __slots__ = ("_files", "_keys", "entries")

    def __init__(self, entries: Sequence[Entry]) -> None:
        self.entries = entries
        self._files: dict[str, tuple[int, array[int]]] | None = {}
        self._keys: dict[Key, int] | None = None
        for i, e in enumerate(entries):
            found = self._files.get(e.source)
            if found is None:
                self._files[e.source] = (i, array("i", [e.line]))
                continue
            first, lines = found
            if first + len(lines) != i or lines[-1] >= e.line:  # not together, or not in order
                self._files = None
                self._keys = {e.key: i for i, e in enumerate(entries)}
                break
            lines.append(e.line)

    def get(self, key: Key) -> int | None:
        """The position of the entry with ``key``, or None."""
        if self._keys is not None:
            return self._keys.get(key)
        assert self._files is not None
        found = self._files.get(key[0])
        if found is None:
            return None
        first, lines = found
        at = bisect_left(lines, key[1])
        return first + at if at < len(lines) and lines[at] == key[1] else None


class SideScores(Mapping[Key, EntryScore]):
    """Entry key → :class:`EntryScore` for one side, read from columns.

    ``at`` finds each key's entry among the side's entries (``at.entries``, in file order);
    ``relevance`` and ``column`` (each entry's relevance and score before rounding to six
    places, superseded entries 0) are indexed by position; ``ages`` by position among all
    the context's entries, where this side starts at ``offset``.
    """

    __slots__ = ("_ages", "_at", "_offset", "_relevance", "column")

    def __init__(
        self,
        at: Locator,
        ages: Sequence[Age],
        offset: int,
        relevance: Sequence[float],
        column: Sequence[float],
    ) -> None:
        self._at = at
        self._ages = ages
        self._offset = offset
        self._relevance = relevance
        self.column = column  # the ranking reads this directly

    def __getitem__(self, key: Key) -> EntryScore:
        i = self._at.get(key)
        if i is None:
            raise KeyError(key)
        # the scoring rule itself (the column holds the same sum, for the ranking)
        superseded = self._at.entries[i].superseded
        return score_with(self._ages[self._offset + i], (), superseded, self._relevance[i])

    def __iter__(self) -> Iterator[Key]:
        return (e.key for e in self._at.entries)

    def __len__(self) -> int:
        return len(self._at.entries)
