"""The packet engine's one cache policy.

Two kinds of memo, each bounded:

- per item of the loaded context (an entry's words, a task's text, an entry's cost): keyed by
  the item's identity, so bounded by the context itself — plain dicts owned by the object that
  owns the context (a new context gets a new assembler, see ``assembler_for``);
- per request shape (a keyword set, a day, a rule, a set of tasks): :class:`Memo`, least
  recently used dropped beyond ``maxsize`` — so a thousand different requests cost at most
  ``maxsize`` entries, never a thousand.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from cachetools import LRUCache

__all__ = ["Memo"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


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
