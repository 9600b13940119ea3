"""``docs/cli.md`` is generated from the parser: it is current, and it holds every flag of every
command (the overview, each command, ``mcp serve`` and ``capture``)."""

from __future__ import annotations

import argparse

from ctx_lab._cli_reference import REFERENCE_PATH, render_reference
from ctx_lab.commands import build_parser, commands


def test_the_cli_reference_is_current() -> None:
    committed = REFERENCE_PATH.read_text(encoding="utf-8")
    assert committed == render_reference(), (
        "docs/cli.md is stale: run `python -m ctx_lab._cli_reference`"
    )


def _flags(parser: argparse.ArgumentParser) -> dict[str, list[str]]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {
        name: [s for a in p._actions for s in a.option_strings if s.startswith("--")]
        for name, p in sub.choices.items()
    }


def test_every_flag_of_every_command_is_in_the_reference() -> None:
    text = REFERENCE_PATH.read_text(encoding="utf-8")
    sections = {
        s.split("`", 2)[1]: s for s in text.split("\n## ")[1:]
    }  # "ctx-lab page" → its section
    flags = _flags(build_parser())
    assert len(flags) == len([c for c in commands().values() if "cli" in c.surfaces])
    for name, options in flags.items():
        section = sections[f"ctx-lab {name}"]
        missing = [o for o in options if o not in section]
        assert not missing, (name, missing)
    for server, flag in (("mcp serve", "--transport"), ("capture", "--provider")):
        assert flag in sections[f"ctx-lab {server}"]
