"""Recordings that lack something every command needs: a real Codex 0.128 rollout without
``token_count`` (no usage) and without ``turn_context`` (no model). Every command that reads a
session says the same about it — a usage error naming ``--model`` (exit 2), never an invented
model or window; given a model, its calls are counted and the report says the sizes are
counts, never "0 calls"."""

from __future__ import annotations

import json

import pytest
from paths import SHARED

from ctx_lab.recordings.transcripts import NO_USAGE, load_transcript

ROLLOUT = (
    SHARED
    / "real-data"
    / "transcripts"
    / "codemie-ai__codemie-code"
    / "rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl"
)
needs_rollout = pytest.mark.skipif(not ROLLOUT.is_file(), reason="../shared/real-data is absent")
SESSION_COMMANDS = ("cache", "policies", "replay", "anatomy", "check")


@needs_rollout
@pytest.mark.parametrize("name", SESSION_COMMANDS)
def test_a_recording_without_a_model_is_a_usage_error_naming_model(run_cli, name) -> None:
    code, out, err = run_cli(name, str(ROLLOUT))
    assert code == 2 and "pass --model" in err and "Traceback" not in err, (name, err)
    assert out == ""


@needs_rollout
def test_a_rollout_without_usage_is_counted_and_says_so(run_cli) -> None:
    calls = len(load_transcript(ROLLOUT).calls)
    assert calls == 18  # COUNTS.md: 38 function calls in 18 model calls, no token_count
    code, out, err = run_cli("cache", str(ROLLOUT), "--model", "gpt-5.5", "--format", "json")
    report = json.loads(out)
    assert code == 0 and len(report["calls"]) == calls and report["sizes"] == "counts"
    assert NO_USAGE in report["warnings"]
    assert all(c["reported"] is None for c in report["calls"])
    code, out, err = run_cli("cache", str(ROLLOUT), "--model", "gpt-5.5")
    assert code == 0 and f"{calls} calls, sizes from counts" in out and NO_USAGE in err
