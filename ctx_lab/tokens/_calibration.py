"""Calibrations: how a model's provider-reported input tokens relate to a named counter's count
of the same calls (fitted from recorded sessions by :func:`ctx_lab.conversation._calibrate`),
kept in a small user config file that ``counter="model"`` consults for models without an exact
tokenizer here.

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

import json
import math
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..display import RichResult, escape, html_table
from ..errors import CalibrationError, CtxLabError
from ..files import FileIdentity, identity, locked, read_text, write_atomic

__all__ = [
    "CALIBRATIONS_FILE",
    "CONFIG_ENV",
    "MIN_CALLS",
    "PLAUSIBLE_RATIO",
    "Calibration",
    "calibrations_path",
    "config_dir",
    "find_calibration",
    "forget_calibration",
    "load_calibrations",
    "save_calibration",
]

CONFIG_ENV = "CTX_LAB_CONFIG_DIR"
CALIBRATIONS_FILE = "calibrations.json"
FILE_VERSION = 1
METHODS = ("ratio", "growth")
MIN_CALLS = 5  # fewer calls than this give no interval worth storing
PLAUSIBLE_RATIO = (0.5, 3.0)  # reported ÷ counted outside this: the calls measured something else


def config_dir() -> Path:
    """``$CTX_LAB_CONFIG_DIR`` when set, else the platform's user config directory."""
    chosen = os.environ.get(CONFIG_ENV, "").strip()
    if chosen:
        return Path(chosen).expanduser()
    import platformdirs

    return platformdirs.user_config_path("ctx-lab", appauthor=False)


def calibrations_path(directory: str | os.PathLike[str] | None = None) -> Path:
    """The calibrations file in ``directory`` (default :func:`config_dir`)."""
    return Path(directory).expanduser() if directory is not None else config_dir()


def _file(directory: str | os.PathLike[str] | None) -> Path:
    return calibrations_path(directory) / CALIBRATIONS_FILE


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
            str(data["class"]),
            float(data["ratio"]),
            float(data["low"]),
            float(data["high"]),
            int(data.get("samples", 0)),
            bool(data.get("pooled")),
        )


@dataclass(frozen=True)
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
        return None

    def save(self, directory: str | os.PathLike[str] | None = None) -> Calibration:
        """Store this calibration (the explicit step after looking at it); returns it with
        ``saved_to`` set."""
        return replace(self, saved_to=str(save_calibration(self, directory)))

    @property
    def counter_name(self) -> str:
        """The scaled counter this calibration counts with: ``bytes/4*1.31``."""
        return f"{self.base}*{self.ratio:g}"

    def describe(self) -> str:
        """``claude-sonnet-4-5: calibrated bytes/4 ×1.31 [1.22–1.40], 412 calls``."""
        return (
            f"{self.model}: calibrated {self.base} ×{self.ratio:.2f} "
            f"[{self.low:.2f}–{self.high:.2f}], {self.calls} calls"
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
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Calibration:
        """The inverse of :meth:`to_dict` (derived keys ignored); raises
        :class:`CalibrationError` for a record that is not a calibration."""
        try:
            made = cls(
                str(data["model"]),
                str(data["base"]),
                float(data["ratio"]),
                float(data["low"]),
                float(data["high"]),
                int(data["calls"]),
                int(data.get("transcripts", 1)),
                str(data.get("method", "ratio")),
                int(data.get("overhead", 0)),
                data.get("fitted_on"),
                data.get("saved_to"),
                tuple(str(w) for w in data.get("warnings", ())),
                tuple(
                    (str(f["path"]), str(f["sha256"]))
                    for f in data.get("files", ())
                    if isinstance(f, Mapping)
                ),
                tuple((str(k), int(v)) for k, v in dict(data.get("excluded", {})).items()),
                tuple(
                    ClassRatio.from_dict(c)
                    for c in data.get("classes", ())
                    if isinstance(c, Mapping)
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
                + (" (too few: every pair's ratio)" if c.pooled else "")
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


_cache: dict[Path, tuple[FileIdentity, dict[str, Calibration]]] = {}
_lock = threading.Lock()


def load_calibrations(
    directory: str | os.PathLike[str] | None = None,
) -> dict[str, Calibration]:
    """The stored calibrations by model (empty when there is no file); cached by the file's
    size and modification time. Raises :class:`CalibrationError` for a damaged file."""
    path = _file(directory)
    try:
        key = identity(path)
    except OSError:
        return {}
    with _lock:
        found = _cache.get(path)
        if found is not None and found[0] == key:
            return dict(found[1])
    try:
        data = json.loads(read_text(path))
    except (CtxLabError, ValueError) as exc:
        raise CalibrationError(f"calibrations file {path} is unreadable: {exc}") from None
    if not isinstance(data, Mapping) or not isinstance(data.get("calibrations"), Mapping):
        raise CalibrationError(f"calibrations file {path} has no 'calibrations' object")
    loaded = {str(k): Calibration.from_dict(v) for k, v in data["calibrations"].items()}
    with _lock:
        _cache[path] = (key, loaded)
    return dict(loaded)


def _locked(path: Path) -> Any:
    """An exclusive lock on ``path`` across processes (:func:`ctx_lab.files.locked`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    return locked(path)


def _write(path: Path, existing: Mapping[str, Calibration]) -> None:
    data = {
        "version": FILE_VERSION,
        "calibrations": {
            model: {k: v for k, v in c.to_dict().items() if k not in ("saved_to", "description")}
            for model, c in sorted(existing.items())
        },
    }
    write_atomic(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _stored(directory: str | os.PathLike[str] | None) -> dict[str, Calibration]:
    try:
        return load_calibrations(directory)
    except CalibrationError:
        return {}


def save_calibration(
    calibration: Calibration, directory: str | os.PathLike[str] | None = None
) -> Path:
    """Store ``calibration`` under its model (replacing an older one), atomically and under a
    lock; returns the file. A calibration this module would not apply is refused
    (:class:`CalibrationError`). A damaged file is replaced only by an explicit save."""
    reason = calibration.problem()
    if reason is not None:
        raise CalibrationError(f"not saved: {calibration.describe()}: {reason}")
    path = _file(directory)
    with _locked(path):
        existing = _stored(directory)
        existing[calibration.model] = calibration
        _write(path, existing)
    return path


def forget_calibration(model: str, directory: str | os.PathLike[str] | None = None) -> bool:
    """Remove the calibration stored for exactly ``model``; False when there was none."""
    path = _file(directory)
    if not path.exists():
        return False
    with _locked(path):
        existing = _stored(directory)
        key = next((k for k in existing if model_family(k) == model_family(model)), None)
        if key is None:
            return False
        del existing[key]
        _write(path, existing)
    return True


def model_family(model: str | None) -> str:
    """``anthropic/claude-sonnet-4-5-20250929`` → ``claude-sonnet-4-5-20250929`` (lowercase)."""
    return (model or "").rsplit("/", 1)[-1].strip().lower()


def model_extends(model: str | None, name: str) -> bool:
    """True when ``model`` is ``name`` or a version of it (``claude-sonnet-4-5-20250929`` of
    ``claude-sonnet-4-5``), provider prefixes and case aside."""
    have, want = model_family(model), model_family(name)
    return have == want or have.startswith(want + "-")


def find_calibration(
    model: str, directory: str | os.PathLike[str] | None = None
) -> Calibration | None:
    """The calibration stored for ``model``: its own, else the longest stored name it extends
    (``claude-sonnet-4-5`` serves ``claude-sonnet-4-5-20250929``)."""
    found = [c for name, c in load_calibrations(directory).items() if model_extends(model, name)]
    best = max(found, key=lambda c: len(model_family(c.model)), default=None)
    if best is not None:
        reason = best.problem()
        if reason is not None:
            raise CalibrationError(
                f"the stored calibration for {best.model} is not used: {reason} "
                f"(ctx-lab calibrate --forget {best.model})"
            )
    return best
