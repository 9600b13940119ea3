"""Calibrating an estimate from recorded usage: how many tokens a provider reported for each
call against a named counter's count of what the call was sent, as a ratio with its spread —
stored for ``counter="model"`` to use (see :mod:`ctx_lab.tokens` calibrations)."""

from __future__ import annotations

import hashlib
import math
import os
import statistics
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from itertools import accumulate
from typing import Any

from ...choices import CALIBRATION_METHODS
from ...clock import utc_now
from ...conversation import ContextManager
from ...errors import CalibrationError, CtxLabError, InputFileError, TranscriptError, UsageError
from ...files import read_bytes
from ...tokens import (
    MIN_CALLS,
    MODEL_COUNTER,
    Calibration,
    get_counter,
    model_extends,
    model_family,
)
from ...validate import whole_number
from ..transcripts import Transcript, images_cost, load_transcript
from ._calibrate_band import band as _band

__all__ = ["MIN_GROWTH_TOKENS", "calibrate"]

MIN_GROWTH_TOKENS = 256  # growth steps smaller than this are too noisy to fit a ratio on
# history only grows between compactions: a call reporting less than this share of the previous
# call's input measured something else (a provider-side compaction or cache change)
SHRINK_LIMIT = 0.8
_METHODS = CALIBRATION_METHODS


def _fingerprint(source: Transcript | str | os.PathLike[str]) -> tuple[str, str] | None:
    if isinstance(source, Transcript):
        return None
    try:
        data = read_bytes(source)
    except CtxLabError:
        return None
    return os.fspath(source), hashlib.sha256(data).hexdigest()


def _load_all(sources: Sequence[Any]) -> tuple[list[Transcript], dict[Any, str]]:
    """Every source as a transcript; over several files, one that cannot be read is left out
    and reported (a single file's error is raised as it is)."""
    loaded: list[Transcript] = []
    unreadable: dict[Any, str] = {}
    for source in sources:
        if isinstance(source, Transcript):
            loaded.append(source)
            continue
        try:
            loaded.append(load_transcript(source))
        except (TranscriptError, InputFileError) as exc:
            if len(sources) == 1:
                raise
            unreadable[source] = str(exc).removeprefix(f"{os.fspath(source)}: ")
    if not loaded:
        first = next(iter(unreadable))
        raise TranscriptError(
            f"none of the {len(sources)} files could be read ({first}: {unreadable[first]})"
        )
    return loaded, unreadable


def calibrate(
    transcripts: Iterable[Transcript | str | os.PathLike[str]],
    counter: str = "bytes/4",
    model: str | None = None,
    *,
    method: str = "auto",
    save: bool = False,
    min_calls: int = MIN_CALLS,
    directory: str | os.PathLike[str] | None = None,
    now: datetime | Callable[[], datetime] | None = None,
    growth_model: bool = True,
) -> Calibration:
    """Fit ``reported input ÷ counted`` for ``model``'s calls over ``transcripts`` (objects or
    files) with ``counter`` as the base; ``save=True`` (or ``.save()`` on the result) stores it
    in the calibrations file of ``directory`` (default: the user config directory or
    ``$CTX_LAB_CONFIG_DIR``) for ``counter="model"`` to use.

    ``method``: ``ratio`` divides each call's reported input by the count of what it was sent
    (system prompt, tools, messages since the last recorded compaction); ``growth`` divides how
    much the reported input grew between consecutive calls by how much the count grew — the
    choice when the transcript does not record everything the agent sent (Claude Code sessions
    leave out its system prompt and tool definitions); ``auto`` takes ``growth`` for Claude Code
    sessions and ``ratio`` for the rest. The ratio is the median with its 90 % interval.
    Unless ``ratio`` is asked for by name, the growth model (a ratio per content class and a
    framing per tool message, with a band measured on held-out sessions) is fitted beside it
    and is what the counter counts with; with ``method="ratio"`` the counter is the scalar.
    ``growth_model=False`` leaves the growth model out (a caller that scales by the ratio
    alone: the ratio and its interval are the same).

    Only calls with provider usage count; calls the provider compacted on its side, and calls
    whose reported input shrank without a recorded compaction (a cache or server-side change),
    are left out and counted by reason. At least ``min_calls`` fitted calls are needed, and a
    ratio outside :data:`~ctx_lab.tokens.PLAUSIBLE_RATIO` is refused with the evidence
    (:class:`~ctx_lab.errors.CalibrationError`).
    """
    if counter == MODEL_COUNTER:
        raise UsageError("calibrate a named counter (bytes/4, chars/3 …), not 'model'")
    if method not in _METHODS:
        raise UsageError(f"method {method!r}: use one of {', '.join(_METHODS)}")
    min_calls = whole_number(min_calls, "min_calls", minimum=2)
    base = get_counter(counter)
    sources = list(transcripts)
    if not sources:
        raise UsageError("nothing to calibrate: give at least one transcript")
    loaded, unreadable = _load_all(sources)
    sources = [s for s in sources if not isinstance(s, Transcript) and s not in unreadable] + [
        s for s in sources if isinstance(s, Transcript)
    ]
    fingerprints = tuple(f for f in (_fingerprint(s) for s in sources) if f is not None)
    _need_usage(loaded)
    model, chosen_note = _chosen_model(loaded, model)
    fit = _Fit()
    for transcript in loaded:
        _fit_transcript(fit, transcript, model, base, method)
    if not fit.ratios:
        raise CalibrationError(
            f"no calls of {model} with provider usage to calibrate from"
            + (
                f" (growth needs consecutive calls that grow by ≥ {MIN_GROWTH_TOKENS} tokens)"
                if "growth" in (method, "auto")
                else ""
            )
            + (f"; left out: {_reasons(fit.excluded)}" if fit.excluded else "")
        )
    moment = now() if callable(now) else now or utc_now()
    warnings = [chosen_note] if chosen_note else []
    warnings += _read_warnings(unreadable, len(fit.ratios))
    calibration = fit.calibration(model, base.name, moment, tuple(warnings), fingerprints)
    if method != "ratio" and growth_model:  # asked for by name, the ratio is what counts
        calibration = replace(calibration, **_growth_model(loaded, base, model))
    reason = calibration.problem(min_calls)
    if reason is not None:
        extremes = sorted(fit.evidence, key=lambda e: abs(math.log(e[0])), reverse=True)[:3]
        raise CalibrationError(
            f"refused: {calibration.describe()}: {reason}"
            + (f"; left out: {_reasons(fit.excluded)}" if fit.excluded else "")
            + "; the furthest calls: "
            + "; ".join(f"{what} (×{r:.3g})" for r, what in extremes)
        )
    if not save:
        return calibration
    return calibration.save(directory)


def _growth_model(loaded: list[Transcript], base: Any, model: str) -> dict[str, Any]:
    """The growth model of ``model``'s calls over every transcript with its band and how the
    band was measured (:mod:`._growth_band`), as the calibration's fields."""
    from ._growth_band import fit_with_band

    found = fit_with_band(loaded, base, model)
    return {
        "classes": found.fit.classes,
        "framing": found.fit.framing,
        "growth_band": found.band.as_tuple() if found.band is not None else None,
        "band_how": found.how,
        "held_out": found.errors,
    }


def _need_usage(loaded: list[Transcript]) -> None:
    """Calibration fits against the provider's counts: some call must report usage."""
    without = [t.source or "<transcript>" for t in loaded if not t.has_usage]
    if len(without) == len(loaded):
        raise CalibrationError(
            f"no recorded usage in {', '.join(without[:3])}"
            + (f" and {len(without) - 3} more" if len(without) > 3 else "")
            + ": the provider's token counts are what calibration fits against"
        )


def _chosen_model(loaded: list[Transcript], model: str | None) -> tuple[str, str]:
    """``model``, or the family most calls with usage were made with (and a note naming the
    others); a tie is a usage error."""
    if model is not None:
        return model, ""
    families = Counter(
        model_family(c.model) for t in loaded for c in t.calls if c.usage and c.model
    )
    ranked = families.most_common()
    if not ranked or (len(ranked) > 1 and ranked[0][1] == ranked[1][1]):
        raise UsageError(
            "name the model to calibrate (--model M): the transcripts' calls with usage "
            f"use {', '.join(sorted(families)) or 'no model'}"
        )
    chosen = ranked[0][0]
    if len(ranked) == 1:
        return chosen, ""
    others = ", ".join(f"{name} ({n})" for name, n in ranked[1:])
    return chosen, (
        f"fitted {chosen}, the model of {ranked[0][1]} of {sum(families.values())} calls "
        f"with usage; also recorded: {others} — pass --model to fit one of them"
    )


@dataclass
class _Fit:
    """What the fitted calls gave, over every transcript."""

    ratios: list[float] = field(default_factory=list)
    evidence: list[tuple[float, str]] = field(default_factory=list)  # (ratio, what) per call
    pairs: list[tuple[int, int, str]] = field(default_factory=list)  # (counted, reported, method)
    excluded: Counter[str] = field(default_factory=Counter)
    used_transcripts: int = 0
    methods: set[str] = field(default_factory=set)

    def calibration(
        self,
        model: str,
        base: str,
        moment: datetime,
        warnings: tuple[str, ...],
        fingerprints: tuple[tuple[str, str], ...],
    ) -> Calibration:
        """The median ratio with its 90 % interval, and the hidden prefix growth implies."""
        ratio, low, high = _band(self.ratios)
        ratio, low, high = round(ratio, 4), round(low, 4), round(high, 4)
        hidden = [r - ratio * c for c, r, m in self.pairs if m == "growth"]
        return Calibration(
            model=model,
            base=base,
            ratio=ratio,
            low=low,
            high=high,
            calls=len(self.ratios),
            transcripts=self.used_transcripts,
            method="+".join(sorted(self.methods)),
            overhead=max(int(statistics.median(hidden)), 0) if hidden else 0,
            fitted_on=moment.date().isoformat(),
            saved_to=None,
            warnings=warnings,
            files=fingerprints,
            excluded=tuple(sorted(self.excluded.items())),
        )


def _fit_transcript(fit: _Fit, transcript: Transcript, model: str, base: Any, method: str) -> None:
    """Each call of ``model`` with usage: its ratio (``ratio``), or its growth's (``growth``:
    a pair that sends thinking not sent before, or no longer sends some, measures the thinking
    — the file holds a summary — and is left out)."""
    from ._delta import thinking_blocks

    chosen = method
    if chosen == "auto":
        chosen = "growth" if transcript.format == "claude-code" else "ratio"
    manager = ContextManager(model, counter=base)
    manager.set_system_prompt(transcript.system or None)
    manager.set_tools(list(transcript.tools) or None)
    overhead = manager.overhead_tokens()
    prefix = [
        0,
        *accumulate(manager.count(m) + images_cost(m, model) for m in transcript.messages),
    ]
    previous: tuple[int, int, int] | None = None  # (start, counted, reported)
    sent = thinking_blocks(transcript) if chosen == "growth" else {}
    before: tuple[int, ...] = ()  # the thinking the previous call sent again
    found = 0
    name = transcript.source or "<transcript>"
    for call in transcript.calls:
        reason = _left_out(call, model)
        if reason is not None:
            if reason:
                fit.excluded[reason] += 1
            previous = None
            continue
        assert call.usage is not None
        start, end = transcript.sent_range(call)
        counted = overhead + prefix[end] - prefix[start]
        reported = call.usage.reported_input
        if counted <= 0 or reported <= 0:
            fit.excluded["empty"] += 1
            continue
        if previous is not None and previous[0] == start and reported < SHRINK_LIMIT * previous[2]:
            fit.excluded["reported input shrank (cache or server-side change)"] += 1
            previous = None
            continue
        what = f"{name} call {call.index}: counted {counted:,}, reported {reported:,}"
        if chosen == "ratio":
            fit.ratios.append(reported / counted)
            fit.evidence.append((fit.ratios[-1], what))
            found += 1
        elif previous is not None and previous[0] == start:
            grew, grew_reported = counted - previous[1], reported - previous[2]
            if sent.get(call.index, ()) != before:  # it grew by thinking the file summarizes
                fit.excluded["thinking sent again changed (measured apart)"] += 1
            elif grew >= MIN_GROWTH_TOKENS and grew_reported > 0:
                fit.ratios.append(grew_reported / grew)
                fit.evidence.append((fit.ratios[-1], what))
                found += 1
        fit.pairs.append((counted, reported, chosen))
        previous = (start, counted, reported)
        before = sent.get(call.index, ())
    if found:
        fit.used_transcripts += 1
        fit.methods.add(chosen)


def _left_out(call: Any, model: str) -> str | None:
    """Why a call is not fitted (``""``: another model's, not counted), or None."""
    if call.usage is None:
        return "without usage"
    if not model_extends(call.model, model):
        return ""
    if call.compacted:
        return "compacted by the provider"
    return None


def _read_warnings(unreadable: dict[str, str], fitted: int) -> list[str]:
    found = []
    if unreadable:
        shown = "; ".join(f"{name}: {why}" for name, why in list(unreadable.items())[:5])
        more = f" and {len(unreadable) - 5} more" if len(unreadable) > 5 else ""
        found.append(
            f"{len(unreadable)} file(s) could not be read and were left out: {shown}{more}"
        )
    if fitted < 20:
        found.append(f"only {fitted} calls: the interval is rough")
    return found


def _reasons(excluded: Counter[str]) -> str:
    return ", ".join(f"{n} {reason}" for reason, n in sorted(excluded.items()))
