"""``cache``: a recorded session's prompt caching, as the providers' rules predict it — call by
call the fresh input, cache write and cache read, why a call missed, and what it cost beside no
caching and ideal caching."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Annotated, Literal

from ..files import display_path
from . import _params as params
from ._param import ALL, Param, hidden, inputs_confined
from ._params import CacheReadingParam, Registry
from ._registry import Command, command

if TYPE_CHECKING:
    from ..recordings import CacheReport

__all__ = ["cache"]

PathArg = str | os.PathLike[str]


@inputs_confined
def cache(
    file: Annotated[
        PathArg,
        Param(
            "a recorded session (Claude Code, Codex, Gemini CLI, OpenAI or Anthropic logs) or "
            "a capture file (ctx-lab capture)",
            positional=True,
            metavar="FILE",
            max_length=4096,
            input="file",
        ),
    ],
    *,
    sizes: Annotated[
        Literal["usage", "counts"],
        Param(
            "usage: each call's sizes as the provider reported them (tests the rules alone); "
            "counts: ctx_lab's counts of what each call sent (what a counterfactual has)"
        ),
    ] = "usage",
    model: Annotated[
        str | None,
        Param(
            "every call as if sent to this model: its caching rules and prices",
            metavar="M",
            max_length=200,
            default_text="each call's own",
            names_model=True,
        ),
    ] = None,
    counter: Annotated[str | None, params.counter("bytes/4", model=False)] = None,
    registry: Registry = None,
    reading: CacheReadingParam = "breakpoints",
    root: Annotated[
        PathArg | None, hidden("the file must resolve inside it", session="root")
    ] = None,
) -> CacheReport:
    """The session's prompt caching as the rules predict it (see
    :mod:`ctx_lab.recordings.cache._cache`), beside what the provider reported; with ``root`` the
    file must resolve inside it."""
    from ..recordings import simulate_cache
    from ._conversation import session_of

    path = file  # confined to the root by the declaration
    label = display_path(path, root) if root is not None else os.fspath(file)
    return simulate_cache(
        session_of(path),
        sizes=sizes,
        model=model,
        counter=counter,
        registry=registry,
        source=label,
        reading=reading,
    )


command(
    Command(
        "cache",
        "predict, explain and price a recorded session's prompt cache hits and misses",
        cache,
        formats=("text", "json"),
        surfaces=ALL,
        agent_help="A recorded session's prompt caching call by call: fresh input, cache "
        "write and cache read as the providers' rules predict them beside what was reported, "
        "why each miss happened, and the cost beside no caching and ideal caching.",
        epilog="examples:\n  ctx-lab cache ~/.claude/projects/*/SESSION.jsonl\n"
        "  ctx-lab cache calls.db --format json\n"
        "  ctx-lab cache SESSION.jsonl --sizes counts\n"
        "  ctx-lab cache SESSION.jsonl --reading prefix",
        group="sessions",
    )
)
