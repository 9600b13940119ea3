"""One side's scores as columns: what a new keyword set costs is a list of floats, not an
:class:`EntryScore` per entry — the ranking reads the score column, and an entry's whole
score is made when something (a ledger row, a fate's reason) asks for it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from ._markdown import Entry
from ._scoring import Age, EntryScore

__all__ = ["SideScores"]

Key = tuple[str, int]


class SideScores(Mapping[Key, EntryScore]):
    """Entry key → :class:`EntryScore` for one side, read from columns.

    ``at`` maps each key to its entry's position in ``entries`` (the side's entries in file
    order; a repeated key maps to its last entry, as a dict built in that order would);
    ``relevance`` and ``column`` (each entry's relevance and score before rounding to six
    places, superseded entries 0) are indexed by position; ``ages`` by entry identity.
    """

    __slots__ = ("_ages", "_at", "_entries", "_relevance", "column")

    def __init__(
        self,
        entries: Sequence[Entry],
        at: dict[Key, int],
        ages: dict[int, Age],
        relevance: Sequence[float],
        column: Sequence[float],
    ) -> None:
        self._entries = entries
        self._at = at
        self._ages = ages
        self._relevance = relevance
        self.column = column  # the ranking reads this directly

    def __getitem__(self, key: Key) -> EntryScore:
        i = self._at[key]
        e = self._entries[i]
        days, recency, note = self._ages[id(e)]
        if e.superseded:
            return EntryScore(days, recency, self._relevance[i], (), 0.0, "superseded")
        score = round(self.column[i], 6)
        return EntryScore(days, recency, self._relevance[i], (), score, note)

    def __iter__(self) -> Iterator[Key]:
        return iter(self._at)

    def __len__(self) -> int:
        return len(self._at)
