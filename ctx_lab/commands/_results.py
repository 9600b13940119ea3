"""What a command returns, read from its declaration: the result classes its function's return
annotation names (string annotations resolved against the names its module imports, including
those imported only for type checking)."""

from __future__ import annotations

import typing
from collections.abc import Callable
from typing import Any

from ..display import RichResult
from ..wire import resolved_hints

__all__ = ["result_classes"]


def result_classes(function: Callable[..., Any]) -> tuple[type[RichResult], ...]:
    """The :class:`RichResult` classes ``function``'s return annotation names (a union names
    several)."""
    hint = resolved_hints(function)["return"]
    named = typing.get_args(hint) or (hint,)
    return tuple(c for c in named if isinstance(c, type) and issubclass(c, RichResult))
