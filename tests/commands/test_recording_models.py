"""Every model a shared recording names resolves to a current row of the built-in table by
default; the Gemini 3 recording is sized by its 1M window (no false CTX101/CTX106); a model no
registry knows gets one warning naming the limits it assumed and no finding made from them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from shared_recordings import GEMINI, MADE_UP, TRANSCRIPTS, made_up_recording

from ctx_lab.check import check_files
from ctx_lab.cli import main
from ctx_lab.models import get_registry
from ctx_lab.recordings.transcripts import load_transcript

needs_shared = pytest.mark.skipif(not GEMINI.is_file(), reason="../shared/real-data is not here")


def recorded_models() -> set[str]:
    names: set[str] = set()
    for path in sorted(TRANSCRIPTS.rglob("*.json*")):
        try:
            names |= set(load_transcript(path).models)
        except Exception:  # a request body beside a cassette is not a session
            continue
    return names


@needs_shared
def test_every_recorded_model_resolves_to_a_current_row() -> None:
    names = recorded_models()
    assert {"claude-opus-4-6", "gemini-3-pro", "gpt-5.5"} <= names
    builtin = get_registry("builtin")
    for name in names:
        found = builtin.get(name)
        assert found.source == "prefix" and found.warning is None, (name, found.warning)
        assert found.prices is not None and found.prices.input_per_mtok, name
        assert found.cited and found.as_of, name
    assert builtin.get("gemini-3-pro").limits.context_window == 1_048_576


@needs_shared
def test_the_gemini_3_recording_has_no_window_findings() -> None:
    report = check_files([GEMINI])
    assert not [f for f in report.findings if f.code in ("CTX101", "CTX106")]
    assert report.exit_code == 0


@needs_shared
def test_a_made_up_model_warns_once_and_invents_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = made_up_recording(tmp_path)
    assert main(["check", str(path), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert not report["findings"]
    said = [w for w in report["warnings"] if MADE_UP in w]
    assert len(said) == 1 and "8,192-token window" in said[0] and "assumed" in said[0]
    assert main(["replay", str(path), "--format", "json"]) == 0
    replayed = json.loads(capsys.readouterr().out)
    assert [w for w in replayed["warnings"] if "no registry here knows" in w] == [
        said[0].split(": ", 1)[1]  # check names the file first
    ]
    assert not [w for w in replayed["warnings"] if "over the budget" in w]
    for command in ("cache", "policies"):  # every surface says it, once
        assert main([command, str(path), "--format", "json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert len([w for w in out["warnings"] if "no registry here knows" in w]) == 1, command
    # a recording of the same calls under Gemini 3 is not refused either
    assert main(["check", str(GEMINI)]) == 0
