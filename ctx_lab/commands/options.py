"""Argument declarations shared by several commands, so each flag is spelled one way."""

from __future__ import annotations

import argparse

__all__ = ["add_counter", "non_negative_int"]


def non_negative_int(text: str) -> int:
    """argparse type: an integer ≥ 0 (``1_000`` and ``1,000`` are accepted)."""
    try:
        value = int(text.replace(",", "").replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative; use a number ≥ 0")
    return value


def add_counter(parser: argparse.ArgumentParser, default: str, *, allow_all: bool = False) -> None:
    """``--counter NAME``: any registered counter (``all`` too where the command allows it)."""
    extra = " or 'all'" if allow_all else ""
    parser.add_argument(
        "--counter",
        default=default,
        metavar="NAME",
        help=f"token counter: cl100k, o200k, bytes/4, chars/3, a registered one{extra} "
        f"(default {default})",
    )
