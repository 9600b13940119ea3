"""Calibrations: how a model's provider-reported input tokens relate to a named counter's count
of the same calls (fitted from recorded sessions by :func:`ctx_lab.conversation.calibrate`),
kept in a small user config file that ``counter="model"`` consults for models without an exact
tokenizer here.

The file is ``calibrations.json`` in the user config directory (``platformdirs``'s, e.g.
``~/.config/ctx-lab``), or in ``$CTX_LAB_CONFIG_DIR`` when that is set — tests and notebooks
set it to a directory of their own.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..display import RichResult, escape, html_table
from ..errors import CalibrationError, CtxLabError
from ..files import read_text, write_atomic

__all__ = [
    "CALIBRATIONS_FILE",
    "CONFIG_ENV",
    "Calibration",
    "calibrations_path",
    "config_dir",
    "find_calibration",
    "load_calibrations",
    "save_calibration",
]

CONFIG_ENV = "CTX_LAB_CONFIG_DIR"
CALIBRATIONS_FILE = "calibrations.json"
FILE_VERSION = 1
METHODS = ("ratio", "growth")


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

    payload_kind = "calibration"

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
        """The stored and served form."""
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
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise CalibrationError(
                f"not a calibration record ({type(exc).__name__}: {exc})"
            ) from None
        if not 0 < made.low <= made.ratio <= made.high or made.calls < 1:
            raise CalibrationError(f"inconsistent calibration record for {made.model!r}")
        return made

    def to_text(self) -> str:
        """The description, the method and where it was saved."""
        lines = [self.describe()]
        lines.append(
            f"counter {self.counter_name} (inexact); method {self.method}"
            + (f", {self.overhead} tokens per call not in the transcripts" if self.overhead else "")
            + f"; {self.transcripts} transcript{'s' if self.transcripts != 1 else ''}"
        )
        if self.saved_to:
            lines.append(f"saved to {self.saved_to}: counter=model uses it for {self.model}")
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


_cache: dict[Path, tuple[tuple[int, int], dict[str, Calibration]]] = {}
_lock = threading.Lock()


def load_calibrations(
    directory: str | os.PathLike[str] | None = None,
) -> dict[str, Calibration]:
    """The stored calibrations by model (empty when there is no file); cached by the file's
    size and modification time. Raises :class:`CalibrationError` for a damaged file."""
    path = _file(directory)
    try:
        stat = path.stat()
    except OSError:
        return {}
    key = (stat.st_size, stat.st_mtime_ns)
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


def save_calibration(
    calibration: Calibration, directory: str | os.PathLike[str] | None = None
) -> Path:
    """Store ``calibration`` under its model (replacing an older one), atomically; returns the
    file. A damaged file is replaced only by an explicit save, never read around."""
    path = _file(directory)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        existing = load_calibrations(directory)
    except CalibrationError:
        existing = {}
    existing[calibration.model] = calibration
    data = {
        "version": FILE_VERSION,
        "calibrations": {
            model: {k: v for k, v in c.to_dict().items() if k not in ("saved_to", "description")}
            for model, c in sorted(existing.items())
        },
    }
    write_atomic(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return path


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
    return max(found, key=lambda c: len(model_family(c.model)), default=None)
