"""``check``: rules over recorded sessions and captures for CI, each finding with a stable code
and its call — exit 0 clean, 1 for findings, 2 for any error (a bad flag, a missing or malformed
rules file, an unreadable session)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Annotated

from ..files import display_path
from . import _params as params
from ._param import ALL, Param, hidden, inputs_confined
from ._params import Registry, given_files
from ._registry import Command, command

if TYPE_CHECKING:
    from ..check import CheckReport

__all__ = ["check"]

PathArg = str | os.PathLike[str]


@inputs_confined
def check(
    file: Annotated[
        PathArg | Sequence[PathArg],
        Param(
            "recorded sessions (Claude Code, Codex, Gemini CLI, OpenAI or Anthropic logs) or "
            "capture files",
            positional=True,
            metavar="FILE",
            max_length=4096,
            input="file",
            max_items=20,
        ),
    ],
    *,
    rules: Annotated[
        PathArg | None,
        Param(
            "a TOML rules file: thresholds, rules turned off (docs/commands.md)",
            metavar="RULES.toml",
            max_length=4096,
            input="rules file",
            default_text="the default rules",
        ),
    ] = None,
    model: Annotated[
        str | None,
        Param(
            "every call as if sent to this model: its window and budget",
            metavar="M",
            max_length=200,
            default_text="each call's own",
            names_model=True,
        ),
    ] = None,
    counter: Annotated[str | None, params.counter("bytes/4", model=True)] = None,
    registry: Registry = None,
    now: Annotated[
        datetime | None,
        Param(
            "the time (ISO 8601) that dates the report (JUnit's timestamp)",
            metavar="ISO",
            parse=params.parse_now,
            max_length=64,
            session="now",
            default_text="now",
        ),
    ] = None,
    root: Annotated[PathArg | None, hidden("files must resolve inside it", session="root")] = None,
) -> CheckReport:
    """The ``rules`` (default: every rule at its default threshold) over each session: one
    finding per violation with its code, call, category and numbers (see
    :mod:`ctx_lab.check`). With ``root`` every file must resolve inside it."""
    files = given_files(file, "nothing to check: give one or more recorded sessions")
    from ..check import check_files, load_rules

    paths = [*files]  # confined to the root by the declaration
    paths = list(dict.fromkeys(paths))  # a file given twice is checked once
    labels = [display_path(p, root) if root is not None else os.fspath(p) for p in paths]
    rules_path = rules
    return check_files(
        paths, load_rules(rules_path), model=model, counter=counter, registry=registry,
        labels=labels, now=(lambda: now) if now is not None else None,
    )  # fmt: skip


command(
    Command(
        "check",
        "check recorded sessions against context rules for CI: exit 1 on findings, 2 on errors",
        check,
        formats=("text", "json", "junit", "sarif"),
        surfaces=ALL,
        output="write to FILE (atomically) in --format, or in the format its suffix names "
        "(.sarif, .xml: JUnit, .json)",
        agent_help="Checks recorded sessions or captures against context rules with stable "
        "codes (CTX101 window filled without a compaction, CTX102 low cache hit rate, CTX103 "
        "oversized tool result, CTX104 tool definitions crowding the input, CTX105 memory file "
        "dropped, CTX106 over the effective budget, CTX107 large cache miss with its cause); "
        "each finding names its call, category and numbers.",
        epilog="examples:\n  ctx-lab check ~/.claude/projects/*/SESSION.jsonl\n"
        "  ctx-lab check SESSION.jsonl --rules ctx-rules.toml --format sarif -o ctx.sarif\n"
        "  ctx-lab check SESSION.jsonl -o ctx.sarif\n"
        "  ctx-lab check calls.db --format junit -o ctx-junit.xml",
        group="sessions",
    )
)
