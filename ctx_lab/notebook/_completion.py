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


def _values(
    flag: str, action: argparse.Action, current: str = "", namespace: Any = None
) -> list[str]:
    if action.choices:
        return [str(c) for c in action.choices]
    if flag == "--cursor":  # the last read, and the kernel's variables that hold a cursor
        held = [
            f"@{name}"
            for name, value in (namespace or {}).items()
            if not name.startswith("_") and _holds_cursor(value)
        ]
        return ["@last", *sorted(held)]
    if flag == "--policy":
        return _policies(current)
    if flag == "--counter":
        from ..tokens import MODEL_COUNTER, counter_names

        return [*counter_names(), MODEL_COUNTER]
    if flag == "--model":
        from ..models import get_registry

        return sorted({k.prefix for k in get_registry("builtin").known})
    return []


def _holds_cursor(value: Any) -> bool:
    """A read result with a next chunk, or a string shaped like a cursor (``body.signature``)."""
    if isinstance(getattr(value, "next_cursor", None), str):
        return True
    return isinstance(value, str) and 16 <= len(value) <= 512 and value.count(".") == 1


def _policies(current: str) -> list[str]:
    """Policy names; after ``NAME:``, that policy's parameters as ``NAME:key=``."""
    from ..recordings import POLICIES

    name, colon, rest = current.partition(":")
    if not colon:
        return list(POLICIES)
    spec = POLICIES.get(name)
    if spec is None:
        return []
    head, _, _ = rest.rpartition(",")
    given = f"{name}:{head + ',' if head else ''}"
    return [f"{given}{key}=" for key in spec.params]


def complete_line(line: str, namespace: Any = None) -> list[str]:
    """Completions for the text after ``%ctx `` up to the cursor (``namespace``: the kernel's
    variables, for the cursors they hold)."""
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
        values = _values(previous, actions[previous], current, namespace)
        return [v for v in values if v.startswith(current)]
    if current.startswith("-") or (ending and not current):
        flags = sorted(s for s in actions if s.startswith("--"))
        return [f for f in flags if f.startswith(current)] if current.startswith("-") else flags
    return []
