"""The cyclic garbage collector, paused while an engine builds a large structure whose objects
all live until it is done (a replay's history, a packet's scores and BM25 index): each full
collection would walk all of them again, which makes the build grow faster than its input.
What little such a build leaves cyclic is collected once the collector is back on."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["paused"]


@contextmanager
def paused() -> Iterator[None]:
    """The collector off for the block (restored as it was, also on an error)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
