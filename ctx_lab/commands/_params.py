"""Argument types shared by the CLI flags and the REST query values: each spelled one way, each
checked by the same validator as the Python API (:mod:`ctx_lab.validate`)."""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Annotated, Any, TypeVar

from ..choices import RELEVANCE_RULES, CacheReading
from ..errors import UsageError
from ..validate import parse_whole_number, shown
from ._param import CLI, Param, hidden

__all__ = [
    "RELEVANCE_CHOICES",
    "AllowPrivate",
    "AllowRemote",
    "Budget",
    "CacheReadingParam",
    "Model",
    "Now",
    "Registry",
    "counter",
    "flag",
    "given_files",
    "parse_lines",
    "parse_now",
    "whole",
]

T = TypeVar("T")
# the packet's relevance rules (ctx_lab.packet.RELEVANCE_RULES, held equal by a test), named
# here so that building the parser does not import the packet engine
RELEVANCE_CHOICES = RELEVANCE_RULES  # ctx_lab.choices.RelevanceRule
_LINES = re.compile(r"^\s*(\d+)\s*(?:(-)\s*(\d*)\s*)?$")


def flag(parse: Callable[[str], T]) -> Callable[[str], T]:
    """An argparse ``type=`` from a validator that raises :class:`UsageError`."""

    def convert(text: str) -> T:
        try:
            return parse(text)
        except UsageError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = getattr(parse, "__name__", "value")
    return convert


def parse_lines(text: str) -> tuple[int, int]:
    """``A-B`` → (A, B); ``A-`` → (A, 0) (to the end); ``A`` → (A, A)."""
    match = _LINES.match(text)
    if not match:
        raise UsageError(f"lines {text!r}: use A-B, A- (to the end) or A")
    start = int(match[1])
    if match[2] is None:
        return start, start
    return start, int(match[3]) if match[3] else 0


def parse_now(text: str) -> datetime:
    """An ISO 8601 date or date-time (``Z`` allowed); naive values are local time."""
    try:
        moment = datetime.fromisoformat(text)
        moment.astimezone(UTC)  # a time at the very edge of the calendar cannot be used
    except (ValueError, OverflowError):
        raise UsageError(
            f"{shown(text)} is not an ISO 8601 date or date-time in range "
            "(e.g. 2026-06-15T12:00:00Z)"
        ) from None
    return moment


def whole(name: str) -> Callable[[str], int]:
    """argparse type for flag ``name``: :func:`ctx_lab.validate.parse_whole_number`."""
    return flag(lambda text: parse_whole_number(text, name))


def counter(default_text: str, *, allow_all: bool = False, model: bool = False) -> Param:
    """``--counter NAME``: any counter, built in or installed (``all`` where allowed; ``model``
    — the model's own tokenizer — where the command takes a model)."""
    extra = " or 'all'" if allow_all else ""
    if model:
        extra += ", or model (the --model's own tokenizer)"
        default_text = f"the model's tokenizer with --model, else {default_text}"
    return Param(
        f"token counter: cl100k, o200k, bytes/4, chars/3, an installed one{extra}; "
        "`ctx-lab counters` lists them",
        metavar="NAME",
        default_text=default_text,
        max_length=200,
    )


# parameters several commands share, declared once
Budget = Annotated[
    int | None,
    Param(
        "token budget",
        metavar="N",
        exclusive="size",
        default_text="the project's",
        session="budget",
    ),
]
Model = Annotated[
    str | None,
    Param(
        "use the model's effective input budget",
        metavar="M",
        exclusive="size",
        max_length=200,
        session="model",
        names_model=True,
    ),
]


def given_files(file: Any, nothing: str) -> list[Any]:
    """One file or a corpus as a list — a path (``str`` or ``PathLike``) is one file, never
    its characters — and a usage error saying ``nothing`` when the corpus is empty."""
    files = [file] if isinstance(file, str | os.PathLike) else list(file)
    if not files:
        raise UsageError(nothing)
    return files


CacheReadingParam = Annotated[
    CacheReading,
    Param(
        "which cache entries a call can read: whole entries ending at, or within 20 blocks "
        "before, one of its breakpoints (Anthropic's documented lookback), or any prefix it "
        "shares with a live entry"
    ),
]
Now = Annotated[
    datetime | None,
    Param(
        "the current time (ISO 8601) that dates the packet and the entries' ages",
        metavar="ISO",
        parse=parse_now,
        max_length=64,
        session="now",
        default_text="now",
    ),
]
AllowPrivate = Annotated[
    bool,
    Param(
        "let http(s) reach loopback and private addresses",
        surfaces=CLI,
        session="allow_private",
    ),
]
AllowRemote = Annotated[bool, hidden("whether http(s) reads are allowed", session="allow_remote")]
Registry = Annotated[
    str | None,
    Param(
        "where --model's limits (and prices) come from: builtin, models-dev or an installed "
        "model source",
        metavar="NAME",
        default_text="builtin",
        max_length=200,
    ),
]
