"""A package's public names, each imported from its module only when first asked for.

``ctx-lab packet`` should not pay for the calibration store, the token report or the plots
just because they live in the packages it uses: a package declares where each public name
lives (one mapping) and :func:`exports` gives it the module ``__getattr__`` and ``__dir__``
that import the module on first use (PEP 562). The type checker reads the same names from an
``if TYPE_CHECKING:`` block beside the mapping, which tests/project/test_lazy_exports.py holds
equal to it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any

__all__ = ["exports"]


def exports(
    package: str, where: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``, whose public name ``n`` is attribute ``n``
    of the submodule ``where[n]`` (relative, such as ``"._cache"``; ``"._ctx08:RULES"`` where
    the module names it otherwise). A name is imported once, then kept on the package like any
    other attribute."""

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attribute = module.partition(":")
        value = getattr(import_module(module, package), attribute or name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(where))

    return __getattr__, __dir__
