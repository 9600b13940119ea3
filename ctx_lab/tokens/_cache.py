"""Counting the same texts again costs nothing: a memo of one counter's counts by text."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ._counters import CounterLike, TokenCounter
from ._lookup import get_counter

__all__ = ["CountingCache"]


class CountingCache:
    """Token counts of one counter, memoized by the exact text (so re-assembling a packet or
    re-degrading a block at another budget counts only what is new)."""

    def __init__(self, counter: CounterLike) -> None:
        self.counter: TokenCounter = get_counter(counter)
        self._counts: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self._counts)

    def count(self, text: str) -> int:
        """Tokens of ``text`` (counted once, then remembered)."""
        found = self._counts.get(text)
        if found is None:
            found = self._counts[text] = self.counter.count(text)
        return found

    def prime(self, texts: Iterable[str]) -> None:
        """Count the texts not seen yet in one batch (the counter's ``count_many``)."""
        missing = list(dict.fromkeys(t for t in texts if t not in self._counts))
        if missing:
            self._counts.update(zip(missing, self.counter.count_many(missing), strict=True))

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """Counts of ``texts`` in order, batching the unseen ones."""
        self.prime(texts)
        return [self._counts[t] for t in texts]

    def total(self, texts: Iterable[str]) -> int:
        """The sum of the counts of ``texts``."""
        listed = list(texts)
        return sum(self.count_many(listed))
