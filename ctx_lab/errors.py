"""The exception hierarchy: every error ctx_lab raises on purpose derives from :class:`CtxLabError`.

The CLI prints these messages without a traceback and exits 2 for :class:`UsageError`
(and its subclasses) and 1 for every other :class:`CtxLabError`.
"""

from __future__ import annotations

from collections.abc import Iterable


class CtxLabError(Exception):
    """Base class of every error ctx_lab raises deliberately; the message says what to do."""

    exit_code = 1
    prog: str | None = None  # the command that failed, when a parser raised it


class UsageError(CtxLabError, ValueError):
    """The caller asked for something that cannot be valid (unknown name, bad flag or value)."""

    exit_code = 2


def _names(valid: Iterable[str]) -> str:
    return ", ".join(sorted(valid))


class UnknownCounterError(UsageError, KeyError):
    """A token counter name that is not registered."""

    def __init__(self, name: str, valid: Iterable[str]) -> None:
        self.name = name
        self.valid = sorted(valid)
        super().__init__(f"unknown counter {name!r}; valid counters: {_names(self.valid)}")

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return str(self.args[0])


class CounterUnavailableError(CtxLabError):
    """A known counter that cannot work on this machine (for example o200k without its file)."""

    def __init__(self, name: str, reason: str) -> None:
        self.name = name
        self.reason = reason
        super().__init__(f"counter {name!r} is unavailable: {reason}")


class UnknownRegistryError(UsageError):
    """A model registry name that does not exist."""

    def __init__(self, name: str, valid: Iterable[str]) -> None:
        self.name = name
        super().__init__(f"unknown registry {name!r}; valid registries: {_names(valid)}")


class InputFileError(CtxLabError):
    """An input file that is missing or cannot be read."""
