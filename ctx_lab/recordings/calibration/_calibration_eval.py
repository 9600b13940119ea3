"""A calibration tried on other sessions (``ctx-lab calibrate FILES --evaluate OTHERS``): for every
call of the model in the other sessions, the estimate with its 90 % band beside the reported
input — the calibration's growth model, and beside it the plain scalar fits (the calibration's
own counter and o200k, each × its scalar) on the same calls.

Each call is estimated as :mod:`._growth_calls` says: its segment's anchor (the first call's
reported input, which holds the hidden prefix the file lacks — stated, not estimated) plus the
predicted growth since; a thinking block's full size is inferred from the call right after it,
which is then listed apart. The band is the calibration's around the predicted growth; a
calibration stored before the growth model scales the growth by its classes' bands. Images are
priced by the provider's rule. The scalar fits are anchored and given the thinking the same way:
only what they estimate of the messages differs.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...claims import claims
from ...display import RichResult, escape, html_table, text_table
from ...tokens import Calibration, ClassRatio
from ...wire import from_wire, wire
from ..transcripts import Transcript

__all__ = ["CalibrationEvaluation", "EvaluatedCall", "evaluate_calibration"]


ROW_CLAIM = claims("estimated", reported="billed")  # ctx_lab/claims.py


@dataclass(frozen=True)
class EvaluatedCall:
    """One call of an evaluated session."""

    source: str
    call: int = field(metadata=wire("1-based, as the session's calls", minimum=1))
    reported: int = field(metadata=wire("the input the provider reported", minimum=0))
    estimate: int = field(metadata=wire("the per-class estimate", minimum=0))
    low: int = field(metadata=wire("the band's lower edge", minimum=0))
    high: int = field(metadata=wire("the band's upper edge (what a budget check uses)", minimum=0))
    scalar: int = field(metadata=wire("the calibration's counter × its scalar", minimum=0))
    o200k: int | None = field(default=None, metadata=wire("o200k × its scalar fit"))


@dataclass(frozen=True, kw_only=True)
class CalibrationEvaluation(RichResult):
    """How a calibration fares on other sessions (see the module docstring)."""

    model: str
    base: str
    classes: tuple[ClassRatio, ...]
    rows: tuple[EvaluatedCall, ...]
    hidden_prefix: tuple[tuple[str, int], ...] = field(
        default=(), metadata=wire("per segment: the reported input its first call anchors on")
    )
    inferred: tuple[tuple[str, int], ...] = field(
        default=(),
        metadata=wire("calls that measured a thinking block's full size (not estimated)"),
    )
    warnings: tuple[str, ...] = ()

    payload_kind = "calibration_evaluation"

    def _errors(self, attribute: str) -> list[float]:
        return [
            abs(getattr(r, attribute) - r.reported) / r.reported
            for r in self.rows
            if r.reported and getattr(r, attribute) is not None
        ]

    @property
    def inside_band(self) -> float | None:
        """Share of calls whose reported input lies inside the estimate's band."""
        if not self.rows:
            return None
        return round(sum(r.low <= r.reported <= r.high for r in self.rows) / len(self.rows), 4)

    @property
    def median_half_width(self) -> float | None:
        """Median of the band's half-width ÷ the estimate."""
        widths = [(r.high - r.low) / 2 / r.estimate for r in self.rows if r.estimate]
        return round(statistics.median(widths), 4) if widths else None

    def session_errors(self) -> dict[str, float]:
        """Each session's median absolute error."""
        per: dict[str, list[float]] = {}
        for r in self.rows:
            if r.reported:
                per.setdefault(r.source, []).append(abs(r.estimate - r.reported) / r.reported)
        return {name: round(statistics.median(v), 4) for name, v in per.items()}

    @property
    def median_abs_error(self) -> float | None:
        """Median of |estimate − reported| ÷ reported."""
        errors = self._errors("estimate")
        return round(statistics.median(errors), 4) if errors else None

    def scalar_errors(self) -> dict[str, float | None]:
        """The median absolute error of each plain scalar fit on the same calls."""
        found: dict[str, float | None] = {}
        for name, attribute in ((f"{self.base} × scalar", "scalar"), ("o200k × scalar", "o200k")):
            errors = self._errors(attribute)
            found[name] = round(statistics.median(errors), 4) if errors else None
        return found

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CalibrationEvaluation:
        """The evaluation again from :meth:`to_dict`, whose per-segment pairs are objects on the
        wire (``{"segment": tokens}``): they are pairs again before the fields are decoded."""
        pairs = {
            key: list(value.items())
            for key in ("hidden_prefix", "inferred")
            if isinstance(value := data.get(key), Mapping)
        }
        return from_wire(cls, {**data, **pairs})

    def to_dict(self) -> dict[str, Any]:
        """The rows with the summary figures. Hand-written: the figures are computed."""
        return {
            "version": 1,
            "model": self.model,
            "base": self.base,
            "classes": [c.to_dict() for c in self.classes],
            "rows": [{**r.__dict__, "claim": ROW_CLAIM} for r in self.rows],
            "hidden_prefix": dict(self.hidden_prefix),
            "inferred": dict(self.inferred),
            "inside_band": self.inside_band,
            "median_half_width": self.median_half_width,
            "median_abs_error": self.median_abs_error,
            "session_median_abs_error": self.session_errors(),
            "scalar_median_abs_error": self.scalar_errors(),
            "warnings": list(self.warnings),
            "claim": "estimated",  # the estimates and how far they fell from the billed input
        }

    def _head(self) -> str:
        inside, error = self.inside_band, self.median_abs_error
        scalars = ", ".join(
            f"{name} {value:.1%}"
            for name, value in self.scalar_errors().items()
            if value is not None
        )
        if inside is None or error is None:
            return f"{self.model}: no calls of the model with usage to evaluate"
        width = self.median_half_width or 0.0
        apart = f"; {len(self.inferred)} calls measured thinking instead" if self.inferred else ""
        return (
            f"{self.model}: {len(self.rows)} calls; inside the 90 % band on {inside:.1%} (median "
            f"half-width {width:.1%}), median absolute error {error:.1%} ({self.base} by the "
            f"calibration); beside it {scalars}{apart}"
        )

    def to_text(self) -> str:
        """The summary line, the classes, then one row per call."""
        classes = "; ".join(
            f"{c.klass} ×{c.ratio:.3f} [{c.low:.3f}–{c.high:.3f}]" for c in self.classes
        )
        rows = [[r.source, r.call, r.reported, r.estimate, r.low, r.high, r.scalar]
                for r in self.rows]  # fmt: skip
        return "\n".join(
            [self._head(), f"classes: {classes}", "",
             text_table(["session", "call", "reported", "estimate", "low", "high", "scalar"], rows)]
        )  # fmt: skip

    def html_body(self) -> str:
        """The summary line and the calls."""
        rows = [[r.source, r.call, r.reported, r.estimate, r.low, r.high, r.scalar]
                for r in self.rows]  # fmt: skip
        return f"<h4 data-ctx-calibration-evaluation>{escape(self._head())}</h4>" + html_table(
            ["session", "call", "reported", "estimate", "low", "high", "scalar"],
            rows,
            numeric=(1, 2, 3, 4, 5, 6),
        )


def _fit_of(calibration: Calibration) -> tuple[Any, Any]:
    """The calibration's growth model and its band (tokens either side of a predicted growth);
    a calibration stored before the growth model (or a scalar one) as classes without framing,
    banded by its classes' own bands."""
    from ...tokens import band_width
    from ._delta import CLASSES, THINKING
    from ._growth_fit import GrowthFit

    classes = {c.klass: c for c in calibration.classes}
    if not classes:  # a scalar calibration: every class at its ratio (the degenerate case)
        classes = {
            k: ClassRatio(
                k, calibration.ratio, calibration.low, calibration.high, calibration.calls
            )
            for k in CLASSES
        }
    if THINKING not in classes:  # stored before thinking was fitted: the summary as prose
        prose = classes["prose"]
        classes[THINKING] = ClassRatio(
            klass=THINKING,
            ratio=prose.ratio,
            low=prose.low,
            high=prose.high,
            samples=0,
            pooled=True,
        )
    fit = GrowthFit(tuple(classes.values()), calibration.framing)
    band = calibration.growth_band
    if band is not None:
        return fit, lambda growth: (band_width(band, growth),) * 2
    prose = classes["prose"]
    below, above = 1 - prose.low / prose.ratio, prose.high / prose.ratio - 1
    return fit, lambda growth: (below * max(growth, 0), above * max(growth, 0))


def evaluate_calibration(
    calibration: Calibration, transcripts: Sequence[Transcript], *, o200k: float | None = None
) -> CalibrationEvaluation:
    """Every call of ``calibration.model`` in ``transcripts``, estimated (see the module
    docstring); ``o200k``: the scalar of an o200k fit on the same sessions, to compare."""
    from ...tokens import MESSAGE_OVERHEAD, get_counter, model_extends
    from ._delta import message_parts
    from ._growth_calls import estimate_calls

    fit, width = _fit_of(calibration)
    base = get_counter(calibration.base)
    other = get_counter("o200k") if o200k is not None else None

    def scalar(ratio: float) -> Any:
        def predict(added: Any, tools: int, messages: int, images: int) -> float:
            return ratio * (sum(added.values()) + MESSAGE_OVERHEAD * messages) + images

        return predict

    rows: list[EvaluatedCall] = []
    anchors: list[tuple[str, int]] = []
    inferred: list[tuple[str, int]] = []
    for transcript in transcripts:
        name = transcript.source or "<transcript>"
        models = sorted(
            {
                c.model
                for c in transcript.calls
                if c.model and model_extends(c.model, calibration.model)
            }
        )
        for model in models:
            found = estimate_calls(transcript, base, model, fit)
            plain = estimate_calls(transcript, base, model, fit, predict=scalar(calibration.ratio))
            against = (
                estimate_calls(
                    transcript, other, model, fit, predict=scalar(o200k),
                    parts=message_parts(transcript, other, model),
                ).calls
                if other is not None and o200k
                else [None] * len(found.calls)
            )  # fmt: skip
            anchors += [(f"{name} call {i + 1}", tokens) for i, tokens in found.anchors]
            inferred += [(f"{name} call {i + 1}", tokens) for i, tokens in found.inferred]
            for call, flat, versus in zip(found.calls, plain.calls, against, strict=True):
                below, above = width(call.growth)
                lower, upper = call.estimate - below, call.estimate + above
                rows.append(
                    EvaluatedCall(
                        source=name,
                        call=call.index + 1,
                        reported=call.reported,
                        estimate=round(call.estimate),
                        low=round(lower),
                        high=round(upper),
                        scalar=round(flat.estimate),
                        o200k=round(versus.estimate) if versus is not None else None,
                    )
                )
    return CalibrationEvaluation(
        model=calibration.model,
        base=calibration.base,
        classes=tuple(fit.classes),
        rows=tuple(rows),
        hidden_prefix=tuple(anchors),
        inferred=tuple(inferred),
    )
