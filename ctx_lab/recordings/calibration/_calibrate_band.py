"""The band every calibration states: the median of its samples with the 5th–95th percentile
interval (the scalar fit and the per-class fit alike)."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

__all__ = ["band"]


def band(samples: Sequence[float]) -> tuple[float, float, float]:
    """Median and the 5th–95th percentile interval (one sample: itself three times)."""
    median = statistics.median(samples)
    if len(samples) < 2:
        return median, median, median
    cuts = statistics.quantiles(samples, n=20, method="inclusive")
    return median, min(cuts[0], median), max(cuts[-1], median)
