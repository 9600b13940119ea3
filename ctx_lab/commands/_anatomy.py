"""``anatomy``: what fills a request — or every request of a session — by category, against the
model's window and what the provider reported."""

from __future__ import annotations

import os
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated

from ..choices import OtlpContent
from ..files import display_path
from . import _params as params
from ._param import ALL, Param, hidden, inputs_confined
from ._params import Registry
from ._registry import Command, command

if TYPE_CHECKING:
    from ..anatomy import RequestAnatomy, SessionAnatomy

__all__ = ["anatomy"]

PathArg = str | os.PathLike[str]


@inputs_confined
def anatomy(
    file: Annotated[
        PathArg,
        Param(
            "a capture file (ctx-lab capture), a file of request bodies (Chat Completions, "
            "Responses, Messages), or a recorded session",
            positional=True,
            metavar="FILE",
            max_length=4096,
            input="file",
        ),
    ],
    *,
    call: Annotated[
        int | None,
        Param(
            "the call to take apart: its id in a capture file, its number (from 1) elsewhere",
            metavar="N",
            default_text="the last",
        ),
    ] = None,
    session: Annotated[
        bool,
        Param("every call: categories over time, what changed, where the prompt cache broke"),
    ] = False,
    last: Annotated[
        int | None,
        Param("with --session: only the last N calls", metavar="N", minimum=1, default_text="all"),
    ] = None,
    model: Annotated[
        str | None,
        Param(
            "count and size against this model",
            metavar="M",
            max_length=200,
            default_text="the request's own",
            names_model=True,
        ),
    ] = None,
    counter: Annotated[str | None, params.counter("bytes/4", model=True)] = None,
    registry: Registry = None,
    content: Annotated[
        OtlpContent,
        Param(
            "with --format otlp: what each span carries of the messages — delta (what its "
            "input adds to the span it links to: each message once), full (the GenAI "
            "conventions' whole input, every span), none (usage and composition only)"
        ),
    ] = "delta",
    root: Annotated[
        PathArg | None, hidden("the file must resolve inside it", session="root")
    ] = None,
) -> RequestAnatomy | SessionAnatomy:
    """The anatomy of one call (default the last) or, with ``session``, of every call: tokens
    by category and per tool, against the model's window, with the provider's reported input
    and cache beside them. With ``root`` the file must resolve inside it."""
    from ..anatomy import anatomy_of

    path = file  # confined to the root by the declaration
    label = display_path(path, root) if root is not None else os.fspath(file)
    made = anatomy_of(
        path,
        call=call,
        session=session,
        model=model,
        counter=counter,
        registry=registry,
        last=last,
        label=label,
    )
    from ..anatomy import SessionAnatomy

    return replace(made, otlp_content=content) if isinstance(made, SessionAnatomy) else made


command(
    Command(
        "anatomy",
        "show what fills a request or a session: tokens by category, cache breaks, free space",
        anatomy,
        formats=("text", "json", "csv", "otlp"),
        surfaces=ALL,
        agent_help="What fills a model request (or every request of a session): tokens by "
        "category — system prompt, tool definitions, memory files, messages, tool calls and "
        "results per tool, thinking, images — against the model's window, beside the "
        "provider's reported input; for a session, where the prompt cache broke and why.",
        epilog="examples:\n  ctx-lab anatomy capture.db\n"
        "  ctx-lab anatomy ~/.claude/projects/x/session.jsonl --session --format csv\n"
        "  ctx-lab anatomy session.jsonl --session --format otlp --content full > trace.json\n"
        "  ctx-lab anatomy request.json --model gpt-4o",
        group="sessions",
    )
)
