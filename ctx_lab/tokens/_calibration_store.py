"""The calibrations file: read (cached by the file's identity), saved under a lock, forgotten;
and which stored calibration serves a model (see :mod:`._calibration`)."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import CalibrationError, CtxLabError
from ..files import FileIdentity, identity, locked, read_text, write_atomic
from ._calibration import FILE_VERSION, Calibration, _file

__all__ = [
    "find_calibration",
    "forget_calibration",
    "load_calibrations",
    "model_extends",
    "model_family",
    "save_calibration",
]

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
