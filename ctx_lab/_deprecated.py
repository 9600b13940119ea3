"""Deprecated names and import paths: they still work, warn once per use, and say the new name.

A module that lost names calls :func:`module_getattr` to build its ``__getattr__``, so the new
home is imported only when an old name is used — no import cycle comes back.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["module_getattr"]


def module_getattr(module: str, moved: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``moved``: old name → ``"new.module:new_name"``."""

    def __getattr__(name: str) -> Any:
        target = moved.get(name)
        if target is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        new_module, _, new_name = target.partition(":")
        warnings.warn(
            f"{module}.{name} is deprecated; use {new_module}.{new_name}",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module(new_module), new_name)

    return __getattr__
