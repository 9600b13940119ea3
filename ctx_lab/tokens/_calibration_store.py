"""The stored calibrations read back (cached by the file's identity), saved and forgotten; and
which stored calibration serves a model (see :mod:`._calibration`; the file itself is
:mod:`._calibration_file`)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from ..errors import CalibrationError
from ..files import FileIdentity, identity
from ._calibration import Calibration
from ._calibration_file import Records, calibrations_file, change_records, read_records

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
    path = calibrations_file(directory)
    try:
        key = identity(path)
    except OSError:
        return {}
    with _lock:
        found = _cache.get(path)
        if found is not None and found[0] == key:
            return dict(found[1])
    try:
        records = read_records(path)
    except OSError:
        return {}
    try:
        loaded = {model: Calibration.from_dict(r) for model, r in records.items()}
    except (CalibrationError, KeyError, TypeError, ValueError) as exc:
        raise CalibrationError(f"calibrations file {path} has a damaged record: {exc}") from None
    with _lock:
        _cache[path] = (key, loaded)
    return dict(loaded)


def save_calibration(
    calibration: Calibration, directory: str | os.PathLike[str] | None = None
) -> Path:
    """Store ``calibration`` under its model (replacing an older one), atomically and under a
    lock; returns the file (:meth:`Calibration.save`, which refuses one it would not apply)."""
    return Path(str(calibration.save(directory).saved_to))


def forget_calibration(model: str, directory: str | os.PathLike[str] | None = None) -> bool:
    """Remove the calibration stored for exactly ``model``; False when there was none."""
    if not calibrations_file(directory).exists():
        return False
    forgotten: list[str] = []

    def drop(records: Records) -> bool:
        key = next((k for k in records if model_family(k) == model_family(model)), None)
        if key is not None:
            del records[key]
            forgotten.append(key)
        return key is not None

    change_records(directory, drop)
    return bool(forgotten)


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
