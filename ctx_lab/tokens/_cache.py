"""Counting the same texts again costs nothing: a memo of one counter's counts by text."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ._counters import CounterLike, TokenCounter
from ._lookup import get_counter

__all__ = ["CountingCache"]


class CountingCache:
    """Token counts of one counter, memoized by the exact text (so re-assembling a packet or
    re-degrading a block at another budget counts only what is new). A counter whose count
    takes constant time (``constant_time``, such as ``chars/3``) is called directly instead.

    Bounded: counts live in two generations; when the young one holds :attr:`MAX_ENTRIES`
    texts or :attr:`MAX_CHARS` characters it becomes the old one and the old one is dropped,
    so a long-lived cache (a server's assembler, whose rendered packets carry a timestamp)
    never holds more than twice that, and texts still in use are promoted back."""

    MAX_ENTRIES = 50_000
    MAX_CHARS = 32 * 1024 * 1024

    def __init__(self, counter: CounterLike) -> None:
        self.counter: TokenCounter = get_counter(counter)
        self._counts: dict[str, int] = {}
        self._old: dict[str, int] = {}
        self._chars = 0
        if getattr(self.counter, "constant_time", False):  # counted from the length alone
            self.count = self.counter.count  # type: ignore[method-assign]

    def __len__(self) -> int:
        return len(self._counts) + len(self._old)

    def _store(self, text: str, tokens: int) -> None:
        if len(self._counts) >= self.MAX_ENTRIES or self._chars >= self.MAX_CHARS:
            self._old, self._counts, self._chars = self._counts, {}, 0
        self._counts[text] = tokens
        self._chars += len(text)

    def _known(self, text: str) -> int | None:
        found = self._counts.get(text)
        if found is None:
            found = self._old.get(text)
            if found is not None:
                self._store(text, found)
        return found

    def count(self, text: str) -> int:
        """Tokens of ``text`` (counted once, then remembered)."""
        found = self._counts.get(text)
        if found is not None:
            return found
        found = self._known(text)
        if found is None:
            found = self.counter.count(text)
            self._store(text, found)
        return found

    def prime(self, texts: Iterable[str]) -> None:
        """Count the texts not seen yet in one batch (the counter's ``count_many``)."""
        missing = list(dict.fromkeys(t for t in texts if self._known(t) is None))
        if missing:
            for text, tokens in zip(missing, self.counter.count_many(missing), strict=True):
                self._store(text, tokens)

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """Counts of ``texts`` in order, batching the unseen ones."""
        self.prime(texts)
        # a text primed above is only missing again if storing the batch rotated it out
        return [found if (found := self._known(t)) is not None else self.count(t) for t in texts]

    def total(self, texts: Iterable[str]) -> int:
        """The sum of the counts of ``texts``."""
        listed = list(texts)
        return sum(self.count_many(listed))
