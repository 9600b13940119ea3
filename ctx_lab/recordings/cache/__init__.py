"""The one prompt-cache engine and what it reports on a recorded session: every call's predicted
read, write and fresh input against the reported ones, each miss with its cause, priced."""

from __future__ import annotations

from ._cache import hidden_prefix, recorded_requests, seconds, simulate_cache
from ._cache_engine import CAUSES, CacheEngine, CacheOutcome, CacheRequest, Reading, Request
from ._cache_engine import CAUSES as CACHE_CAUSES
from ._cache_report import CacheReport, plot_cache
from ._cache_sizes import HIDDEN, REATTACHED, THINKING, counted_sizes

__all__ = [
    "CACHE_CAUSES",
    "CAUSES",
    "HIDDEN",
    "REATTACHED",
    "THINKING",
    "CacheEngine",
    "CacheOutcome",
    "CacheReport",
    "CacheRequest",
    "Reading",
    "Request",
    "counted_sizes",
    "hidden_prefix",
    "plot_cache",
    "recorded_requests",
    "seconds",
    "simulate_cache",
]
