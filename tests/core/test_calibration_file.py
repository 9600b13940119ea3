"""The calibrations file (tokens/_calibration_file.py): records read and changed as stored, a
damaged record refused with the file named, an explicit save replacing a damaged file, and
the other records of a file kept as they were."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctx_lab.errors import CalibrationError
from ctx_lab.tokens import (
    Calibration,
    find_calibration,
    forget_calibration,
    load_calibrations,
    save_calibration,
)


def _fitted(model: str, ratio: float = 1.2) -> Calibration:
    return Calibration(model=model, base="bytes/4", ratio=ratio, low=1.1, high=1.3, calls=50)


def test_save_read_and_forget_in_a_directory_of_ones_own(tmp_path: Path) -> None:
    saved = _fitted("claude-a").save(tmp_path)
    assert saved.saved_to == str(tmp_path / "calibrations.json")
    assert save_calibration(_fitted("claude-b"), tmp_path) == tmp_path / "calibrations.json"
    stored = json.loads((tmp_path / "calibrations.json").read_text(encoding="utf-8"))
    assert stored["version"] == 1 and list(stored["calibrations"]) == ["claude-a", "claude-b"]
    assert not {"saved_to", "description"} & set(stored["calibrations"]["claude-a"])
    assert set(load_calibrations(tmp_path)) == {"claude-a", "claude-b"}
    assert forget_calibration("claude-a", tmp_path) is True
    assert forget_calibration("claude-a", tmp_path) is False
    assert set(load_calibrations(tmp_path)) == {"claude-b"}
    assert forget_calibration("claude-a", tmp_path / "none") is False


def test_a_save_keeps_the_other_records_as_stored(tmp_path: Path) -> None:
    _fitted("claude-a").save(tmp_path)
    path = tmp_path / "calibrations.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["calibrations"]["claude-a"]["note-from-a-newer-version"] = "kept"
    path.write_text(json.dumps(data), encoding="utf-8")
    _fitted("claude-b").save(tmp_path)
    again = json.loads(path.read_text(encoding="utf-8"))["calibrations"]
    assert again["claude-a"]["note-from-a-newer-version"] == "kept"


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("{not json", "unreadable"),
        ('{"version": 1}', "no 'calibrations' object"),
        ('{"calibrations": {"claude-a": "1.2"}}', "not an object"),
        ('{"calibrations": {"claude-a": {"model": "claude-a"}}}', "damaged record"),
    ],
)
def test_a_damaged_file_is_refused_naming_it_and_a_save_replaces_it(
    tmp_path: Path, text: str, why: str
) -> None:
    path = tmp_path / "calibrations.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CalibrationError, match=why) as caught:
        load_calibrations(tmp_path)
    assert str(path) in str(caught.value)
    _fitted("claude-b").save(tmp_path)
    assert set(load_calibrations(tmp_path)) == {"claude-b"}
    assert find_calibration("claude-b-20250929", tmp_path) is not None


def test_a_calibration_that_would_not_be_applied_is_not_saved(tmp_path: Path) -> None:
    with pytest.raises(CalibrationError, match="not saved"):
        _fitted("claude-a", ratio=9.0).save(tmp_path)
    assert not (tmp_path / "calibrations.json").exists()
