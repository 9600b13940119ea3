"""The one place ctx_lab reads the wall clock.

Every function that dates something takes an injectable ``now`` (or a ``clock`` callable) and
falls back to :func:`utc_now` only when none is given, so notebooks, tests and corpus runs pin
time and produce the same output on any day. ``tests/project/test_architecture.py`` fails on a
wall-clock read anywhere else, or on a call of :func:`utc_now` from a function without such a
parameter.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime

__all__ = ["Clock", "utc_now", "wall_time_ns"]

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    """The current time, timezone-aware, in UTC."""
    return datetime.now(UTC)


def wall_time_ns() -> int:
    """Nanoseconds since the epoch, for comparing with file modification times (caches that
    distrust files changed within the file system's timestamp resolution) — never for output."""
    return time.time_ns()
