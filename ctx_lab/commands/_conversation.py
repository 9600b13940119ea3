"""``history``, ``journal``, ``replay`` and ``calibrate``: a saved conversation's usage, what a
crash journal holds, a recorded session replayed against models, and an estimate calibrated
from recorded usage."""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any

from ..choices import TRANSCRIPT_FORMATS, CalibrationMethod, RowsPer
from ..errors import CalibrationError, CtxLabError, UsageError
from ..files import display_path
from ..tokens import MIN_CALLS, CalibrationList, forget_calibration, list_calibrations
from ..validate import choice
from ._analysis import CORPUS_OUTPUT, NoWorkerTimeout, Progress, Scheduler, Ship, Workers
from ._param import CLI, Param, hidden, inputs_confined
from ._params import given_files, parse_now
from ._registry import Command, command

if TYPE_CHECKING:
    from ..analysis import CorpusReport
    from ..conversation import HistoryReport, JournalReport
    from ..recordings import CalibrationEvaluation, ReplayReport
    from ..tokens import Calibration

__all__ = ["calibrate", "history", "journal", "replay"]

PathArg = str | os.PathLike[str]
JOURNAL_ACTIONS = ("recover", "stats")
# transcripts.FORMATS, spelled here so building the parser imports no engine (a test compares)
Root = Annotated[PathArg | None, hidden("files must resolve inside it", session="root")]


@inputs_confined
def history(
    file: Annotated[
        PathArg,
        Param(
            "a history saved with ContextManager.save()",
            positional=True,
            metavar="FILE",
            input="file",
        ),
    ],
    *,
    model: Annotated[
        str | None,
        Param(
            "evaluate against this model instead of the saved one", metavar="M", names_model=True
        ),
    ] = None,
    check: Annotated[bool, Param("exit 1 unless the context fits")] = False,
    root: Root = None,
) -> HistoryReport:
    """Usage, segments and what needs summarizing in a history saved with
    ``ContextManager.save()``, against its own model or ``model``; with ``check`` the CLI
    exits 1 unless the context fits."""
    from ..conversation import ContextManager, history_report

    path = file  # confined to the root by the declaration
    # a model named here counts with its own tokenizer (or a named estimate)
    manager = ContextManager.load(path, model, counter="model" if model else None)
    return history_report(manager, os.fspath(file), check)


@inputs_confined
def journal(
    action: Annotated[
        str,
        Param(
            "what recovery would find, or counts",
            positional=True,
            choices=JOURNAL_ACTIONS,
        ),
    ],
    db: Annotated[
        PathArg,
        Param(
            "a SQLite file with a stream and/or tool journal",
            positional=True,
            metavar="DB",
            input="db",
        ),
    ],
    *,
    root: Root = None,
) -> JournalReport:
    """What recovery would find in a crash journal (``recover``), or its counts (``stats``);
    the journal is opened read-only."""
    from ..conversation import inspect_journal

    choice(action, JOURNAL_ACTIONS, "action")
    path = db  # confined to the root by the declaration
    return inspect_journal(path, action)


@inputs_confined
def replay(
    file: Annotated[
        PathArg | Sequence[PathArg],
        Param(
            "recorded sessions (JSONL or JSON); several: a corpus",
            positional=True,
            metavar="FILE",
            max_length=4096,
            input="file",
        ),
    ],
    *,
    model: Annotated[
        Sequence[str],
        Param(
            "replay on this model (repeatable)",
            metavar="M",
            flag="--model",
            default_text="for one file: the models it was recorded with",
            names_model=True,
        ),
    ] = (),
    counter: Annotated[
        str | None,
        Param(
            "token counter: cl100k, o200k, bytes/4, chars/3, an installed one, or model (each "
            "model's own tokenizer, or its stored calibration); `ctx-lab counters` lists them",
            metavar="NAME",
            default_text="model",
            max_length=200,
        ),
    ] = None,
    preserve_recent: Annotated[
        int, Param("newest messages always kept as originals", metavar="N")
    ] = 4,
    output_limit: Annotated[
        int | None,
        Param(
            "output tokens reserved per call",
            metavar="N",
            default_text="the model's maximum",
        ),
    ] = None,
    caching: Annotated[
        bool,
        Param(
            "price input the provider would have cached at its cache price",
            flag="--no-caching",
            flag_help="price every input token as new (no prompt cache)",
        ),
    ] = True,
    registry: Annotated[
        str | None,
        Param("where models' limits and prices come from", metavar="NAME", default_text="builtin"),
    ] = None,
    transcript_format: Annotated[
        str,
        Param(
            "the file's format (auto: detected)",
            choices=("auto", *TRANSCRIPT_FORMATS),
        ),
    ] = "auto",
    per: Annotated[
        RowsPer,
        Param("a corpus's rows: one per session and model, or per call", surfaces=CLI),
    ] = "session",
    workers: Workers = None,
    scheduler: Scheduler = None,
    ship: Ship = "paths",
    progress: Progress = True,
    no_worker_timeout: NoWorkerTimeout = None,
    root: Root = None,
) -> ReplayReport | CorpusReport:
    """Replay a recorded session (Claude Code JSONL, OpenAI Chat Completions messages or log,
    Anthropic Messages JSON) on each ``model`` (default: the models it was recorded with): per
    call the context, budget, headroom, summarization needed, cost, reported vs counted.

    Several files (or ``workers``/``scheduler``) replay a corpus on the given models: one row
    per session and model (``per="call"``: per call), on a local process pool of ``workers``
    (0: in this process) or a Dask ``scheduler`` — a :class:`~ctx_lab.analysis.CorpusReport`.
    """
    from ..recordings import ReplaySettings

    files = given_files(file, "nothing to replay: give one or more transcript files")
    settings = ReplaySettings(
        preserve_recent=preserve_recent, output_limit=output_limit, caching=caching
    )
    if len(files) > 1 or workers is not None or scheduler is not None:
        from ..analysis import ReplayOptions, run_replay
        from ._analysis import run_options

        return run_replay(
            files,
            ReplayOptions(
                models=tuple(model),
                counter=counter,
                per=per,
                settings=settings,
                transcript_format=transcript_format,
                registry=registry,
            ),
            run_options(workers, scheduler, ship, progress, no_worker_timeout, root),
        )
    from ..recordings import replay_report

    one = files[0]
    path = one  # confined to the root by the declaration
    transcript = session_of(path, transcript_format)
    shown = display_path(path, root) if root is not None else os.fspath(one)
    return replay_report(
        transcript,
        list(model) or None,
        settings=settings,
        counter=counter or "model",
        registry=registry,
        source=shown,
    )


@inputs_confined
def calibrate(
    files: Annotated[
        Sequence[PathArg],
        Param("recorded sessions with usage", positional=True, metavar="FILE", input="file"),
    ] = (),
    *,
    model: Annotated[
        str | None,
        Param("whose calls to fit", metavar="M", default_text="the most used"),
    ] = None,
    counter: Annotated[
        str, Param("the estimate to calibrate; `ctx-lab counters` lists them", metavar="NAME")
    ] = "bytes/4",
    method: Annotated[
        CalibrationMethod,
        Param(
            "ratio per call, growth between calls (for transcripts without the system prompt), "
            "or auto",
        ),
    ] = "auto",
    min_calls: Annotated[int, Param("fewest fitted calls to accept", metavar="N")] = MIN_CALLS,
    save: Annotated[
        bool, Param("store the calibration so counter=model uses it (default: show only)")
    ] = False,
    list: Annotated[bool, Param("show the stored calibrations")] = False,
    forget: Annotated[
        str | None, Param("remove MODEL's stored calibration", metavar="MODEL")
    ] = None,
    evaluate: Annotated[
        Sequence[PathArg],
        Param(
            "try the fit on these other sessions: every call's estimate and 90 % band beside "
            "the reported input, and the plain scalar fits on the same calls (repeatable)",
            metavar="FILE",
            flag="--evaluate",
            input="file",
        ),
    ] = (),
    now: Annotated[
        datetime | None,
        Param(
            "the time (ISO 8601) a saved calibration is dated by",
            metavar="ISO",
            parse=parse_now,
            max_length=64,
            session="now",
            default_text="now",
        ),
    ] = None,
    root: Root = None,
) -> Calibration | CalibrationList | CalibrationEvaluation:
    """Fit the ratio of provider-reported input tokens to ``counter``'s count over the calls of
    ``model`` in recorded sessions; ``save`` stores it so ``counter=model`` uses it. ``list``
    shows the stored calibrations; ``forget`` removes one model's."""
    from ..recordings import calibrate as fit

    if list or forget:
        if files:
            raise UsageError("--list and --forget take no files")
        if forget and not forget_calibration(forget):
            raise CalibrationError(f"no calibration stored for {forget!r} (see --list)")
        return list_calibrations(forgotten=forget)
    if not files:
        raise UsageError("nothing to calibrate: give one or more transcript files")
    paths = [*files]  # confined to the root by the declaration
    sources = [_capture_or_path(p) for p in paths]
    fitted = fit(sources, counter, model, method=method, save=save, min_calls=min_calls, now=now)
    if not evaluate:
        return fitted
    from ..recordings import evaluate_calibration

    others = [*evaluate]  # confined to the root by the declaration
    sessions = [session_of(p) for p in others]
    try:  # o200k × a scalar fitted on the same sessions, reported beside the fit
        o200k = fit(sources, "o200k", fitted.model, method=method, min_calls=min_calls).ratio
    except CtxLabError:
        o200k = None
    return evaluate_calibration(fitted, sessions, o200k=o200k)


def session_of(path: PathArg, transcript_format: str = "auto") -> Any:
    """The recorded session in ``path``: a capture file of ``ctx-lab capture`` (its model
    requests as calls) or a transcript in one of :data:`TRANSCRIPT_FORMATS`."""
    from ..anatomy import capture_transcript, is_capture
    from ..recordings.transcripts import load_transcript

    if is_capture(path):
        return capture_transcript(path, transcript_format)
    return load_transcript(path, transcript_format)


def _capture_or_path(path: PathArg) -> Any:
    """A capture file read as a session (calibration reads other files itself)."""
    from ..anatomy import capture_transcript, is_capture

    return capture_transcript(path) if is_capture(path) else path


command(
    Command(
        "history",
        "show a saved conversation's context usage, segments and what needs summarizing",
        history,
        epilog="examples:\n  ctx-lab history chat.json\n"
        "  ctx-lab history chat.json --model gpt-4o --check",
        group="sessions",
    )
)
command(
    Command(
        "journal",
        "show what a crash journal holds: the recoverable step and tool batch, or counts",
        journal,
        epilog="examples:\n  ctx-lab journal recover ~/.agent/stream.db\n"
        "  ctx-lab journal stats ~/.agent/stream.db --format json",
        group="sessions",
    )
)
command(
    Command(
        "replay",
        "replay a recorded agent session against models: context, summarization, cost per call",
        replay,
        formats=("table", "csv", "json"),
        surfaces=frozenset({"cli", "rest"}),
        output=CORPUS_OUTPUT,
        epilog="examples:\n"
        "  ctx-lab replay session.jsonl --model claude-sonnet-4-5 --model gpt-4o\n"
        "  ctx-lab replay chat-log.jsonl --model gpt-4.1 --format csv -o replay.csv\n"
        "  ctx-lab replay ~/.claude/projects/*/*.jsonl --model claude-sonnet-4-5 "
        "--model gpt-4.1 -o sessions.parquet",
        group="sessions",
    )
)
command(
    Command(
        "calibrate",
        "fit a model's reported input tokens against an estimate and store it for counter=model",
        calibrate,
        epilog="examples:\n"
        "  ctx-lab calibrate ~/.claude/projects/*/*.jsonl --model claude-sonnet-4-5 --save\n"
        "  ctx-lab calibrate chat-log.jsonl --counter bytes/4\n"
        "  ctx-lab calibrate --list\n"
        "  ctx-lab calibrate --forget claude-sonnet-4-5",
        group="sessions",
    )
)
