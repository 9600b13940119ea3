"""``ctx-lab models``: model limits, effective input budgets and prices."""

from __future__ import annotations

import argparse

from ..display import RichResult
from ..model_report import describe_model, list_models
from ..models import REGISTRY_NAMES
from .options import non_negative_int
from .registry import Command, Invocation, command


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", nargs="?", metavar="NAME", help="a model name; omit to list models")
    p.add_argument(
        "--registry",
        choices=REGISTRY_NAMES,
        default="builtin",
        help="builtin prefix table or the offline models.dev data (default builtin)",
    )
    p.add_argument(
        "--reserve",
        type=non_negative_int,
        metavar="N",
        help="tokens to reserve for output instead of the model's max output",
    )


def _run(args: argparse.Namespace, inv: Invocation) -> RichResult:
    if args.name:
        return describe_model(args.name, args.registry, args.reserve)
    return list_models(args.registry, args.reserve)


MODELS = command(
    Command(
        "models",
        "show a model's context window, output limit, input budget and prices",
        _arguments,
        _run,
        epilog="examples:\n  ctx-lab models gpt-4o --format json\n"
        "  ctx-lab models claude-sonnet-4-20250514 --reserve 4096\n"
        "  ctx-lab models anthropic/claude-opus-4-1-20250805 --registry models-dev",
    )
)
