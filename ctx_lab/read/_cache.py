"""A short-lived in-memory cache of extracted documents: TTL + LRU, bounded by entries and
total size, thread-safe, with an injectable clock."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from cachetools import TTLCache

if TYPE_CHECKING:
    from ._extract import Document

__all__ = ["DocumentCache"]


class DocumentCache:
    """Extracted documents by URI. An entry lives ``ttl`` seconds; the least recently used
    entries go first when there are more than ``max_entries`` or more than ``max_bytes``."""

    def __init__(
        self,
        ttl: float = 300.0,
        max_entries: int = 50,
        max_bytes: int = 20 * 1024 * 1024,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_entries = max_entries
        self._cache: TTLCache[str, Document] = TTLCache(
            maxsize=max_bytes, ttl=ttl, timer=clock, getsizeof=lambda doc: max(doc.size, 1)
        )
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, uri: str) -> Document | None:
        """The live entry for ``uri`` (refreshing its LRU position), or None."""
        with self._lock:
            doc = self._cache.get(uri)
            if doc is None:
                self.misses += 1
            else:
                self.hits += 1
            return doc

    def put(self, uri: str, doc: Document) -> None:
        """Store ``doc``; a document larger than the whole cache is simply not kept."""
        with self._lock:
            if doc.size > self._cache.maxsize:
                self._cache.pop(uri, None)
                return
            self._cache[uri] = doc
            while len(self._cache) > self.max_entries:
                self._cache.popitem()

    def __len__(self) -> int:
        with self._lock:
            self._cache.expire()
            return len(self._cache)

    @property
    def total_bytes(self) -> int:
        """Size of what is cached now."""
        with self._lock:
            self._cache.expire()
            return int(self._cache.currsize)
