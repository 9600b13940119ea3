"""The argument parser of ``ctx-lab`` and ``%ctx``: it raises instead of exiting (the magic
shares it), and a mistyped command, choice or flag is answered with the nearest one."""

from __future__ import annotations

import argparse
import os
import re
import sys

from ..errors import ParserExit, UsageError

__all__ = ["ADAPTER_COMMANDS", "Parser"]

# commands the CLI serves with adapters of their own before this parser sees the line (the
# recording proxy, the MCP server): a mistyped one is still found (``captur`` → ``capture``)
ADAPTER_COMMANDS = ("capture", "mcp")


class Parser(argparse.ArgumentParser):
    """An ArgumentParser that raises instead of exiting, so the magic can share it."""

    def error(self, message: str) -> None:  # type: ignore[override]
        hint = self._did_you_mean(message)
        error = UsageError(f"{message}{hint} (see `{self.prog} --help`)")
        error.prog = self.prog
        raise error

    def _did_you_mean(self, message: str) -> str:
        """``; did you mean 'packet'?`` for a mistyped command, choice or flag."""
        import difflib  # only for a mistyped name

        choice = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if choice:
            options = re.findall(r"'([^']*)'", choice.group(2)) or [
                o.strip() for o in choice.group(2).split(",")
            ]
            if "COMMAND" in message and not self.prog.startswith("%"):  # the CLI's adapters too
                options += ADAPTER_COMMANDS
            close = difflib.get_close_matches(choice.group(1), options, n=1, cutoff=0.5)
            return f"; did you mean '{close[0]}'?" if close else ""
        unknown = re.search(r"unrecognized arguments: (\S+)", message)
        if unknown:
            flags = [s for a in self._actions for s in a.option_strings if s.startswith("--")]
            for sub in self._subparsers._group_actions if self._subparsers else []:
                for parser in getattr(sub, "choices", {}).values():
                    flags += [s for a in parser._actions for s in a.option_strings]
            close = difflib.get_close_matches(unknown.group(1), flags, n=1, cutoff=0.6)
            return f"; did you mean {close[0]}?" if close else ""
        return ""

    def _get_formatter(self) -> argparse.HelpFormatter:
        # argparse makes a formatter on every add_argument and asks shutil for its width, which
        # imports shutil, bz2 and lzma (~4 ms of a command's start); the width is given here
        return self.formatter_class(prog=self.prog, width=columns() - 2)  # type: ignore[call-arg]

    def exit(self, status: int = 0, message: str | None = None) -> None:  # type: ignore[override]
        if message:
            sys.stderr.write(message)
        raise ParserExit(status, message)


def columns() -> int:
    """The terminal's width by ``shutil.get_terminal_size``'s rule: ``$COLUMNS`` when it is a
    positive number, else the width of the terminal on standard output, else 80."""
    try:
        width = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        width = 0
    if width <= 0:
        try:
            width = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            width = 0
    return width or 80
