"""The packet engine's one cache policy.

Two kinds of memo, each bounded:

- per item of the loaded context (an entry's words, a task's text, an entry's cost): keyed by
  the item's identity, so bounded by the context itself — plain dicts owned by the object that
  owns the context (a new context gets a new assembler, see ``assembler_for``);
- per request shape (a keyword set, a day, a rule, a set of tasks): :class:`Memo`, least
  recently used dropped beyond ``maxsize`` — so a thousand different requests cost at most
  ``maxsize`` entries, never a thousand;
- per term set, a vector over the entries that sums each term's share (match counts, BM25
  scores): :func:`nearest`, which starts from the kept vector of the nearest set and adds and
  removes the terms that differ — a slider or a focus box changes a few terms at a time. The
  shares are integers, so the sum is the same whatever the path to it.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar, cast

from cachetools import LRUCache

__all__ = ["Memo", "nearest"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
Vector = TypeVar("Vector", list[int], "array[int]")


class Memo(LRUCache[K, V], Generic[K, V]):
    """A bounded memo: :meth:`get_or_make` computes a value once per key while it stays."""

    def __init__(self, maxsize: int) -> None:
        super().__init__(maxsize=maxsize)

    def get_or_make(self, key: K, make: Callable[[K], V]) -> V:
        """The value for ``key``, made by ``make(key)`` when absent."""
        try:
            return self[key]
        except KeyError:
            value = make(key)
            self[key] = value
            return value


def nearest(
    known: Memo[frozenset[str], Vector],
    wanted: frozenset[str],
    size: int,
    shift: Callable[[Vector, str, int], None],
    typecode: str | None = None,
) -> Vector:
    """The vector (of ``size`` integers) for the term set ``wanted``: kept, or made from the
    kept vector whose set is nearest — ``shift(vector, term, 1)`` adds a term's share,
    ``shift(vector, term, -1)`` removes it — or from zeros when that is nearer. ``typecode``:
    the vector is an :class:`array` of that type (the collector never walks one), else a
    list (integers of any size)."""
    found = known.get(wanted)
    if found is not None:
        return found
    base: frozenset[str] = frozenset()
    start: Vector | None = None
    distance = len(wanted)  # from zeros
    for terms, vector in known.items():
        if len(terms ^ wanted) < distance:
            base, start, distance = terms, vector, len(terms ^ wanted)
    if typecode is None:
        made = cast(Vector, list(start) if start is not None else [0] * size)
    else:
        zeros = bytes(size * array(typecode).itemsize)
        made = cast(Vector, array(typecode, start if start is not None else zeros))
    for term in base - wanted:
        shift(made, term, -1)
    for term in wanted - base:
        shift(made, term, 1)
    known[wanted] = made
    return made
