"""``tokens`` and ``counters``: count files or text with one or every counter; list the
counters (built in and installed as plugins) and whether each works here."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any

from ..errors import UsageError
from ..files import display_path
from . import _params as params
from ._param import ALL, SERVED, STDIN, Param, hidden, inputs_confined
from ._registry import Command, Invocation, command

if TYPE_CHECKING:
    from ..tokens import CounterList, TokenReport

__all__ = ["counters", "tokens"]

PathArg = str | os.PathLike[str]


@inputs_confined
def tokens(
    paths: Annotated[
        Sequence[PathArg],
        Param(
            "files to count; '-' is standard input", positional=True, metavar="FILE", input="path"
        ),
    ] = (),
    *,
    text: Annotated[
        str | None,
        Param(
            "the text to count (the CLI reads it from standard input, %%ctx from the cell)",
            surfaces=SERVED,
            max_length=10_000_000,
        ),
    ] = None,
    counter: Annotated[str | None, params.counter("cl100k", allow_all=True, model=True)] = None,
    model: Annotated[
        str | None,
        Param(
            "count with this model's own tokenizer", metavar="M", max_length=200, names_model=True
        ),
    ] = None,
    label: Annotated[str, hidden("how text is named in the report")] = STDIN,
    root: Annotated[
        PathArg | None, hidden("every path must resolve inside it", session="root")
    ] = None,
) -> TokenReport:
    """Count the tokens of files (``paths``) and/or ``text`` (shown as ``label``; a path
    ``"-"`` marks where it goes) with ``counter`` or ``"all"`` of them — by default ``model``'s
    own tokenizer when a model is given (the report says whether each count is exact), else
    cl100k.

    Binary files are skipped with a warning. With ``root`` every path must resolve inside it.
    """
    from ..tokens import resolve_counter

    if counter != "all":
        choice = resolve_counter(counter, model, "cl100k")
        counter, note = choice.use, choice.note
    else:
        note = ""
    from ..tokens import TextInput, count_texts, get_counter, read_text_file

    if counter != "all":
        get_counter(counter)  # an unknown name is a usage error before any file is read
    names = [os.fspath(p) for p in paths]
    if not names and text is None:
        raise UsageError("nothing to count: give path=… (repeatable) or text=…")
    warnings: list[str] = [note] if note else []
    inputs: list[TextInput] = []
    if not names:
        inputs.append(TextInput(label, text or ""))
    for name in names:
        if name == STDIN:
            inputs.append(TextInput(label, text or ""))
            continue
        found = read_text_file(name, warnings)  # confined to the root by the declaration
        if found is not None and root is not None:
            found = TextInput(display_path(name, root), found.text, found.size)
        if found is not None:
            inputs.append(found)
    return count_texts(inputs, counter, warnings=warnings)


def counters() -> CounterList:
    """The token counters this installation has (plugins included)."""
    from ..tokens import CounterList, counter_info

    return CounterList(counters=tuple(counter_info()))


def _prepare_tokens(kwargs: dict[str, Any], inv: Invocation) -> dict[str, Any]:
    from ..tokens import get_counter

    counter = kwargs.get("counter")
    if counter is not None and counter != "all":
        get_counter(counter)  # an unknown name fails before standard input is waited for
    paths = kwargs.get("paths") or []
    if (not paths or STDIN in paths) and inv.surface == "magic" and inv.cell is None:
        raise UsageError(
            "nothing to count: give files (%ctx tokens a.md b.py) or put the text in the cell "
            "body (%%ctx tokens)"
        )
    if not paths or STDIN in paths:
        kwargs["text"] = inv.read_stdin()
        kwargs["label"] = "<cell>" if inv.cell is not None and not paths else STDIN
    return kwargs


command(
    Command(
        "tokens",
        "count tokens of files, stdin or a cell with one or all counters",
        tokens,
        surfaces=ALL,
        mcp_name="count_tokens",
        agent_help="Count the tokens of a text (or of files under the root) with a named "
        "counter (cl100k, o200k, bytes/4 …) or a model's own tokenizer; says whether each "
        "count is exact.",
        epilog="examples:\n  ctx-lab tokens README.md --counter all\n  echo hi | ctx-lab tokens -",
        prepare=_prepare_tokens,
        group="tokens",
    )
)
command(
    Command(
        "counters",
        "list the token counters (built in and installed plugins) and whether each works here",
        counters,
        surfaces=frozenset({"cli", "rest"}),
        epilog="example:\n  ctx-lab counters --format json",
        group="tokens",
    )
)
