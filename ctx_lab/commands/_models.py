"""``models``: model limits, effective input budgets and prices."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ..validate import choice
from .params import whole
from .registry import Command, command

if TYPE_CHECKING:
    from ..models import ModelInfo, ModelList

__all__ = ["models"]


def models(
    name: str | None = None, *, registry: str = "builtin", reserve: int | None = None
) -> ModelInfo | ModelList:
    """The limits of model ``name`` — or every model of ``registry`` when ``name`` is None —
    with ``reserve`` output tokens held back instead of the model's max output."""
    from ..models import describe_model, list_models, registry_names

    choice(registry, registry_names(), "registry")
    if name:
        return describe_model(name, registry, reserve)
    return list_models(registry, reserve)


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", nargs="?", metavar="NAME", help="a model name; omit to list models")
    p.add_argument(
        "--registry",
        metavar="NAME",
        help="builtin prefix table, the offline models.dev data, or an installed model source "
        "(default builtin)",
    )
    p.add_argument(
        "--reserve",
        type=whole("--reserve"),
        metavar="N",
        help="tokens to reserve for output instead of the model's max output",
    )


command(
    Command(
        "models",
        "show a model's context window, output limit, input budget and prices",
        models,
        _arguments,
        epilog="examples:\n  ctx-lab models gpt-4o --format json\n"
        "  ctx-lab models claude-sonnet-4-20250514 --reserve 4096\n"
        "  ctx-lab models anthropic/claude-opus-4-1-20250805 --registry models-dev",
    )
)
