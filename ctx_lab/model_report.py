"""Deprecated: the model reports live in :mod:`ctx_lab.models` now."""

from ._deprecated import module_getattr

__getattr__ = module_getattr(
    __name__,
    {
        name: f"ctx_lab.models:{name}"
        for name in ("ModelInfo", "ModelList", "describe_model", "list_models")
    },
)
