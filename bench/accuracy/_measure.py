"""Each engine measured on each corpus file against what the file itself says (its usage, its
compactions) and against the hand counts: the figures of ``docs/accuracy.md``."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ._corpus import Entry

CACHE_CLOSE = 0.02  # the cache split within ±2 % of the reported (sizes from usage)
COUNTED_CLOSE = 0.10  # the read within ±10 % (sizes counted)
RECORDED_CLOSE = 0.01  # the recorded policy within 1 % of the bill
MISS_DROP = 1024  # a reported miss: the read fell this many tokens below what was cached
LOSO_MIN_CALLS = 20  # a session left out in the calibration's evaluation has at least these


@dataclass
class FileResult:
    """What one file gave each engine (None: the engine does not apply to it)."""

    entry: Entry
    error: str = ""  # a file no command could read: said, never a traceback
    calls: int | None = None
    usage: tuple[int, int, int, int] | None = None
    compactions: int | None = None
    cache_judged: int = 0
    cache_close: int = 0
    counted_judged: int = 0
    counted_close: int = 0
    misses: int = 0
    misses_named: int = 0
    recorded_judged: int = 0
    recorded_close: int = 0
    recorded_cost: float | None = None
    billed_cost: float | None = None
    compaction_expected: int | None = None  # the call a recorded auto compaction came before
    compaction_predicted: int | None = None  # the claude-code policy's first compaction
    findings: tuple[tuple[str, int], ...] | None = None  # check's cache rules, as check found
    notes: list[str] = field(default_factory=list)

    @property
    def reader_exact(self) -> bool | None:
        """The calls, usage sums and compactions ctx_lab read equal the hand counts."""
        if self.calls is None:
            return None
        return (
            self.calls == self.entry.calls
            and self.usage == self.entry.usage
            and self.compactions == len(self.entry.compactions)
        )


def _usage_sums(transcript: Any) -> tuple[int, int, int, int]:
    sums = [0, 0, 0, 0]
    for call in transcript.calls:
        u = call.usage
        if u is None:
            continue
        sums[0] += u.input_tokens
        sums[1] += u.cache_creation_input_tokens
        sums[2] += u.cache_read_input_tokens
        sums[3] += u.output_tokens
    return (sums[0], sums[1], sums[2], sums[3])


def _close(predicted: int, reported: int, share: float) -> bool:
    return abs(predicted - reported) <= max(share * reported, 1)


def _cache(result: FileResult, path: str) -> None:
    from ctx_lab.commands import cache

    usage = cache(path)
    previous = None
    for call in usage.calls:
        reported = call.reported
        if reported is None:
            continue
        result.cache_judged += 1
        result.cache_close += _close(call.cache_read, reported.cache_read, CACHE_CLOSE) and _close(
            call.cache_write, reported.cache_write, CACHE_CLOSE
        )
        if previous is not None and reported.cache_read < previous - MISS_DROP:
            result.misses += 1
            result.misses_named += call.miss_cause is not None
        previous = reported.cache_read + reported.cache_write
    result.billed_cost = usage.cost.actual
    counted = cache(path, sizes="counts")
    for call in counted.calls:
        if call.reported is not None:
            result.counted_judged += 1
            result.counted_close += _close(call.cache_read, call.reported.cache_read, COUNTED_CLOSE)


def _policies(result: FileResult, path: str, transcript: Any) -> None:
    from ctx_lab.commands import policies

    report = policies(path, policy=("recorded", "claude-code"))
    recorded, agent = report.policy("recorded"), report.policy("claude-code")
    billed = {i + 1: c.usage for i, c in enumerate(transcript.calls) if c.usage is not None}
    for call in recorded.calls:
        usage = billed.get(call.call)
        if usage is None:
            continue
        total = usage.input_tokens + usage.cache_read_input_tokens
        total += usage.cache_creation_input_tokens
        result.recorded_judged += 1
        result.recorded_close += _close(call.input, total, RECORDED_CLOSE)
    result.recorded_cost = recorded.cost
    auto = [n for n, trigger in result.entry.compactions if trigger == "auto"]
    if result.entry.main_claude_session and auto:
        result.compaction_expected = auto[0] + 1
        result.compaction_predicted = agent.compactions[0] if agent.compactions else None


def _check(result: FileResult, path: str) -> None:
    from ctx_lab.commands import check

    report = check(path)
    names = [name for name, _ in result.entry.findings]
    counts = {name: sum(f.rule == name for f in report.findings) for name in names}
    result.findings = tuple(sorted(counts.items()))


def measure_file(entry: Entry) -> FileResult:
    """Every engine on one file."""
    from ctx_lab.errors import CtxLabError
    from ctx_lab.recordings import load_transcript

    result = FileResult(entry)
    path = str(entry.location)
    try:
        transcript = load_transcript(path)
    except CtxLabError as exc:
        result.error = str(exc)[:200]
        return result
    result.calls = len(transcript.calls)
    result.usage = _usage_sums(transcript)
    result.compactions = len(transcript.compactions)
    if not transcript.has_usage or not transcript.models:
        result.notes.append("no usage or no model: cache and policies not measured")
        return result
    for stage in (_cache, _policies, _check):
        try:
            stage(result, path, transcript) if stage is _policies else stage(result, path)
        except CtxLabError as exc:
            result.notes.append(f"{stage.__name__.strip('_')}: {str(exc)[:160]}")
    return result


@dataclass
class Calibration:
    """The calibration fitted leave-one-session-out: per model, each session evaluated with the
    fit of the others."""

    sessions: list[tuple[str, str, int]] = field(default_factory=list)  # model, file, calls
    inside: float | None = None
    half_width: float | None = None
    error: float | None = None
    per_session: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def _models(transcript: Any) -> list[str]:
    """The models a session made at least :data:`LOSO_MIN_CALLS` calls with usage to."""
    counts: dict[str, int] = {}
    for call in transcript.calls:
        if call.model and call.usage is not None:
            counts[call.model] = counts.get(call.model, 0) + 1
    return sorted(m for m, n in counts.items() if n >= LOSO_MIN_CALLS)


def measure_calibration(entries: Sequence[Entry]) -> Calibration:
    """Leave-one-session-out over the Claude Code main sessions, per model they made at least
    :data:`LOSO_MIN_CALLS` calls to."""
    from ctx_lab.errors import CtxLabError
    from ctx_lab.recordings import calibrate, evaluate_calibration, load_transcript

    found = Calibration()
    by_model: dict[str, list[tuple[Entry, Any]]] = {}
    for entry in entries:
        if not entry.main_claude_session or entry.calls < LOSO_MIN_CALLS:
            continue
        transcript = load_transcript(str(entry.location))
        for model in _models(transcript):
            by_model.setdefault(model, []).append((entry, transcript))
    rows = []
    for model, sessions in sorted(by_model.items()):
        if len(sessions) < 2:
            found.notes.append(f"{model}: one session only, not evaluated left out")
            continue
        for left, transcript in sessions:
            others = [t for e, t in sessions if e is not left]
            try:
                fit = calibrate(others, "bytes/4", model, method="growth")
                evaluation = evaluate_calibration(fit, [transcript])
            except CtxLabError as exc:
                found.notes.append(f"{left.name}: {str(exc)[:160]}")
                continue
            found.sessions.append((model, left.name, len(evaluation.rows)))
            rows += evaluation.rows
            errors = [abs(r.estimate - r.reported) / r.reported for r in evaluation.rows
                      if r.reported]  # fmt: skip
            if errors:
                found.per_session[f"{model} {left.name}"] = round(statistics.median(errors), 4)
    if rows:
        found.inside = round(sum(r.low <= r.reported <= r.high for r in rows) / len(rows), 4)
        widths = [(r.high - r.low) / 2 / r.estimate for r in rows if r.estimate]
        found.half_width = round(statistics.median(widths), 4)
        errors = [abs(r.estimate - r.reported) / r.reported for r in rows if r.reported]
        found.error = round(statistics.median(errors), 4)
    return found
