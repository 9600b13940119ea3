"""A calibration tried on other sessions (``ctx-lab calibrate FILES --evaluate OTHERS``): for every
call of the model in the other sessions, the estimate with its 90 % band beside the reported
input — the per-class fit, and beside it the plain scalar fits (the calibration's own counter
and o200k, each × its scalar) on the same calls.

An estimate is the hidden prefix (what the session's first call reported beyond the estimate of
its messages — stated, as the file does not hold it; again after each recorded compaction) plus
each message's counted tokens × its class's ratio; the band is the classes' bands applied the
same way. Images are priced by the provider's rule.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..display import RichResult, escape, html_table, text_table
from ..tokens import Calibration, ClassRatio
from ..wire import wire
from .transcripts import Transcript, images_cost

__all__ = ["CalibrationEvaluation", "EvaluatedCall", "evaluate_calibration"]


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


@dataclass(frozen=True)
class CalibrationEvaluation(RichResult):
    """How a calibration fares on other sessions (see the module docstring)."""

    model: str
    base: str
    classes: tuple[ClassRatio, ...]
    rows: tuple[EvaluatedCall, ...]
    hidden_prefix: tuple[tuple[str, int], ...] = field(
        default=(), metadata=wire("per session: the tokens its first call had beyond its messages")
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

    def to_dict(self) -> dict[str, Any]:
        """The rows with the summary figures. Hand-written: the figures are computed."""
        return {
            "version": 1,
            "model": self.model,
            "base": self.base,
            "classes": [c.to_dict() for c in self.classes],
            "rows": [r.__dict__ for r in self.rows],
            "hidden_prefix": dict(self.hidden_prefix),
            "inside_band": self.inside_band,
            "median_abs_error": self.median_abs_error,
            "scalar_median_abs_error": self.scalar_errors(),
            "warnings": list(self.warnings),
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
        return (
            f"{self.model}: {len(self.rows)} calls; inside the 90 % band on {inside:.1%}, median "
            f"absolute error {error:.1%} (per class on {self.base}); beside it {scalars}"
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


def evaluate_calibration(
    calibration: Calibration, transcripts: Sequence[Transcript], *, o200k: float | None = None
) -> CalibrationEvaluation:
    """Every call of ``calibration.model`` in ``transcripts``, estimated (see the module
    docstring); ``o200k``: the scalar of an o200k fit on the same sessions, to compare."""
    from ..tokens import get_counter, model_extends
    from ._cache_sizes import message_counts
    from ._delta import CLASSES, THINKING, content_class, estimate_call, thinking_sent

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
        classes[THINKING] = ClassRatio(THINKING, prose.ratio, prose.low, prose.high, 0, True)
    base = get_counter(calibration.base)
    other = get_counter("o200k") if o200k is not None else None
    rows: list[EvaluatedCall] = []
    hidden: list[tuple[str, int]] = []
    for transcript in transcripts:
        name = transcript.source or "<transcript>"
        model = next(
            (
                c.model
                for c in transcript.calls
                if c.model and model_extends(c.model, calibration.model)
            ),
            None,
        )
        if model is None:
            continue
        _, counts = message_counts(transcript, base, model)
        images = [images_cost(m, model) for m in transcript.messages]
        counts = [c - i for c, i in zip(counts, images, strict=True)]
        kinds = [content_class(m) for m in transcript.messages]
        plain = message_counts(transcript, other, model)[1] if other is not None else None
        thinking = thinking_sent(transcript, base, model)
        segment, offset, scalar_offset, o_offset = None, 0.0, 0.0, 0.0
        for call in transcript.calls:
            if call.usage is None or call.model != model:
                continue
            start, end = transcript.sent_range(call)
            middle, low, high = estimate_call(
                classes, kinds, counts, images, start, end, thinking[call.index]
            )
            scalar = calibration.ratio * sum(counts[start:end]) + sum(images[start:end])
            o_total = o200k * sum(plain[start:end]) if plain is not None and o200k else None
            reported = call.usage.reported_input
            if start != segment:  # the first call of a segment states its hidden prefix
                segment = start
                offset = reported - middle
                scalar_offset = reported - scalar
                o_offset = reported - o_total if o_total is not None else 0.0
                hidden.append((f"{name} call {call.index + 1}", round(offset)))
                continue
            rows.append(
                EvaluatedCall(
                    name, call.index + 1, reported, round(offset + middle), round(offset + low),
                    round(offset + high), round(scalar_offset + scalar),
                    round(o_offset + o_total) if o_total is not None else None,
                )
            )  # fmt: skip
    return CalibrationEvaluation(
        calibration.model, calibration.base, tuple(classes.values()), tuple(rows), tuple(hidden)
    )
