"""What a request's anatomy counts with and prices by: each counter's counts by text, kept for
the whole process (a session's calls repeat the call before), and the input's price by the
cache's one pricing."""

from __future__ import annotations

from typing import Any

from ..models import cache_prices
from ..tokens import CountingCache, get_counter

__all__ = ["counting_cache", "input_cost"]


# Each counter's counts by text, shared by every request taken apart in this process: a session's
# calls repeat almost all of the call before (its system prompt, tools and history), so walking
# one counts each text once. Bounded by CountingCache's two generations.
_COUNTS: dict[str, CountingCache] = {}


_COUNTED_CHARS = 8 * 1024 * 1024  # a generation's texts: a long session's recent calls


def counting_cache(name: str) -> CountingCache:
    """The counts by text of counter ``name``, shared by every request of this process."""
    found = _COUNTS.get(name)
    if found is None:
        found = _COUNTS[name] = CountingCache(get_counter(name))
        found.MAX_CHARS = _COUNTED_CHARS
    return found


def input_cost(model: str, prices: Any, total: int, reported: Any) -> float | None:
    """The input's price by the one pricing of the cache (:func:`ctx_lab.models.cache_prices`,
    as ``ctx-lab cache`` and ``replay`` price it): the reported split where there is one, else
    every counted token fresh."""
    known = cache_prices(model, prices)
    if reported is None:
        cost = known.cost(total)
    else:
        read, write = reported.cache_read_input_tokens, reported.cache_creation_input_tokens
        fresh = max(reported.reported_input - read - write, 0)
        cost = known.cost(fresh, read, write, reported.cache_write_1h)
    return None if cost is None else round(cost, 6)
