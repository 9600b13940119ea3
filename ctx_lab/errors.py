"""Every exception ctx_lab raises on purpose, in one place; all derive from :class:`CtxLabError`.

The CLI prints these messages without a traceback and exits 2 for :class:`UsageError` (and its
subclasses) and 1 for every other :class:`CtxLabError`; the REST routes map them to 4xx statuses
(:data:`HTTP_STATUS`). The tree::

    CtxLabError
    ├── UsageError (ValueError)                 exit 2 · HTTP 400
    │   ├── UnknownCounterError (KeyError)
    │   ├── UnknownRegistryError
    │   ├── InvalidPageRequest
    │   └── PayloadError                        a payload's field of the wrong type
    ├── ParserExit                              --help / --version printed; not a failure
    ├── CounterUnavailableError                 HTTP 422
    ├── NativeCodeError                         HTTP 422 (native code failed on this input)
    ├── ModelSourceError
    ├── InputFileError                          HTTP 404
    │   └── FileTooLarge                        HTTP 413
    ├── ReadError
    │   ├── UnsupportedContent
    │   ├── CorruptDocument
    │   ├── FetchError
    │   ├── LimitExceeded                       HTTP 413
    │   ├── CursorInvalid                       (internal: the reader resets)
    │   ├── ResourceNotFound (also ArtifactNotFound) HTTP 404: no such file
    │   └── AccessDenied                        HTTP 403
    │       └── PathOutsideRoot (also ArtifactNotFound)
    ├── ArtifactNotFound                        HTTP 404
    ├── BudgetExhausted                         HTTP 409
    ├── ContextNotFound                         HTTP 404
    ├── CommandNotFound                         HTTP 404 (no such command on this surface)
    ├── ExactContentTooLarge
    ├── SkeletonError (ValueError)
    ├── HistoryCorrupted
    ├── TranscriptError
    │   └── InvalidRecording (also UsageError)  exit 2 · HTTP 400
    ├── CalibrationError
    ├── ContextBuildError
    │   ├── RecentMessagesTooLarge
    │   └── SummarizationNeeded
    ├── SummarizerError
    ├── NoWorkers                               (a Dask run with no worker for too long)
    └── JournalError
        └── JournalBusy
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = [
    "HTTP_STATUS",
    "AccessDenied",
    "ArtifactNotFound",
    "BudgetExhausted",
    "CalibrationError",
    "CommandNotFound",
    "ContextBuildError",
    "ContextNotFound",
    "CorruptDocument",
    "CounterUnavailableError",
    "CtxLabError",
    "CursorInvalid",
    "ExactContentTooLarge",
    "FetchError",
    "FileTooLarge",
    "HistoryCorrupted",
    "InputFileError",
    "InvalidPageRequest",
    "InvalidRecording",
    "JournalBusy",
    "JournalError",
    "LimitExceeded",
    "ModelSourceError",
    "NativeCodeError",
    "NoWorkers",
    "ParserExit",
    "PathOutsideRoot",
    "PayloadError",
    "ReadError",
    "RecentMessagesTooLarge",
    "ResourceNotFound",
    "SkeletonError",
    "SummarizationNeeded",
    "SummarizerError",
    "TranscriptError",
    "UnknownCounterError",
    "UnknownModelError",
    "UnknownRegistryError",
    "UnsupportedContent",
    "UsageError",
    "as_native_error",
    "from_os_error",
    "http_status",
    "native_failure",
]


class CtxLabError(Exception):
    """Base class of every error ctx_lab raises deliberately; the message says what to do."""

    exit_code = 1
    prog: str | None = None  # the command that failed, when a parser raised it


# -- usage -------------------------------------------------------------------------------------


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


class UnknownRegistryError(UsageError):
    """A model registry name that does not exist."""

    def __init__(self, name: str, valid: Iterable[str]) -> None:
        self.name = name
        super().__init__(f"unknown registry {name!r}; valid registries: {_names(valid)}")


class UnknownModelError(UsageError):
    """A model name no registry knows (a typo would otherwise size everything against the
    default 8,192-token window); the message names close matches, or the registry that knows
    it, and the flag that uses it anyway."""

    def __init__(self, name: str, close: Iterable[str] = (), elsewhere: str | None = None) -> None:
        self.name = name
        self.close = tuple(close)
        hint = ""
        if elsewhere:
            hint = f"; the {elsewhere} registry knows it: add --registry {elsewhere}"
        elif self.close:
            hint = "; did you mean " + " or ".join(f"'{c}'" for c in self.close) + "?"
        super().__init__(
            f"unknown model {name!r}{hint} (`ctx-lab models` lists the known ones; "
            "--allow-unknown-model uses it anyway with the default 8,192-token window)"
        )


class InvalidPageRequest(UsageError):
    """A line range that can never be valid (start < 1, or start > end with end ≠ 0)."""


class ParserExit(CtxLabError):
    """The argument parser wanted to exit (``--help``, ``--version``): its text is printed."""

    def __init__(self, status: int = 0, message: str | None = None) -> None:
        super().__init__(message or "")
        self.status = status
        self.exit_code = status
        self.message = message


# -- tokens --------------------------------------------------------------------------------------


class CounterUnavailableError(CtxLabError):
    """A known counter that cannot work on this machine (for example o200k without its file)."""

    def __init__(self, name: str, reason: str) -> None:
        self.name = name
        self.reason = reason
        super().__init__(f"counter {name!r} is unavailable: {reason}")


class NativeCodeError(CtxLabError):
    """Native code (a tokenizer's Rust or C) failed on this input — a Rust panic is a
    ``BaseException`` that ``except Exception`` misses; only the request that sent the input
    fails (see :func:`native_failure`)."""


def native_failure(exc: BaseException) -> bool:
    """Whether ``exc`` is a failure escaped from native code (a pyo3 ``PanicException`` and the
    like): a ``BaseException`` that is neither an ``Exception`` nor one of Python's own signals
    to stop (``KeyboardInterrupt``, ``SystemExit``, ``GeneratorExit``, a cancellation)."""
    import asyncio

    return not isinstance(
        exc, Exception | KeyboardInterrupt | SystemExit | GeneratorExit | asyncio.CancelledError
    )


def as_native_error(exc: BaseException) -> NativeCodeError:
    """A failure escaped from native code as the typed error a surface reports."""
    if isinstance(exc, NativeCodeError):
        return exc
    return NativeCodeError(f"native code failed ({type(exc).__name__}: {str(exc)[:200]})")


class ModelSourceError(CtxLabError):
    """A ``ctx_lab.model_sources`` plugin that failed to load or returned no registry."""


# -- files and reading ---------------------------------------------------------------------------


class InputFileError(CtxLabError):
    """An input file that is missing or cannot be read."""


class FileTooLarge(InputFileError):
    """A file over the size limit of the operation reading it; the message names the limit."""


class ReadError(CtxLabError):
    """Reading a resource failed; the message says why and what to do."""


class UnsupportedContent(ReadError):
    """Neither text, HTML nor PDF (e.g. an image)."""


class CorruptDocument(ReadError):
    """A PDF that is damaged, not really a PDF, or encrypted."""


class FetchError(ReadError):
    """The HTTP request failed (status, connection, redirect loop)."""


class LimitExceeded(ReadError):
    """A safety limit stopped the read: size, deadline or page count."""


class CursorInvalid(ReadError):
    """Why a cursor cannot be used (internal; the reader turns it into a reset)."""


class AccessDenied(ReadError):
    """A path outside the allowed roots, or a private network address."""


# -- paging --------------------------------------------------------------------------------------


class ArtifactNotFound(CtxLabError):
    """The store has no artifact with this id."""


class ResourceNotFound(ReadError, ArtifactNotFound):
    """A file to read that does not exist (404 on every route, like a missing page)."""


class PathOutsideRoot(AccessDenied, ArtifactNotFound):
    """A path that resolves outside its root (``..``, absolute, symlink, NUL byte, ``~``, not a
    regular file); for a store, an artifact it does not have."""


class BudgetExhausted(CtxLabError):
    """The paging quota (pages or tokens) is used up, or not even one line fits."""


# -- packet and builder --------------------------------------------------------------------------


class ContextNotFound(CtxLabError):
    """The directory has no ``.context/`` (and is not one)."""


class CommandNotFound(CtxLabError):
    """No command of this name is served on this surface (a REST route that does not exist)."""


class ExactContentTooLarge(CtxLabError):
    """The exact blocks alone (with their headers) exceed the budget."""

    def __init__(self, blocks: Sequence[tuple[str, int]], required: int, budget: int) -> None:
        self.blocks = list(blocks)
        self.required = required
        self.budget = budget
        listed = ", ".join(f"{name} ({tokens} tokens)" for name, tokens in self.blocks)
        super().__init__(
            f"exact content needs {required} tokens but the budget is {budget}: {listed}; "
            "raise the budget or mark some of it non-exact"
        )


class SkeletonError(CtxLabError, ValueError):
    """The source could not be parsed (or the grammar is missing)."""


# -- conversation --------------------------------------------------------------------------------


class HistoryCorrupted(CtxLabError):
    """A saved history that fails validation; the message names the first violation."""


class TranscriptError(CtxLabError):
    """A recorded session that cannot be read: a line that is not JSON (the message names it)
    or no known transcript format."""


class PayloadError(UsageError):
    """A payload (a saved state, a posted or imported JSON) whose field is not of its declared
    type, or is missing: the message names the field (``PagingBudget.max_pages: expected an
    integer, got str``). Exit 2 · HTTP 400 · an MCP tool error."""


class InvalidRecording(UsageError, TranscriptError):
    """A recording whose values its format does not allow (a usage number that is not a token
    count, an attribute ctx_lab wrote that is not what it wrote): bad input, exit 2 · HTTP 400."""


class CalibrationError(CtxLabError):
    """No calls to calibrate from (the message says why), or a damaged calibrations file."""


class ContextBuildError(CtxLabError):
    """The working context cannot be built as it is."""


class RecentMessagesTooLarge(ContextBuildError):
    """The newest messages alone exceed the budget: shorten them or switch to a larger model."""

    def __init__(self, required_tokens: int, budget_tokens: int, message_count: int) -> None:
        self.required_tokens = required_tokens
        self.budget_tokens = budget_tokens
        self.message_count = message_count
        super().__init__(
            f"the {message_count} most recent messages need {required_tokens} tokens but the "
            f"budget is {budget_tokens}; shorten them or switch to a model with a larger window"
        )


class SummarizationNeeded(ContextBuildError):
    """Older messages must be summarized before the context fits."""

    def __init__(
        self, excess_tokens: int, messages_to_summarize: Sequence[int], suggestion: str
    ) -> None:
        self.excess_tokens = excess_tokens
        self.messages_to_summarize = messages_to_summarize
        self.suggestion = suggestion
        super().__init__(suggestion)


class SummarizerError(CtxLabError):
    """A summarizer failed or returned nothing; the history stays unchanged."""


class JournalError(CtxLabError):
    """A journal operation that cannot be done (unknown step, closed session …)."""


class JournalBusy(JournalError):
    """A new session or batch cannot start while a recoverable one exists."""


# -- HTTP ----------------------------------------------------------------------------------------

HTTP_STATUS: tuple[tuple[type[CtxLabError], int], ...] = (
    (AccessDenied, 403),
    (UsageError, 400),
    (FileTooLarge, 413),
    (LimitExceeded, 413),
    (ContextNotFound, 404),
    (CommandNotFound, 404),
    (ArtifactNotFound, 404),
    (InputFileError, 404),
    (BudgetExhausted, 409),
    (CtxLabError, 422),
)


class NoWorkers(CtxLabError):
    """A Dask run that had no worker for longer than its timeout; the items not done are
    error rows with this message."""


def from_os_error(exc: OSError) -> InputFileError:
    """The typed error for an operating-system refusal no check caught first (a name too long,
    a loop of links, a permission): the file named short, the system's reason."""
    name = exc.filename if isinstance(exc.filename, str) else ""
    if len(name) > 80:
        name = f"{name[:40]}…{name[-20:]} ({len(name):,} characters)"
    reason = exc.strerror or type(exc).__name__
    if exc.errno == 36:  # ENAMETOOLONG
        reason += " (the system takes at most 255 bytes a name, 4,096 a path)"
    return InputFileError(f"{name}: {reason}" if name else reason)


def http_status(error: CtxLabError) -> int:
    """The HTTP status a REST route answers ``error`` with (the first matching row)."""
    return next(code for kind, code in HTTP_STATUS if isinstance(error, kind))
