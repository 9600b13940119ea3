"""Calibrations: how a model's provider-reported input tokens relate to a named counter's count
of the same calls (fitted from recorded sessions by
:func:`ctx_lab.recordings.calibrate`),
kept in a small user config file (:mod:`._calibration_file`, read back by
:mod:`._calibration_store`) that ``counter="model"`` consults
for models without an exact tokenizer here.

The file is ``calibrations.json`` in the user config directory (``platformdirs``'s, e.g.
``~/.config/ctx-lab``), or in ``$CTX_LAB_CONFIG_DIR`` when that is set — tests and notebooks
set it to a directory of their own. Saves take a lock (``calibrations.json.lock``) around
read-modify-write, so concurrent saves all keep their records.

A calibration must be believable to be stored or used: fitted on at least
:data:`MIN_CALLS` calls, with a ratio inside :data:`PLAUSIBLE_RATIO` — every counter ctx_lab
ships is a token estimate, and on real text no estimate is off from a real tokenizer by more
than ×2 down or ×3 up (measured: ``bytes/4`` against Claude's reported input on recorded Claude
Code sessions is ×1.1–1.4; against o200k on code and prose ×0.8–1.2). A ratio outside that band
means the calls measured something else — server-side compaction, a cache anomaly, another
conversation — and is refused with the evidence. A stored record that fails these rules today
(an older file, a hand-edited one) is never applied.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..display import RichResult, escape, html_table
from ..errors import CalibrationError
from ._calibration_file import (
    CALIBRATIONS_FILE,
    CONFIG_ENV,
    Records,
    calibrations_path,
    change_records,
    config_dir,
)

__all__ = [
    "CALIBRATIONS_FILE",
    "CONFIG_ENV",
    "MAX_FRAMING",
    "MIN_CALLS",
    "PLAUSIBLE_RATIO",
    "Calibration",
    "band_width",
    "calibrations_path",
    "config_dir",
]

METHODS = ("ratio", "growth")
MIN_CALLS = 5  # fewer calls than this give no interval worth storing
PLAUSIBLE_RATIO = (0.5, 3.0)  # reported ÷ counted outside this: the calls measured something else
MAX_FRAMING = 500.0  # tokens per tool message beyond this: the pairs measured something else
MAX_BAND = 100.0  # a band's parameters beyond this: not a band


def _restorable(record: Mapping[str, Any]) -> bool:
    """True when a stored record reads back as a :class:`Calibration`."""
    try:
        Calibration.from_dict(record)
    except (CalibrationError, KeyError, TypeError, ValueError):
        return False
    return True


@dataclass(frozen=True)
class ClassRatio:
    """One content class's ratio ``reported ÷ counted`` with its 90 % band, over the growth
    pairs it dominated (``pooled``: too few of those, so every pair's ratio stands in)."""

    klass: str
    ratio: float
    low: float
    high: float
    samples: int
    pooled: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The stored form."""
        return {"class": self.klass, "ratio": self.ratio, "low": self.low, "high": self.high,
                "samples": self.samples, "pooled": self.pooled}  # fmt: skip

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ClassRatio:
        """The inverse of :meth:`to_dict`."""
        return cls(
            klass=str(data["class"]),
            ratio=float(data["ratio"]),
            low=float(data["low"]),
            high=float(data["high"]),
            samples=int(data.get("samples", 0)),
            pooled=bool(data.get("pooled")),
        )


def _band_of(value: Any) -> tuple[float, float, float] | None:
    """A stored growth band (``systematic``, ``random``, ``z``), or None."""
    if value is None:
        return None
    return float(value["systematic"]), float(value["random"]), float(value["z"])


def band_width(band: tuple[float, float, float], growth: float) -> float:
    """Tokens either side of a predicted growth of ``growth`` tokens in ``band``."""
    systematic, random, z = band
    if growth <= 0:
        return 0.0
    return z * math.sqrt((systematic * growth) ** 2 + random**2 * growth)


@dataclass(frozen=True, kw_only=True)
class Calibration(RichResult):
    """A fitted ratio ``reported ÷ counted`` for one model and base counter: the median over
    ``calls`` calls with its 90 % interval ``[low, high]``.

    ``method`` is ``ratio`` (each call's reported input over the count of what it was sent) or
    ``growth`` (the growth of reported input between consecutive calls over the growth of the
    count — used when the transcripts do not record the system prompt and tool definitions the
    agent sent, as Claude Code's do not); ``overhead`` is then the median of those unrecorded
    tokens per call, in the model's tokens.
    """

    model: str
    base: str
    ratio: float
    low: float
    high: float
    calls: int
    transcripts: int = 1
    method: str = "ratio"
    overhead: int = 0
    fitted_on: str | None = None
    saved_to: str | None = None
    warnings: tuple[str, ...] = ()
    files: tuple[tuple[str, str], ...] = ()  # (file, sha256) of the transcripts fitted on
    excluded: tuple[tuple[str, int], ...] = ()  # calls left out, by reason
    classes: tuple[ClassRatio, ...] = ()  # per content class, from growth pairs (may be none)
    framing: float = 0.0  # tokens per tool call and per tool result beyond the counted text
    # the 90 % band of a predicted growth g: ± z·sqrt((systematic·g)² + random²·g) tokens, as
    # (systematic, random, z); None: fitted before the growth model
    growth_band: tuple[float, float, float] | None = None
    band_how: str = ""  # how the band was measured (held-out sessions, or in-sample)
    held_out: tuple[tuple[str, float], ...] = ()  # held-out median error of each fit tried

    payload_kind = "calibration"

    def problem(self, min_calls: int = MIN_CALLS) -> str | None:
        """Why this calibration may not be stored or used (None when it may)."""
        low, high = PLAUSIBLE_RATIO
        values = (self.ratio, self.low, self.high)
        if not all(math.isfinite(v) for v in values):
            return "its ratio is not a finite number"
        if not low <= self.ratio <= high:
            return (
                f"its ratio ×{self.ratio:g} is outside the plausible band ×{low:g}–{high:g} "
                "for a token estimate"
            )
        if self.calls < min_calls:
            return f"it was fitted on {self.calls} calls (at least {min_calls} needed)"
        if not 0 < self.low <= self.ratio <= self.high:
            return "its interval does not hold its ratio"
        if not (math.isfinite(self.framing) and 0 <= self.framing <= MAX_FRAMING):
            return f"its framing {self.framing:g} is not between 0 and {MAX_FRAMING:g} tokens"
        if self.growth_band is not None and not (
            len(self.growth_band) == 3
            and all(math.isfinite(v) and 0 <= v <= MAX_BAND for v in self.growth_band)
        ):
            return "its band is not three numbers between 0 and 100"
        return None

    def save(self, directory: str | os.PathLike[str] | None = None) -> Calibration:
        """Store this calibration (the explicit step after looking at it); returns it with
        ``saved_to`` set. A calibration this module would not apply is refused
        (:class:`CalibrationError`); a damaged file is replaced only by this explicit save."""
        reason = self.problem()
        if reason is not None:
            raise CalibrationError(f"not saved: {self.describe()}: {reason}")
        record = self.to_dict()

        def put(records: Records) -> bool:  # a damaged record goes with an explicit save
            for model in [m for m, r in records.items() if not _restorable(r)]:
                del records[model]
            records[self.model] = record
            return True

        return replace(self, saved_to=str(change_records(directory, put)))

    @property
    def counter_name(self) -> str:
        """The scaled counter this calibration counts with: ``bytes/4*1.31``, or per class
        with the tool framing (``bytes/4*{prose:1.26,code:1.35,json:1.29,cjk:1.26,tool:37}``)."""
        return self.counter_for()

    def counter_for(self, budget: bool = False) -> str:
        """The counter's name: its base scaled by each class's ratio (by the scalar where it
        has no classes, or — fitted before the growth model — only pooled ones), with the
        framing per tool message; ``budget``: by the band's upper edge."""
        from ._classes import CLASSES

        text = [c for c in self.classes if c.klass in CLASSES]  # a counter counts text
        modelled = self.growth_band is not None
        if not text or (not modelled and all(c.pooled for c in text)):
            return f"{self.base}*{(self.high if budget else self.ratio):g}"
        framing = round(self.framing, 2)
        if not modelled or not budget:
            factors = ",".join(f"{c.klass}:{(c.high if budget else c.ratio):g}" for c in text)
            return f"{self.base}*{{{factors}" + (f",tool:{framing:g}" if framing else "") + "}"
        # a budget counts each text at the upper edge of its own band (the band's parameters
        # travel in the name: the edge depends on the text's size)
        factors = ",".join(f"{c.klass}:{c.ratio:g}" for c in text)
        systematic, random, z = self.growth_band  # type: ignore[misc]
        edge = f",z:{z:g},sys:{systematic:g},rand:{random:g}"
        return f"{self.base}*{{{factors}" + (f",tool:{framing:g}" if framing else "") + edge + "}"

    def describe(self) -> str:
        """``claude-sonnet-4-5: calibrated bytes/4 ×1.31 [1.22–1.40], 412 calls``; with a
        growth model, its ratios, framing and band instead of the scalar's spread
        (``… bytes/4 ×1.33 + 35 per tool message, 90 % band ±24 % of 1,000, ±9 % of 10,000,
        ±7 % of 100,000 tokens (held out: …), 201 calls``)."""
        text = [c for c in self.classes if c.klass != "thinking"]
        if self.growth_band is None or not text:
            return (
                f"{self.model}: calibrated {self.base} ×{self.ratio:.2f} "
                f"[{self.low:.2f}–{self.high:.2f}], {self.calls} calls"
            )
        ratios = sorted({c.ratio for c in text})
        scale = (
            f"×{ratios[0]:.2f}"
            if len(ratios) == 1
            else f"×{ratios[0]:.2f}–{ratios[-1]:.2f} by class"
        )
        framing = f" + {self.framing:.0f} per tool message" if self.framing else ""
        shares = ", ".join(
            f"±{band_width(self.growth_band, g) / g:.0%} of {g:,}" for g in (1_000, 10_000, 100_000)
        )
        return (
            f"{self.model}: calibrated {self.base} {scale}{framing}, 90 % band {shares} tokens "
            f"({self.band_how or 'in-sample'}), {self.calls} calls"
        )

    def to_dict(self) -> dict[str, Any]:
        """The stored and served form. Hand-written: the calibrations file stores this form, whose
        names (``counter``) and rounding are kept for the files already written."""
        return {
            "model": self.model,
            "base": self.base,
            "counter": self.counter_name,
            "ratio": self.ratio,
            "low": self.low,
            "high": self.high,
            "calls": self.calls,
            "transcripts": self.transcripts,
            "method": self.method,
            "overhead": self.overhead,
            "fitted_on": self.fitted_on,
            "saved_to": self.saved_to,
            "description": self.describe(),
            "warnings": list(self.warnings),
            "band": list(PLAUSIBLE_RATIO),
            "files": [{"path": path, "sha256": digest} for path, digest in self.files],
            "excluded": dict(self.excluded),
            "classes": [c.to_dict() for c in self.classes],
            "tool_framing": self.framing,
            "growth_band": (
                dict(zip(("systematic", "random", "z"), self.growth_band, strict=True))
                if self.growth_band is not None
                else None
            ),
            "band_how": self.band_how,
            "held_out": dict(self.held_out),
            "claim": "estimated",  # a fit: every figure is an estimate with its band
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Calibration:
        """The inverse of :meth:`to_dict` (derived keys ignored); raises
        :class:`CalibrationError` for a record that is not a calibration."""
        try:
            made = cls(
                model=str(data["model"]),
                base=str(data["base"]),
                ratio=float(data["ratio"]),
                low=float(data["low"]),
                high=float(data["high"]),
                calls=int(data["calls"]),
                transcripts=int(data.get("transcripts", 1)),
                method=str(data.get("method", "ratio")),
                overhead=int(data.get("overhead", 0)),
                fitted_on=data.get("fitted_on"),
                saved_to=data.get("saved_to"),
                warnings=tuple(str(w) for w in data.get("warnings", ())),
                files=tuple(
                    (str(f["path"]), str(f["sha256"]))
                    for f in data.get("files", ())
                    if isinstance(f, Mapping)
                ),
                excluded=tuple((str(k), int(v)) for k, v in dict(data.get("excluded", {})).items()),
                classes=tuple(
                    ClassRatio.from_dict(c)
                    for c in data.get("classes", ())
                    if isinstance(c, Mapping)
                ),
                framing=float(data.get("tool_framing") or 0.0),
                growth_band=_band_of(data.get("growth_band")),
                band_how=str(data.get("band_how") or ""),
                held_out=tuple(
                    (str(k), float(v)) for k, v in dict(data.get("held_out") or {}).items()
                ),
            )
        except (KeyError, TypeError, ValueError, OverflowError) as exc:
            raise CalibrationError(
                f"not a calibration record ({type(exc).__name__}: {exc})"
            ) from None
        if not all(math.isfinite(v) for v in (made.ratio, made.low, made.high)):
            raise CalibrationError(f"calibration record for {made.model!r}: not finite")
        return made

    def to_text(self) -> str:
        """The description, the method and where it was saved."""
        lines = [self.describe()]
        lines.append(
            f"counter {self.counter_name} (inexact); method {self.method}"
            + (f", {self.overhead} tokens per call not in the transcripts" if self.overhead else "")
            + f"; {self.transcripts} transcript{'s' if self.transcripts != 1 else ''}"
        )
        if self.excluded:
            lines.append("left out: " + ", ".join(f"{n} {reason}" for reason, n in self.excluded))
        for c in self.classes:
            lines.append(
                f"  {c.klass}: ×{c.ratio:.3f} [{c.low:.3f}–{c.high:.3f}], {c.samples} growth pairs"
                + (" (shares the pooled ratio)" if c.pooled else "")
            )
        if self.framing:
            lines.append(f"  tool calls and results: +{self.framing:g} tokens each (framing)")
        if self.held_out:
            lines.append(
                "held-out median error: "
                + ", ".join(f"{name} {value:.1%}" for name, value in self.held_out)
            )
        if self.saved_to:
            lines.append(f"saved to {self.saved_to}: counter=model uses it for {self.model}")
        else:
            lines.append("not saved (pass --save, or call .save(), to let counter=model use it)")
        return "\n".join(lines)

    def html_body(self) -> str:
        """A one-row table."""
        return f"<h4 data-ctx-calibration>{escape(self.describe())}</h4>" + html_table(
            ["model", "counter", "ratio", "90 % interval", "calls", "method", "overhead"],
            [
                [
                    self.model,
                    self.counter_name,
                    f"{self.ratio:.3f}",
                    f"{self.low:.3f}–{self.high:.3f}",
                    self.calls,
                    self.method,
                    self.overhead,
                ]
            ],
            numeric=(2, 4, 6),
        )
