"""What a command returns, read from its declaration: the result classes its function's return
annotation names (string annotations resolved against the names its module imports, including
those imported only for type checking)."""

from __future__ import annotations

import inspect
import sys
import typing
from collections.abc import Callable
from typing import Any

from ..display import RichResult

__all__ = ["result_classes"]


def _checking_names(function: Callable[..., Any]) -> dict[str, Any]:
    """The names ``function``'s module imports only for type checking (``if TYPE_CHECKING:``),
    imported now: what its string annotations refer to."""
    import ast
    import importlib
    import importlib.util

    module = sys.modules[function.__module__]
    names: dict[str, Any] = {}
    for node in ast.walk(ast.parse(inspect.getsource(module))):
        if not (isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING"):
            continue
        for found in node.body:
            if isinstance(found, ast.ImportFrom):
                target = "." * found.level + (found.module or "")
                imported = importlib.import_module(
                    importlib.util.resolve_name(target, module.__package__)
                )
                for alias in found.names:
                    names[alias.asname or alias.name] = getattr(imported, alias.name)
    return names


def result_classes(function: Callable[..., Any]) -> tuple[type[RichResult], ...]:
    """The :class:`RichResult` classes ``function``'s return annotation names (a union names
    several)."""
    namespace = {**vars(sys.modules[function.__module__]), **_checking_names(function)}
    hint = typing.get_type_hints(function, globalns=namespace)["return"]
    named = typing.get_args(hint) or (hint,)
    return tuple(c for c in named if isinstance(c, type) and issubclass(c, RichResult))
