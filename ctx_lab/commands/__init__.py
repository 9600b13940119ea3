"""The commands of ``ctx-lab`` and ``%ctx``, each declared once (see :mod:`.registry`)."""

from . import builder, conversation, doctor, journal, models, packet, paging, tokens  # noqa: F401  (importing registers the commands)
from .registry import (
    Command,
    Invocation,
    Outcome,
    ParserExit,
    build_parser,
    command,
    commands,
    invoke,
)

__all__ = [
    "Command",
    "Invocation",
    "Outcome",
    "ParserExit",
    "build_parser",
    "command",
    "commands",
    "invoke",
]
