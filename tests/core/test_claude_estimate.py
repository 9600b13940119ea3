"""The built-in Claude estimate: counter="model" for a Claude model counts with bytes/4
calibrated on the shared Claude Code sessions (never plain bytes/4, never silently), a stored
calibration of one's own replaces it, newer tokenizers are said, and the shipped file is what
the script fits from the data today."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from paths import REPO
from shared_recordings import claude_with_usage

from ctx_lab.tokens import Calibration, get_counter, resolve_counter, save_calibration
from ctx_lab.tokens._claude_estimate import (
    DATA,
    NEWER_TOKENIZER,
    builtin_claude_calibration,
    claude_version,
)


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A calibrations directory of the test's own."""
    found = tmp_path / "config"
    monkeypatch.setenv("CTX_LAB_CONFIG_DIR", str(found))
    return found


@pytest.mark.parametrize(
    ("name", "version"),
    [
        ("claude-opus-4-6", (4, 6)),
        ("claude-sonnet-4-5-20250929", (4, 5)),
        ("anthropic/claude-opus-4-20250514", (4, 0)),
        ("claude-3-5-sonnet-20241022", (3, 5)),
        ("claude-3-opus-20240229", (3, 0)),
        ("claude-haiku-5-5", (5, 5)),
        ("claude-test-2", None),
        ("gpt-4o", None),
    ],
)
def test_claude_versions_are_read_from_the_name(name: str, version: tuple | None) -> None:
    assert claude_version(name) == version


def test_a_claude_model_counts_with_the_built_in_estimate_and_says_so(config: Path) -> None:
    builtin = builtin_claude_calibration()
    choice = resolve_counter("model", "claude-sonnet-4-5-20250929", "bytes/4")
    assert choice.name == builtin.counter_name and not choice.exact
    assert choice.calibration == builtin and choice.name != "bytes/4"
    assert "ctx_lab's Claude estimate" in choice.note and "public Claude Code" in choice.note
    assert "sessions it never saw" in choice.note and "calibrate" in choice.note
    text = "The build fails because the cache is stale; clear it and run the tests again."
    assert get_counter(choice.name).count(text) > get_counter("bytes/4").count(text)
    budget = resolve_counter("model", "claude-opus-4-6", "bytes/4", budget=True)
    assert budget.name == builtin.counter_for(budget=True) and "upper edge" in budget.note
    # a name without a version is not guessed at
    assert resolve_counter("model", "claude-test-2", "bytes/4").name == "bytes/4"


def test_a_newer_tokenizer_is_said_and_budgets_count_its_most(config: Path) -> None:
    middle = resolve_counter("model", "claude-opus-4-7", "bytes/4")
    assert "newer tokenizer" in middle.note and "may be that much low" in middle.note
    budget = resolve_counter("model", "claude-opus-5", "bytes/4", budget=True)
    older = resolve_counter("model", "claude-opus-4-6", "bytes/4", budget=True)
    newer, before = dict(get_counter(budget.name).factors), dict(get_counter(older.name).factors)
    assert abs(newer["prose"] / before["prose"] - NEWER_TOKENIZER) < 0.001
    assert abs(newer["tool"] / before["tool"] - NEWER_TOKENIZER) < 0.01
    text = "word " * 400
    assert get_counter(budget.name).count(text) > 1.3 * get_counter(older.name).count(text)


def test_a_stored_calibration_replaces_the_built_in_estimate(config: Path) -> None:
    save_calibration(
        Calibration(
            model="claude-opus-4-6", base="bytes/4", ratio=1.5, low=1.4, high=1.6, calls=40
        ),
        config,
    )
    choice = resolve_counter("model", "claude-opus-4-6-20260101", "bytes/4")
    assert choice.name == "bytes/4*1.5" and "ctx_lab's Claude estimate" not in choice.note


@pytest.mark.slow
@pytest.mark.skipif(not claude_with_usage(), reason="../shared/real-data is not here")
def test_the_shipped_estimate_is_what_the_script_fits_today() -> None:
    spec = importlib.util.spec_from_file_location(
        "fit_claude_estimate", REPO / "scripts" / "fit_claude_estimate.py"
    )
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert script.text_of(script.build()) == DATA.read_text(encoding="utf-8")
    stored = json.loads(DATA.read_text(encoding="utf-8"))
    assert {s["repository"] for s in stored["sources"]} == {
        "marot/spotter",
        "codemie-ai/codemie-code",
    }
    held = stored["held_back"]
    assert held["calls"] >= 400
    # issue 61's bar, on sessions it never saw
    assert 0.85 <= held["inside_band"] <= 0.95
    assert held["median_half_width"] <= 0.08 and held["median_abs_error"] <= 0.02
