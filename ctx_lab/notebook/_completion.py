"""Tab completion for ``%ctx``: command names, a command's flags, and the values of flags that
have a known set — choices, counters, model names, profiles."""

from __future__ import annotations

import argparse
from functools import cache
from typing import Any

__all__ = ["complete_line"]


@cache
def _parser() -> argparse.ArgumentParser:
    from ..commands import build_parser

    return build_parser("%ctx")


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    for action in _parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _values(flag: str, action: argparse.Action) -> list[str]:
    if action.choices:
        return [str(c) for c in action.choices]
    if flag == "--counter":
        from ..tokens import MODEL_COUNTER, counter_names

        return [*counter_names(), MODEL_COUNTER]
    if flag == "--model":
        from ..models import get_registry

        return sorted({k.prefix for k in get_registry("builtin").known})
    return []


def complete_line(line: str) -> list[str]:
    """Completions for the text after ``%ctx `` up to the cursor."""
    words = line.split()
    ending = line.endswith(" ") or not line
    current = "" if ending else words[-1]
    done = words if ending else words[:-1]
    commands = _subparsers()
    if not done:
        return sorted(name for name in commands if name.startswith(current))
    parser = commands.get(done[0])
    if parser is None:
        return []
    actions: dict[str, Any] = {s: a for a in parser._actions for s in a.option_strings}
    previous = done[-1] if len(done) > 1 else ""
    takes_value = previous in actions and actions[previous].nargs != 0
    if takes_value:
        return [v for v in _values(previous, actions[previous]) if v.startswith(current)]
    if current.startswith("-") or (ending and not current):
        flags = sorted(s for s in actions if s.startswith("--"))
        return [f for f in flags if f.startswith(current)] if current.startswith("-") else flags
    return []
