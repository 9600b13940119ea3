"""Where the calibrations file lives, and its records read and changed as plain JSON objects.

The file is ``calibrations.json`` in the user config directory (``platformdirs``'s, e.g.
``~/.config/ctx-lab``), or in ``$CTX_LAB_CONFIG_DIR`` when that is set. A change is a
read-modify-write under a lock across processes (``calibrations.json.lock``) and lands
atomically, so concurrent saves all keep their records. This module knows the file, not what a
calibration means: :mod:`._calibration` builds and checks one, :mod:`._calibration_store` reads
them back as :class:`~._calibration.Calibration` objects.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..errors import CalibrationError, CtxLabError
from ..files import locked, read_text, write_atomic

__all__ = [
    "CALIBRATIONS_FILE",
    "CONFIG_ENV",
    "FILE_VERSION",
    "calibrations_file",
    "calibrations_path",
    "change_records",
    "config_dir",
    "read_records",
]

CONFIG_ENV = "CTX_LAB_CONFIG_DIR"
CALIBRATIONS_FILE = "calibrations.json"
FILE_VERSION = 1
NOT_STORED = ("saved_to", "description")  # a record's fields that describe it, not the fit

Records = dict[str, Mapping[str, Any]]


def config_dir() -> Path:
    """``$CTX_LAB_CONFIG_DIR`` when set, else the platform's user config directory."""
    chosen = os.environ.get(CONFIG_ENV, "").strip()
    if chosen:
        return Path(chosen).expanduser()
    import platformdirs

    return platformdirs.user_config_path("ctx-lab", appauthor=False)


def calibrations_path(directory: str | os.PathLike[str] | None = None) -> Path:
    """The directory of the calibrations file: ``directory``, default :func:`config_dir`."""
    return Path(directory).expanduser() if directory is not None else config_dir()


def calibrations_file(directory: str | os.PathLike[str] | None = None) -> Path:
    """The calibrations file in ``directory`` (default :func:`config_dir`)."""
    return calibrations_path(directory) / CALIBRATIONS_FILE


def read_records(path: Path) -> Records:
    """The records of the file at ``path`` by model, as stored. Raises :class:`OSError` when
    there is no file and :class:`CalibrationError` for a damaged one."""
    if not path.exists():
        raise FileNotFoundError(path)
    try:
        data = json.loads(read_text(path))
    except (CtxLabError, ValueError) as exc:
        raise CalibrationError(f"calibrations file {path} is unreadable: {exc}") from None
    records = data.get("calibrations") if isinstance(data, Mapping) else None
    if not isinstance(records, Mapping):
        raise CalibrationError(f"calibrations file {path} has no 'calibrations' object")
    if not all(isinstance(v, Mapping) for v in records.values()):
        raise CalibrationError(f"calibrations file {path} has a record that is not an object")
    return {str(k): v for k, v in records.items()}


def change_records(
    directory: str | os.PathLike[str] | None, change: Callable[[Records], bool]
) -> Path:
    """Read the records, let ``change`` edit them in place and, when it says it changed them,
    write them back — under the file's lock, atomically. A damaged file reads as no records
    (it is replaced only by an explicit change). Returns the file."""
    path = calibrations_file(directory)
    path.parent.mkdir(parents=True, exist_ok=True)
    with locked(path):
        try:
            records = read_records(path)
        except (OSError, CalibrationError):
            records = {}
        if change(records):
            _write(path, records)
    return path


def _write(path: Path, records: Mapping[str, Mapping[str, Any]]) -> None:
    """The file with ``records``, sorted by model, without the fields that only describe them."""
    data = {
        "version": FILE_VERSION,
        "calibrations": {
            model: {k: v for k, v in record.items() if k not in NOT_STORED}
            for model, record in sorted(records.items())
        },
    }
    write_atomic(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
