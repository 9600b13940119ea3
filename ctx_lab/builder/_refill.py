"""Refilling a build: spare budget goes back to the blocks that gave it up — the files the
task names first (up to their exact text when it fits), then degraded and dropped blocks by
priority."""

from __future__ import annotations

from ._boost import NAMED_BOOST
from ._fit import Fitter, Remake, State, rung_text, section_text
from ._held import held_by

__all__ = ["refill"]


def _offer_exact(state: State, builder: Fitter) -> None:
    """A file the task names can climb above its default form, to its exact text, when the
    budget has room for it: the top rung of its ladder."""
    if state.boost < NAMED_BOOST or state.block.source != "file" or state.unformed:
        return
    if state.start_policy not in ("structural", "summarizable"):
        return
    if any(policy == "exact" for policy, _, _ in state.ladder):
        return
    exact = state.block.text
    tokens = builder.count(section_text(state.block, exact))
    kept: str | Remake = Remake("exact") if held_by(state.block) is not None else exact
    state.ladder.insert(0, ("exact", kept, tokens))


def refill(states: list[State], builder: Fitter, budget: int) -> None:
    """Climb degraded (and dropped) blocks back up their ladder, highest priority first, while
    the prompt fits: spare budget is never left unused when an upgrade would fit.

    A block that climbs tries its next rung at once; one that does not fit is skipped until the
    total falls below what it was then (a climb only adds tokens, except where references leave
    the collapsed list) — another pass retries those — so a refill costs about one pass."""
    for state in states:
        _offer_exact(state, builder)
    # the files the task names first, then by priority
    candidates = sorted(
        (s for s in states if s.ladder),
        key=lambda s: (s.boost < NAMED_BOOST, -s.block.priority, s.order),
    )
    failed_at: dict[int, int] = {}  # candidate → the total when its climb did not fit
    climbed = True
    while climbed:
        climbed = False
        for state in candidates:
            while state.ladder:
                total = builder.total(states)
                if failed_at.get(id(state), total + 1) <= total:
                    break  # it did not fit with this much room or more
                policy, rung, tokens = state.ladder[-1]
                # the running total needs the rung's tokens only: its text is made (a form
                # kept as how to make it) once the climb fits
                saved = (state.policy, state.tokens, state.dropped)
                state.policy, state.tokens, state.dropped = policy, tokens, False
                builder.changed(state)
                if builder.total(states) > budget:
                    state.policy, state.tokens, state.dropped = saved
                    builder.changed(state)
                    failed_at[id(state)] = total
                    break
                text, before_text = rung_text(state, rung), state.text
                state.text = text
                state.made_as = rung.asked if isinstance(rung, Remake) else None
                # the text's own tokens, as the degrade notes and tokens_after count them
                before = (
                    "dropped" if saved[2] else f"{saved[0]} ({builder.count(before_text)} tokens)"
                )
                state.ladder.pop()
                state.exhausted = False
                state.notes.append(f"refilled: {before} → {policy} ({builder.count(text)} tokens)")
                failed_at.pop(id(state), None)
                climbed = True
