"""Calibrating an estimate from recorded usage: how many tokens a provider reported for each
call against a named counter's count of what the call was sent, as a ratio with its spread —
stored for ``counter="model"`` to use (see :mod:`ctx_lab.tokens` calibrations)."""

from __future__ import annotations

import os
import statistics
from collections.abc import Callable, Iterable
from dataclasses import replace
from datetime import datetime
from itertools import accumulate

from ..clock import utc_now
from ..errors import CalibrationError, UsageError
from ..tokens import MODEL_COUNTER, Calibration, get_counter, save_calibration
from ..tokens._calibration import model_extends, model_family
from .manager import ContextManager
from .transcripts import Transcript, load_transcript

__all__ = ["MIN_GROWTH_TOKENS", "calibrate"]

MIN_GROWTH_TOKENS = 256  # growth steps smaller than this are too noisy to fit a ratio on
_METHODS = ("auto", "ratio", "growth")


def _band(samples: list[float]) -> tuple[float, float, float]:
    """Median and the 5th–95th percentile interval."""
    median = statistics.median(samples)
    if len(samples) < 2:
        return median, median, median
    cuts = statistics.quantiles(samples, n=20, method="inclusive")
    return median, min(cuts[0], median), max(cuts[-1], median)


def calibrate(
    transcripts: Iterable[Transcript | str | os.PathLike[str]],
    counter: str = "bytes/4",
    model: str | None = None,
    *,
    method: str = "auto",
    save: bool = True,
    directory: str | os.PathLike[str] | None = None,
    now: datetime | Callable[[], datetime] | None = None,
) -> Calibration:
    """Fit ``reported input ÷ counted`` for ``model``'s calls over ``transcripts`` (objects or
    files) with ``counter`` as the base, and (``save``) store it in the calibrations file of
    ``directory`` (default: the user config directory or ``$CTX_LAB_CONFIG_DIR``).

    ``method``: ``ratio`` divides each call's reported input by the count of what it was sent
    (system prompt, tools, messages since the last recorded compaction); ``growth`` divides how
    much the reported input grew between consecutive calls by how much the count grew — the
    choice when the transcript does not record everything the agent sent (Claude Code sessions
    leave out its system prompt and tool definitions); ``auto`` takes ``growth`` for Claude Code
    sessions and ``ratio`` for the rest. The ratio is the median with its 90 % interval.
    """
    if counter == MODEL_COUNTER:
        raise UsageError("calibrate a named counter (bytes/4, chars/3 …), not 'model'")
    if method not in _METHODS:
        raise UsageError(f"method {method!r}: use one of {', '.join(_METHODS)}")
    base = get_counter(counter)
    loaded = [t if isinstance(t, Transcript) else load_transcript(t) for t in transcripts]
    if not loaded:
        raise UsageError("nothing to calibrate: give at least one transcript")
    if model is None:
        families = sorted(
            {model_family(c.model) for t in loaded for c in t.calls if c.usage and c.model}
        )
        if len(families) != 1:
            raise UsageError(
                "name the model to calibrate (--model M): the transcripts' calls with usage "
                f"use {', '.join(families) or 'no model'}"
            )
        model = families[0]
    ratios: list[float] = []
    pairs: list[tuple[int, int, str]] = []  # (counted, reported, method) per call
    used_transcripts = 0
    methods: set[str] = set()
    for transcript in loaded:
        chosen = method
        if chosen == "auto":
            chosen = "growth" if transcript.format == "claude-code" else "ratio"
        manager = ContextManager(model, counter=base)
        manager.set_system_prompt(transcript.system or None)
        manager.set_tools(list(transcript.tools) or None)
        overhead = manager.overhead_tokens()
        prefix = [0, *accumulate(manager.count(m) for m in transcript.messages)]
        previous: tuple[int, int, int] | None = None  # (start, counted, reported)
        found = 0
        for call in transcript.calls:
            if call.usage is None or not model_extends(call.model, model):
                previous = None
                continue
            start, end = transcript.sent_range(call)
            counted = overhead + prefix[end] - prefix[start]
            reported = call.usage.reported_input
            if counted <= 0 or reported <= 0:
                continue
            if chosen == "ratio":
                ratios.append(reported / counted)
                found += 1
            elif previous is not None and previous[0] == start:
                grew, grew_reported = counted - previous[1], reported - previous[2]
                if grew >= MIN_GROWTH_TOKENS and grew_reported > 0:
                    ratios.append(grew_reported / grew)
                    found += 1
            pairs.append((counted, reported, chosen))
            previous = (start, counted, reported)
        if found:
            used_transcripts += 1
            methods.add(chosen)
    if not ratios:
        raise CalibrationError(
            f"no calls of {model} with provider usage to calibrate from"
            + (
                f" (growth needs consecutive calls that grow by ≥ {MIN_GROWTH_TOKENS} tokens)"
                if "growth" in (method, "auto")
                else ""
            )
        )
    ratio, low, high = _band(ratios)
    ratio, low, high = round(ratio, 4), round(low, 4), round(high, 4)
    hidden = [r - ratio * c for c, r, m in pairs if m == "growth"]
    overhead_tokens = max(int(statistics.median(hidden)), 0) if hidden else 0
    moment = now() if callable(now) else now or utc_now()
    warnings = []
    if len(ratios) < 20:
        warnings.append(f"only {len(ratios)} calls: the interval is rough")
    calibration = Calibration(
        model,
        base.name,
        ratio,
        low,
        high,
        len(ratios),
        used_transcripts,
        "+".join(sorted(methods)),
        overhead_tokens,
        moment.date().isoformat(),
        None,
        tuple(warnings),
    )
    if not save:
        return calibration
    return replace(calibration, saved_to=str(save_calibration(calibration, directory)))
