"""Ranking a side's decisions or learnings for one set of scores: by score, newest first on
ties, then file order — as arrays of positions (a new keyword set on a large project keeps no
list of entries or numbers, which the garbage collector would walk on every pass), and the
suffix minimum of costs that lets filling stop early. Kept per set of scores."""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterator
from itertools import accumulate, compress
from operator import sub
from typing import cast

from ._cache import Memo
from ._draft import Side
from ._markdown import Entry
from ._prices import Prices

__all__ = ["NEAR", "NOTHING_FITS", "Ranking", "near_ties_rounded"]

NEAR = 1.5e-6  # values this close may round to the same six places (10⁻⁶, with a margin)
NOTHING_FITS = 2**62  # the cheapest cost past the last ranked entry: more than any budget


def near_ties_rounded(order: list[int], values: list[float]) -> list[int]:
    """``order`` (positions sorted by ``values``, highest first, ties in position order) as
    if sorted by the values rounded to six places: only values within 10⁻⁶ of their
    neighbour can round alike, so only runs of those are sorted again — rounding every value
    cost more than the whole ranking."""
    distinct = sorted(set(values))
    if len(distinct) < 2 or min(map(sub, distinct[1:], distinct)) > NEAR:
        return order  # no two values close enough (C-level loops: the usual case)
    ranked = list(map(values.__getitem__, order))
    near = [k for k, gap in enumerate(map(sub, ranked, ranked[1:])) if 0 < gap <= NEAR]
    done = -1
    for k in near:
        if k < done:
            continue  # inside a run already sorted
        start, end = k, k + 1
        while start > 0 and ranked[start - 1] - ranked[start] <= NEAR:
            start -= 1
        while end + 1 < len(ranked) and ranked[end] - ranked[end + 1] <= NEAR:
            end += 1
        run = order[start : end + 1]
        run.sort(key=lambda p: (-round(values[p], 6), p))
        order[start : end + 1] = run
        done = end
    return order


class Ranking:
    """The ranking half of :class:`~ctx_lab.packet._fitting.Fitter` (which sets the memos)."""

    prices: Prices
    _ranked: Memo[tuple[str, int, str], tuple[object, ...]]
    _by_date: dict[str, list[Entry]]
    _layout: dict[str, tuple[list[tuple[str, int]], list[int], list[int | None], list[bool]]]

    def rank(self, side: Side) -> list[Entry]:
        """The side's entries by score, newest first on ties, then file order — sorted once per
        set of scores (the scores themselves are kept per keyword set)."""
        known = self._ranked.get((side.name, id(side.scores), "ranked"))
        if known is not None and known[0] is side.scores:
            return known[1]  # type: ignore[return-value]
        by_date = self.by_date(side)
        ranked = list(map(by_date.__getitem__, self._order(side)))
        self._ranked[(side.name, id(side.scores), "ranked")] = (side.scores, ranked)
        return ranked

    def by_date(self, side: Side) -> list[Entry]:
        """The side's entries newest first, then in file order (made once per context)."""
        by_date = self._by_date.get(side.name)
        if by_date is None or len(by_date) != len(side.entries):

            def newest(e: Entry) -> tuple[float, int]:
                return (-e.timestamp.timestamp() if e.timestamp is not None else math.inf, e.index)

            by_date = self._by_date[side.name] = sorted(side.entries, key=newest)
        return by_date

    def _order(self, side: Side) -> array[int]:
        """The ranking as positions into :meth:`by_date` (an array: the hot path of a new
        keyword set keeps no list of entries or numbers, which the collector would walk)."""
        known = self._ranked.get((side.name, id(side.scores), "order"))
        if known is not None and known[0] is side.scores:
            return known[1]  # type: ignore[return-value]
        by_date = self.by_date(side)
        scores = side.scores
        keys, in_date_order, _, _ = self._side_layout(side, by_date)
        column = getattr(scores, "column", None)  # SideScores: the unrounded score column
        if column is not None:
            in_date = list(map(column.__getitem__, in_date_order))
            order = near_ties_rounded(
                sorted(range(len(by_date)), key=in_date.__getitem__, reverse=True), in_date
            )
        else:
            if list(scores) == keys:  # scores made in the entries' order: read them by position
                values = list(scores.values())
                in_date = [values[i].score for i in in_date_order]
            else:
                in_date = [scores[e.key].score for e in by_date]
            # positions sorted by score, highest first (a stable sort, also reversed: ties
            # stay newest first)
            order = sorted(range(len(by_date)), key=in_date.__getitem__, reverse=True)
        kept = array("i", order)  # C-level loops above, an array kept
        self._ranked[(side.name, id(side.scores), "order")] = (side.scores, kept)
        return kept

    def _side_layout(
        self, side: Side, by_date: list[Entry]
    ) -> tuple[list[tuple[str, int]], list[int], list[int | None], list[bool]]:
        """A side's entry keys in file order, its by-date order as positions in them, each
        by-date entry's cost in full (None: superseded) and whether it is not superseded —
        made once per context."""
        layout = self._layout.get(side.name)
        if layout is None or len(layout[0]) != len(side.entries):  # one context: its sides
            position = {e.key: i for i, e in enumerate(side.entries)}
            cost = self.prices.entry_cost
            costs = [None if e.superseded else cost(e) for e in by_date]
            layout = self._layout[side.name] = (
                [e.key for e in side.entries],
                [position[e.key] for e in by_date],
                costs,
                [c is not None for c in costs],
            )
        return layout

    def live(self, side: Side) -> tuple[array[int], array[int]]:
        """The ranked entries that are not superseded, as positions into :meth:`by_date`, and
        the suffix minimum of their costs (so filling stops as soon as nothing further down
        the ranking can fit; past the last, :data:`NOTHING_FITS`)."""
        known = self._ranked.get((side.name, id(side.scores), "live"))
        if known is not None and known[0] is side.scores:
            return known[1], known[2]  # type: ignore[return-value]
        order = self._order(side)
        _, _, costs_by_date, alive = self._side_layout(side, self.by_date(side))
        # lists made in C-level loops, kept as arrays (made from a list: faster than from
        # an iterator); kept entries are not superseded, so each has a cost
        positions = list(compress(order, map(alive.__getitem__, order)))
        costs = cast(Iterator[int], map(costs_by_date.__getitem__, reversed(positions)))
        suffix = array("q", list(accumulate(costs, min)))
        suffix.reverse()
        kept = array("i", positions)
        suffix.append(NOTHING_FITS)
        self._ranked[(side.name, id(side.scores), "live")] = (side.scores, kept, suffix)
        return kept, suffix
