"""``counter="model"``: the model's own tokenizer when ctx_lab has it exactly, else a named
estimate — resolved once, here, for every engine."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import CalibrationError, CounterUnavailableError, UsageError
from ._lookup import get_counter

__all__ = ["MODEL_COUNTER", "MODEL_ESTIMATE", "CounterChoice", "resolve_counter"]

MODEL_COUNTER = "model"
MODEL_ESTIMATE = "bytes/4"  # what a model without a tokenizer here is counted with


@dataclass(frozen=True)
class CounterChoice:
    """The counter an engine counts with: its ``name``, what was asked for (``requested``),
    whether it is ``exact``, and a ``note`` when it is an estimate standing in for a model."""

    name: str
    requested: str
    exact: bool
    note: str = ""
    counter: Any = None  # a counter object given by the caller (counts instead of ``name``)
    calibration: Any = None  # the Calibration behind a calibrated estimate

    @property
    def use(self) -> Any:
        """What to count with: the caller's counter object, else the counter's name."""
        return self.counter if self.counter is not None else self.name


def resolve_counter(
    counter: str | None, model: str | None, default: str, *, budget: bool = False
) -> CounterChoice:
    """``counter`` as given; none given means ``model`` when a model is, else ``default`` (the
    engine's design default). ``model`` means ``model``'s own tokenizer (``o200k`` for GPT-4o
    …, ``cl100k`` for GPT-4 …) when it works here, else :data:`MODEL_ESTIMATE`, marked inexact
    — never an OpenAI tokenizer for another vendor's model. A model without a tokenizer here
    that has a stored calibration (``ctx-lab calibrate``) counts with it: the estimate scaled
    by the fitted ratio — per content class where the calibration has classes — still inexact,
    its band in the note. ``budget``: the count decides what fits a budget, so it takes the
    band's upper edge (and the note says so)."""
    requested = counter or (MODEL_COUNTER if model else default)
    if requested != MODEL_COUNTER:
        return CounterChoice(requested, requested, get_counter(requested).exact)
    if not model:
        raise UsageError("counter 'model' needs a model: give --model M (model=…)")
    from ..models import tokenizer_for  # the model registry: only where a model is named
    from ._calibration_store import find_calibration

    tokenizer = tokenizer_for(model)
    if tokenizer is not None:
        try:
            found = get_counter(tokenizer)
            found.count("probe")
        except CounterUnavailableError as exc:
            return CounterChoice(
                MODEL_ESTIMATE,
                requested,
                False,
                f"{model} counts with {tokenizer}, unavailable here ({exc.reason}); "
                f"estimated with {MODEL_ESTIMATE}",
            )
        return CounterChoice(found.name, requested, True)
    try:
        calibration = find_calibration(model)
    except CalibrationError as exc:
        return CounterChoice(
            MODEL_ESTIMATE,
            requested,
            False,
            f"no exact tokenizer for {model} in ctx_lab: estimated with {MODEL_ESTIMATE} "
            f"({exc}; run `ctx-lab calibrate` again to replace it)",
        )
    if calibration is not None:
        return CounterChoice(
            calibrated_name(calibration, budget),
            requested,
            False,
            f"no exact tokenizer for {calibration.describe()}"
            + ("; per content class" if any(not c.pooled for c in calibration.classes) else "")
            + ("; budgets count at the band's upper edge" if budget else ""),
            calibration=calibration,
        )
    from ._claude_estimate import claude_estimate

    builtin = claude_estimate(model, budget)
    if builtin is not None:  # a Claude model: the built-in estimate, said
        name, note, fitted = builtin
        return CounterChoice(name, requested, False, note, calibration=fitted)
    return CounterChoice(
        MODEL_ESTIMATE,
        requested,
        False,
        f"no exact tokenizer for {model} in ctx_lab: estimated with {MODEL_ESTIMATE}",
    )


def calibrated_name(calibration: Any, budget: bool = False) -> str:
    """The counter a calibration counts with (:meth:`Calibration.counter_for`): its base scaled
    by each class's ratio, with the framing per tool message — by the band's upper edge for a
    ``budget``."""
    return str(calibration.counter_for(budget))
