"""Prompt caching's rules as data, per provider and model family, each row with its source and
the day it was read (users may add rows of their own, which win: :func:`cache_rule`).

Only what the providers document is here; where sources disagree, the row's ``note`` says so.
Prices are multipliers of the model's input price (the registries hold the prices).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

__all__ = ["CACHE_RULES", "CachePrices", "CacheRule", "cache_prices", "cache_rule"]

ANTHROPIC_DOC = "https://platform.claude.com/docs/en/build-with-claude/prompt-caching"
OPENAI_DOC = "https://platform.openai.com/docs/guides/prompt-caching"
OPENAI_RETENTION = (
    "https://platform.openai.com/docs/api-reference/responses/create"
    "#responses-create-prompt_cache_retention"
)
OPENAI_CACHE_OPTIONS = (
    "https://platform.openai.com/docs/api-reference/responses/create"
    "#responses-create-prompt_cache_options"
)
GEMINI_DOC = "https://ai.google.dev/gemini-api/docs/caching"


@dataclass(frozen=True)
class CacheRule:
    """How one family of models caches prompts.

    ``minimum`` is the shortest prefix that is cached at all; ``step`` the granularity of a
    cached prefix (OpenAI caches in 128-token increments; 1 where any length is kept);
    ``breakpoints`` the most explicit cache points one request may set (0: automatic only);
    ``lifetimes`` the cache lifetimes in seconds, default first, refreshed by every hit;
    ``write`` the price of writing per lifetime and ``read`` of reading, as multipliers of the
    input price (``read`` None where it differs by model: the registry's cached-input price);
    ``per_model``: a cache serves only the model that wrote it.
    """

    provider: str
    pattern: str  # a regular expression on the model name (lower case)
    minimum: int
    step: int = 1
    breakpoints: int = 0
    lifetimes: tuple[int, ...] = (300,)
    write: tuple[float, ...] = (1.0,)
    read: float | None = None  # None: the model's own cached-input price (from a registry)
    per_model: bool = True
    source: str = ""
    as_of: str = ""
    note: str = ""
    render_order: tuple[str, ...] = field(default=("tools", "system", "messages"))

    def matches(self, model: str) -> bool:
        """Whether ``model`` belongs to this row's family."""
        return re.search(self.pattern, model.lower()) is not None

    def write_multiplier(self, lifetime: int) -> float:
        """The price of writing a prefix kept ``lifetime`` seconds (the default's when the
        lifetime is not one of this row's)."""
        if lifetime in self.lifetimes:
            return self.write[self.lifetimes.index(lifetime)]
        return self.write[0]


def _anthropic(pattern: str, minimum: int, note: str = "") -> CacheRule:
    """A Claude family: up to 4 breakpoints, 5-minute (default) or 1-hour lifetimes written at
    1.25× or 2× the input price, read at 0.1× (Anthropic's prompt caching guide)."""
    return CacheRule(
        "anthropic",
        pattern,
        minimum,
        breakpoints=4,
        lifetimes=(300, 3600),
        write=(1.25, 2.0),
        read=0.1,
        source=ANTHROPIC_DOC,
        as_of="2026-11-28",
        note=note,
    )


CLAUDE_5_MINIMUMS = (
    "https://dev.to/creeta/claudes-prompt-cache-fails-silently-below-1024-tokens-1ch1 (quoting "
    "Anthropic's prompt caching page: 512 tokens for Opus 5, Fable 5 and Mythos 5; 1,024 for "
    "Opus 4.8, Sonnet 5, Sonnet 4.6/4.5 and Opus 4.1/4; 2,048 for Opus 4.7; 4,096 for Opus "
    "4.6, Opus 4.5 and Haiku 4.5), read 2026-12-07"
)


def _claude5(pattern: str, minimum: int, note: str) -> CacheRule:
    """A Claude 5 family: the cache read price differs by model (0.05x on the 5.5 models,
    0.025x on Fable 5.1: their rows' prices), so the rule carries no read multiplier."""
    return replace(
        _anthropic(pattern, minimum, note),
        read=None,
        source=ANTHROPIC_DOC + " ; " + CLAUDE_5_MINIMUMS,
    )


CACHE_RULES: tuple[CacheRule, ...] = (
    _claude5(r"claude-(opus-5(?!-5)|fable-5(?!-)|mythos-5)", 512, "512 by the quoted table"),
    _claude5(r"claude-sonnet-5(?!-5)", 1024, "1,024 by the quoted table"),
    _claude5(
        r"claude-(opus-5-5|sonnet-5-5|haiku-5-5|fable-5-[12]|mythos-5-[12])",
        1024,
        "no minimum found for this model: 1,024, the family's common one, is assumed",
    ),
    _anthropic(r"claude-opus-4-8", 1024, "1,024 by the quoted table (" + CLAUDE_5_MINIMUMS + ")"),
    _anthropic(
        r"claude-sonnet-4-6",
        1024,
        "sources disagree: 1,024 in the table quoted by "
        + CLAUDE_5_MINIMUMS.split(" (")[0]
        + ", 2,048 at https://docs.orq.ai/docs/proxy/prompt-caching; 1,024 is kept",
    ),
    _anthropic(
        r"claude-(opus-4-[56]|haiku-4-5)",
        4096,
        "the minimum was 1,024 before these models; third-party pages still say 1,024",
    ),
    _anthropic(r"claude-opus-4-7", 2048),
    _anthropic(r"claude-(3-haiku|3-5-haiku|haiku-3)", 2048),
    _anthropic(r"claude", 1024),
    CacheRule(
        "openai",
        r"^gpt-(5\.([6-9]|\d\d)|[6-9])",
        1024,
        step=128,
        breakpoints=4,
        lifetimes=(1800,),
        write=(1.25,),
        source=OPENAI_DOC + " ; " + OPENAI_CACHE_OPTIONS,
        as_of="2026-11-28",
        note="GPT-5.6 and later: one implicit breakpoint plus up to 4 written per request, "
        "matched over the conversation's latest 80; ttl 30m, a minimum (the backend may keep "
        "longer); writes billed at 1.25× input and reported as cache_write_tokens",
    ),
    CacheRule(
        "openai",
        r"^gpt-5\.5",
        1024,
        step=128,
        lifetimes=(86400,),
        source=OPENAI_RETENTION,
        as_of="2026-11-28",
        note="gpt-5.5 and gpt-5.5-pro support only the 24h (extended) retention; writes are "
        "not billed; the read discount is the model's cached input price",
    ),
    CacheRule(
        "openai",
        r"^(gpt-5\.[24]|gpt-5\.1(-codex(-mini)?|-chat-latest)?|gpt-5(-codex)?|gpt-4\.1)"
        r"(-\d{4}-\d{2}-\d{2})?$",
        1024,
        step=128,
        lifetimes=(86400, 600),
        source=OPENAI_RETENTION + " ; " + OPENAI_DOC,
        as_of="2026-11-28",
        note="the models the guide lists with extended retention (gpt-5.4, 5.2, 5.1, "
        "5.1-codex(-mini), 5.1-chat-latest, gpt-5, gpt-5-codex, gpt-4.1; as of 2026-03): 24 h "
        "by default for organizations without zero data retention; in memory (5–10 minutes "
        "idle, at most an hour) with it or when prompt_cache_retention is in_memory",
    ),
    CacheRule(
        "openai",
        r"^(gpt-|o\d|chatgpt|codex)",
        1024,
        step=128,
        source=OPENAI_DOC,
        as_of="2026-11-28",
        note="automatic from 1,024 tokens in 128-token steps, routed by prefix and "
        "prompt_cache_key; kept 5–10 minutes idle (up to an hour off-peak, 24 h with extended "
        "retention); the read discount is the model's cached input price (0.1–0.5 of input)",
    ),
    CacheRule(
        "google",
        r"gemini",
        1024,
        source=GEMINI_DOC,
        as_of="2026-11-28",
        note="implicit caching; the minimum is 1,024 (Flash) or 2,048–4,096 (Pro) by model; "
        "the read price is the model's cached input price",
    ),
)


def cache_rule(model: str, rules: Sequence[CacheRule] = ()) -> CacheRule | None:
    """The first rule (``rules`` given first, then :data:`CACHE_RULES`) whose family
    ``model`` belongs to, or None."""
    if not rules:
        return _builtin_rule(model)
    return _first_rule(model, (*rules, *CACHE_RULES))


@lru_cache(maxsize=512)  # a session asks for its few models on every call (bounded: any name)
def _builtin_rule(model: str) -> CacheRule | None:
    return _first_rule(model, CACHE_RULES)


def _first_rule(model: str, rules: Sequence[CacheRule]) -> CacheRule | None:
    return next((rule for rule in rules if rule.matches(model)), None)


@dataclass(frozen=True)
class CachePrices:
    """USD per million input tokens sent fresh, read from the cache and written to it (the
    default lifetime's write; ``write_hour`` for an hour's), None where unknown."""

    input: float | None = None
    read: float | None = None
    write: float | None = None
    write_hour: float | None = None

    def cost(self, fresh: int, read: int = 0, write: int = 0, hour: int = 0) -> float | None:
        """USD of an input split as ``fresh`` tokens, ``read`` from the cache and ``write``
        written to it (``hour`` of them for an hour); None where a price it needs is unknown."""
        needed = [(fresh, self.input), (read, self.read), (write - hour, self.write),
                  (hour, self.write_hour or self.write)]  # fmt: skip
        if any(tokens and price is None for tokens, price in needed):
            return None
        return sum(tokens * (price or 0.0) for tokens, price in needed) / 1_000_000


def cache_prices(model: str, prices: Any, rules: Sequence[CacheRule] = ()) -> CachePrices:
    """The one pricing of a model's cache, for replay and ``ctx-lab cache`` alike: a registry's
    prices (``ModelPrices``) first; where it has no cache price, the rule's documented multiplier
    of the input price (Anthropic's reads and writes); else unknown."""
    given = prices.input_per_mtok if prices is not None else None
    read = prices.cache_read_per_mtok if prices is not None else None
    write = prices.cache_write_per_mtok if prices is not None else None
    rule = cache_rule(model, rules)
    if given is None:
        return CachePrices(read=read, write=write)
    if rule is None:
        return CachePrices(given, read, write, write)
    if read is None and rule.read is not None:
        read = round(given * rule.read, 6)
    if write is None:
        write = round(given * rule.write[0], 6)
    hour = getattr(prices, "cache_write_1h_per_mtok", None)
    if hour is None:
        hour = round(given * rule.write[-1], 6) if len(rule.write) > 1 else write
    return CachePrices(given, read, write, hour)
