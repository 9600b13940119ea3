"""``history``, ``journal``, ``replay`` and ``calibrate``: a saved conversation's usage, what a
crash journal holds, a recorded session replayed against models, and an estimate calibrated
from recorded usage."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..errors import CalibrationError, UsageError
from ..files import confine, display_path
from ..tokens import MIN_CALLS, CalibrationList, forget_calibration, list_calibrations
from ..validate import choice, whole_number
from ._analysis import add_executor_arguments
from .params import add_counter, whole
from .registry import Command, command

if TYPE_CHECKING:
    from ..analysis import CorpusReport
    from ..conversation.recovery import JournalReport
    from ..conversation.replay import ReplayReport
    from ..conversation.report import HistoryReport
    from ..tokens import Calibration

__all__ = ["calibrate", "history", "journal", "replay"]

PathArg = str | os.PathLike[str]
JOURNAL_ACTIONS = ("recover", "stats")


def history(
    file: PathArg, *, model: str | None = None, check: bool = False, root: PathArg | None = None
) -> HistoryReport:
    """Usage, segments and what needs summarizing in a history saved with
    ``ContextManager.save()``, against its own model or ``model``; with ``check`` the CLI
    exits 1 unless the context fits."""
    from ..conversation.manager import ContextManager
    from ..conversation.report import history_report

    path = confine(root, file, what="file") if root is not None else file
    # a model named here counts with its own tokenizer (or a named estimate)
    manager = ContextManager.load(path, model, counter="model" if model else None)
    return history_report(manager, os.fspath(file), check)


def journal(action: str, db: PathArg, *, root: PathArg | None = None) -> JournalReport:
    """What recovery would find in a crash journal (``recover``), or its counts (``stats``);
    the journal is opened read-only."""
    from ..conversation.recovery import inspect_journal

    choice(action, JOURNAL_ACTIONS, "action")
    path = confine(root, db, what="db") if root is not None else db
    return inspect_journal(path, action)


def replay(
    file: PathArg | Sequence[PathArg],
    *,
    model: Sequence[str] = (),
    counter: str | None = None,
    preserve_recent: int = 4,
    registry: str | None = None,
    output_limit: int | None = None,
    caching: bool = True,
    transcript_format: str = "auto",
    per: str = "session",
    workers: int | None = None,
    scheduler: str | None = None,
    ship: str = "paths",
    progress: bool = True,
    no_worker_timeout: float | None = None,
    root: PathArg | None = None,
) -> ReplayReport | CorpusReport:
    """Replay a recorded session (Claude Code JSONL, OpenAI Chat Completions messages or log,
    Anthropic Messages JSON) on each ``model`` (default: the models it was recorded with): per
    call the context, budget, headroom, summarization needed, cost, reported vs counted.

    Several files (or ``workers``/``scheduler``) replay a corpus on the given models: one row
    per session and model (``per="call"``: per call), on a local process pool of ``workers``
    (0: in this process) or a Dask ``scheduler`` — a :class:`~ctx_lab.analysis.CorpusReport`.
    """
    files = [file] if isinstance(file, str | os.PathLike) else list(file)
    if not files:
        raise UsageError("nothing to replay: give one or more transcript files")
    if len(files) > 1 or workers is not None or scheduler is not None:
        from ..analysis import run_replay
        from ._analysis import executor_for

        executor, size = executor_for(workers, scheduler)
        return run_replay(
            files,
            model,
            counter=counter,
            per=per,
            preserve_recent=preserve_recent,
            output_limit=output_limit,
            caching=caching,
            transcript_format=transcript_format,
            registry=registry,
            executor=executor,
            workers=size,
            ship=ship,
            progress=progress,
            no_worker_timeout=no_worker_timeout,
            root=root,
        )
    from ..conversation.replay import replay_report
    from ..conversation.transcripts import load_transcript

    whole_number(preserve_recent, "preserve_recent")
    one = files[0]
    path = confine(root, one, what="file") if root is not None else one
    transcript = load_transcript(path, transcript_format)
    shown = display_path(path, root) if root is not None else os.fspath(one)
    return replay_report(
        transcript,
        list(model) or None,
        preserve_recent=preserve_recent,
        counter=counter or "model",
        registry=registry,
        output_limit=output_limit,
        caching=caching,
        source=shown,
    )


def calibrate(
    files: Sequence[PathArg] = (),
    *,
    model: str | None = None,
    counter: str = "bytes/4",
    method: str = "auto",
    save: bool = False,
    min_calls: int = MIN_CALLS,
    list: bool = False,
    forget: str | None = None,
    root: PathArg | None = None,
) -> Calibration | CalibrationList:
    """Fit the ratio of provider-reported input tokens to ``counter``'s count over the calls of
    ``model`` in recorded sessions; ``save`` stores it so ``counter=model`` uses it. ``list``
    shows the stored calibrations; ``forget`` removes one model's."""
    from ..conversation.calibrate import calibrate as fit

    if list or forget:
        if files:
            raise UsageError("--list and --forget take no files")
        if forget and not forget_calibration(forget):
            raise CalibrationError(f"no calibration stored for {forget!r} (see --list)")
        return list_calibrations(forgotten=forget)
    if not files:
        raise UsageError("nothing to calibrate: give one or more transcript files")
    paths = [confine(root, f, what="file") if root is not None else f for f in files]
    return fit(paths, counter, model, method=method, save=save, min_calls=min_calls)


def _history_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="a history saved with ContextManager.save()")
    p.add_argument(
        "--model", metavar="M", help="evaluate against this model instead of the saved one"
    )
    p.add_argument("--check", action="store_true", help="exit 1 unless the context fits")


def _journal_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=JOURNAL_ACTIONS, help="what recovery would find, or counts")
    p.add_argument("db", metavar="DB", help="a SQLite file with a stream and/or tool journal")


# transcripts.FORMATS, spelled here so building the parser imports no engine (a test compares)
TRANSCRIPT_FORMATS = (
    "claude-code",
    "codex",
    "gemini-cli",
    "openai-chat",
    "openai-responses",
    "anthropic-messages",
)


def _replay_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "file",
        nargs="+",
        metavar="FILE",
        help="recorded sessions (JSONL or JSON); several: a corpus",
    )
    p.add_argument(
        "--model",
        metavar="M",
        action="append",
        help="replay on this model (repeatable; default for one file: the models it was "
        "recorded with)",
    )
    add_counter(p, "model", model_default=True)
    p.add_argument(
        "--preserve-recent",
        dest="preserve_recent",
        type=whole("--preserve-recent"),
        metavar="N",
        help="newest messages always kept as originals (default 4)",
    )
    p.add_argument(
        "--output-limit",
        dest="output_limit",
        type=whole("--output-limit"),
        metavar="N",
        help="output tokens reserved per call (default: the model's maximum)",
    )
    p.add_argument(
        "--no-caching",
        dest="caching",
        action="store_false",
        help="price every input token as new (no prompt cache)",
    )
    p.add_argument("--registry", metavar="NAME", help="where models' limits and prices come from")
    p.add_argument(
        "--transcript-format",
        dest="transcript_format",
        choices=("auto", *TRANSCRIPT_FORMATS),
        help="the file's format (default: detected)",
    )
    p.add_argument(
        "--per",
        choices=("session", "call"),
        help="a corpus's rows: one per session and model (default) or per call",
    )
    add_executor_arguments(p)


def _calibrate_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="*", metavar="FILE", help="recorded sessions with usage")
    p.add_argument("--model", metavar="M", help="whose calls to fit (default: the most used)")
    p.add_argument(
        "--counter",
        metavar="NAME",
        help="the estimate to calibrate (default bytes/4; `ctx-lab counters` lists them)",
    )
    p.add_argument(
        "--method",
        choices=("auto", "ratio", "growth"),
        help="ratio per call, growth between calls (for transcripts without the system "
        "prompt), or auto (default)",
    )
    p.add_argument(
        "--min-calls",
        dest="min_calls",
        type=whole("--min-calls"),
        metavar="N",
        help=f"fewest fitted calls to accept (default {MIN_CALLS})",
    )
    p.add_argument(
        "--save",
        action="store_true",
        help="store the calibration so counter=model uses it (default: show only)",
    )
    p.add_argument("--list", action="store_true", help="show the stored calibrations")
    p.add_argument("--forget", metavar="MODEL", help="remove MODEL's stored calibration")


command(
    Command(
        "history",
        "show a saved conversation's context usage, segments and what needs summarizing",
        history,
        _history_arguments,
        epilog="examples:\n  ctx-lab history chat.json\n"
        "  ctx-lab history chat.json --model gpt-4o --check",
    )
)
command(
    Command(
        "journal",
        "show what a crash journal holds: the recoverable step and tool batch, or counts",
        journal,
        _journal_arguments,
        epilog="examples:\n  ctx-lab journal recover ~/.agent/stream.db\n"
        "  ctx-lab journal stats ~/.agent/stream.db --format json",
    )
)
command(
    Command(
        "replay",
        "replay a recorded agent session against models: context, summarization, cost per call",
        replay,
        _replay_arguments,
        formats=("table", "csv", "json"),
        epilog="examples:\n"
        "  ctx-lab replay session.jsonl --model claude-sonnet-4-5 --model gpt-4o\n"
        "  ctx-lab replay chat-log.jsonl --model gpt-4.1 --format csv -o replay.csv\n"
        "  ctx-lab replay ~/.claude/projects/*/*.jsonl --model claude-sonnet-4-5 "
        "--model gpt-4.1 -o sessions.parquet",
    )
)
command(
    Command(
        "calibrate",
        "fit a model's reported input tokens against an estimate and store it for counter=model",
        calibrate,
        _calibrate_arguments,
        epilog="examples:\n"
        "  ctx-lab calibrate ~/.claude/projects/*/*.jsonl --model claude-sonnet-4-5 --save\n"
        "  ctx-lab calibrate chat-log.jsonl --model gpt-4o --counter bytes/4\n"
        "  ctx-lab calibrate --list\n"
        "  ctx-lab calibrate --forget claude-sonnet-4-5",
    )
)
