"""The band a calibration states, measured where it means something: on sessions the fit did
not see.

Each session is estimated call by call (:func:`~ctx_lab.recordings.calibration._growth_calls.
estimate_calls`) from a fit on the *other* sessions (leave one session out; over more than
:data:`FOLDS` sessions, :data:`FOLDS` folds of sessions taken in turn). Two fits are tried so:
a ratio per content class, and one ratio for every class; the per-class fit is kept only where
its median absolute error on the held-out calls is lower.

The band (:class:`GrowthBand`) is fitted to the kept fit's held-out errors, each session
weighing the same (a long session must not speak for the others). An error of a call's
predicted growth ``g`` has two parts: one proportional to ``g`` (a session whose content is
not like the sessions fitted on: web pages where the fit saw code) and one that averages out as
more is added (what each step held that the file does not show), so its spread is
``sqrt((systematic·g)² + random²·g)`` — fitted by least squares on the squared errors — and the
band is ``z`` such spreads either side, ``z`` the 90th percentile of the held-out errors in
spreads. Budgets count at its upper edge.

One session alone cannot be held out from itself: its band is in-sample (said), and its fit is
one ratio (a class fit cannot be shown to beat it).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...tokens import model_extends
from ..transcripts import Transcript
from ._delta import GrowthPair, MessageParts, message_parts, mine_growth
from ._growth_calls import CallEstimate, estimate_calls
from ._growth_fit import GrowthFit, fit_growth

__all__ = ["BandedFit", "GrowthBand", "fit_with_band"]

FOLDS = 10  # beyond this many sessions, folds of sessions are held out in turn
COVERAGE = 0.9  # the band's share of held-out calls
TEXT = 1000  # the classes' bands are stated for a text of this many counted tokens
MIN_CALLS = 5  # fewer held-out calls than this state no band (the pairs' spread stands in)


@dataclass(frozen=True)
class GrowthBand:
    """The 90 % band of a predicted growth ``g`` (tokens): ``g ± z·sqrt((systematic·g)² +
    random²·g)`` (see the module docstring)."""

    systematic: float
    random: float
    z: float

    def half_width(self, growth: float) -> float:
        """Tokens either side of a predicted growth of ``growth`` tokens."""
        if growth <= 0:
            return 0.0
        return self.z * math.sqrt((self.systematic * growth) ** 2 + self.random**2 * growth)

    def share(self, growth: float) -> float:
        """The half-width as a share of the growth (``±x``)."""
        return self.half_width(growth) / growth if growth > 0 else 0.0

    def as_tuple(self) -> tuple[float, float, float]:
        return (self.systematic, self.random, self.z)


@dataclass(frozen=True)
class BandedFit:
    """The growth model kept, its band and how it was measured; ``errors``: the held-out median
    absolute error of each fit tried."""

    fit: GrowthFit
    band: GrowthBand | None
    how: str
    errors: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True)
class _Unit:
    """One model's calls in one session."""

    transcript: Transcript
    model: str
    parts: MessageParts
    pairs: tuple[GrowthPair, ...]


def _units(loaded: Sequence[Transcript], base: Any, model: str) -> list[list[_Unit]]:
    """Per session, one unit per model name of the family ``model``."""
    sessions = []
    for transcript in loaded:
        names = sorted(
            {c.model for c in transcript.calls if c.model and model_extends(c.model, model)}
        )
        units = [
            _Unit(transcript, name, message_parts(transcript, base, name),
                  tuple(mine_growth(transcript, base, name)[0]))
            for name in names
        ]  # fmt: skip
        if any(u.pairs for u in units):
            sessions.append(units)
    return sessions


def _held_out(
    sessions: list[list[_Unit]], base: Any, pooled: bool
) -> list[tuple[int, CallEstimate]]:
    """Every session's calls estimated from a fit on the other folds: (session, call)."""
    folds = min(len(sessions), FOLDS)
    found = []
    for fold in range(folds):
        others = [
            p for i, units in enumerate(sessions) if i % folds != fold
            for u in units for p in u.pairs
        ]  # fmt: skip
        fit = fit_growth(others, pooled=pooled)
        for i, units in enumerate(sessions):
            if i % folds != fold:
                continue
            for unit in units:
                estimated = estimate_calls(unit.transcript, base, unit.model, fit, parts=unit.parts)
                found += [(i, call) for call in estimated.calls]
    return found


def _median_error(rows: list[tuple[int, CallEstimate]]) -> float:
    return statistics.median(abs(c.estimate - c.reported) / c.reported for _, c in rows)


def _weighted_quantile(values: list[tuple[float, float]], q: float) -> float:
    ordered = sorted(values)
    total = sum(w for _, w in ordered)
    reached = 0.0
    for value, weight in ordered:
        reached += weight
        if reached >= q * total:
            return value
    return ordered[-1][0]


def _variance(points: list[tuple[float, float, float]]) -> tuple[float, float]:
    """``(A, B) ≥ 0`` of ``error² ≈ A·g² + B·g`` by weighted least squares on ``error² ÷ g²``
    against ``(1, 1 ÷ g)`` (relative errors weigh alike whatever the size)."""
    s00 = s01 = s11 = t0 = t1 = 0.0
    for growth, error, weight in points:
        y, x1 = (error / growth) ** 2, 1.0 / growth
        s00, s01, s11 = s00 + weight, s01 + weight * x1, s11 + weight * x1 * x1
        t0, t1 = t0 + weight * y, t1 + weight * x1 * y
    determinant = s00 * s11 - s01 * s01
    if determinant > 1e-18 * max(s00 * s11, 1e-300):
        a = (t0 * s11 - t1 * s01) / determinant
        b = (s00 * t1 - s01 * t0) / determinant
        if a >= 0 and b >= 0:
            return a, b
    only_b = t1 / s11 if s11 else 0.0  # every error from what averages out
    only_a = t0 / s00 if s00 else 0.0  # every error proportional
    residual_a = sum(w * ((e / g) ** 2 - only_a) ** 2 for g, e, w in points)
    residual_b = sum(w * ((e / g) ** 2 - only_b / g) ** 2 for g, e, w in points)
    return (only_a, 0.0) if residual_a <= residual_b else (0.0, max(only_b, 0.0))


def _band_of(rows: list[tuple[int, CallEstimate]]) -> GrowthBand | None:
    """The band of the held-out calls' errors (see the module docstring), sessions weighing
    alike."""
    errors = [(i, c.growth, c.reported - c.estimate) for i, c in rows if c.growth > 0]
    if len(errors) < MIN_CALLS:
        return None
    per_session: dict[int, int] = {}
    for i, _, _ in errors:
        per_session[i] = per_session.get(i, 0) + 1
    points = [(g, e, 1.0 / per_session[i]) for i, g, e in errors]
    a, b = _variance(points)
    if a <= 0 and b <= 0:
        return GrowthBand(0.0, 0.0, 0.0)
    unit = GrowthBand(math.sqrt(a), math.sqrt(b), 1.0)
    z = _weighted_quantile([(abs(e) / unit.half_width(g), w) for g, e, w in points], COVERAGE)
    return GrowthBand(round(math.sqrt(a), 5), round(math.sqrt(b), 4), round(z, 4))


def fit_with_band(loaded: Sequence[Transcript], base: Any, model: str) -> BandedFit:
    """The growth model of ``model``'s calls in ``loaded`` with its band (see the module
    docstring)."""
    sessions = _units(loaded, base, model)
    pairs = [p for units in sessions for u in units for p in u.pairs]
    if not pairs:
        return BandedFit(GrowthFit(), None, "no growth pairs")
    if len(sessions) >= 2:
        by_class = _held_out(sessions, base, pooled=False)
        one_ratio = _held_out(sessions, base, pooled=True)
        if by_class and one_ratio:
            errors = (
                ("per class", _median_error(by_class)),
                ("one ratio", _median_error(one_ratio)),
            )
            pooled = not errors[0][1] < errors[1][1]
            rows = one_ratio if pooled else by_class
            band = _band_of(rows)
            how = (
                f"held out: each of {len(sessions)} sessions estimated from a fit on the others"
                if len(sessions) <= FOLDS
                else f"held out: {len(sessions)} sessions in {FOLDS} folds, each estimated from "
                "a fit on the other folds"
            ) + f", {len(rows)} calls"
            rounded = tuple((name, round(value, 4)) for name, value in errors)
            fitted = fit_growth(pairs, pooled=pooled, band=_multipliers(band))
            return BandedFit(fitted, band, how, rounded)
    fit = fit_growth(pairs, pooled=True)
    rows = [
        (0, call) for units in sessions for u in units
        for call in estimate_calls(u.transcript, base, u.model, fit, parts=u.parts).calls
    ]  # fmt: skip
    band = _band_of(rows)
    how = "in-sample, one session: no held-out check"
    return BandedFit(fit_growth(pairs, pooled=True, band=_multipliers(band)), band, how)


def _multipliers(band: GrowthBand | None) -> tuple[float, float] | None:
    """The band of a :data:`TEXT`-token text as multipliers (what each class states)."""
    if band is None:
        return None
    share = band.share(TEXT)
    return max(1 - share, 0.01), 1 + share
