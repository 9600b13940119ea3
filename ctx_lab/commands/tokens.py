"""``ctx-lab tokens``: count the tokens of files, standard input or a cell body."""

from __future__ import annotations

import argparse

from ..display import RichResult
from ..token_report import TextInput, count_texts, read_text_file
from ..tokens import get_counter
from .options import add_counter
from .registry import Command, Invocation, command


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="*", metavar="FILE", help="files to count; '-' is standard input")
    add_counter(p, "cl100k", allow_all=True)


def _run(args: argparse.Namespace, inv: Invocation) -> RichResult:
    if args.counter != "all":
        get_counter(args.counter)  # an unknown name is a usage error before any file is read
    warnings: list[str] = []
    inputs: list[TextInput] = []
    if not args.files:
        label = "<cell>" if inv.cell is not None else "-"
        inputs.append(TextInput(label, inv.read_stdin()))
    for name in args.files:
        if name == "-":
            inputs.append(TextInput("-", inv.read_stdin()))
            continue
        found = read_text_file(name, warnings)
        if found is not None:
            inputs.append(found)
    return count_texts(inputs, args.counter, warnings=warnings)


TOKENS = command(
    Command(
        "tokens",
        "count tokens of files, stdin or a cell with one or all counters",
        _arguments,
        _run,
        epilog="examples:\n  ctx-lab tokens README.md --counter all\n  echo hi | ctx-lab tokens -",
    )
)
