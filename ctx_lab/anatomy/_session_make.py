"""A session's anatomy made from its calls' anatomies: each diffed with the one before, and
the cache engine's prediction for each call beside it (told what each request body shows
changed)."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from ..choices import CacheCause
from ._request import RequestAnatomy
from ._session import CallDiff, SessionAnatomy, diff_calls

__all__ = ["engine_cause", "make_session"]


# the body diff's reason for a break, in the cache engine's vocabulary
def engine_cause(reason: str) -> CacheCause:
    """The cache engine's cause for an anatomy's ``cache_break`` text."""
    if reason.startswith(("the tool list", "the tool definitions")):
        return "tools changed"
    if "system prompt" in reason or reason.startswith("a memory file"):
        return "system prompt changed"
    return "message modified"


def make_session(
    source: str,
    made: list[tuple[RequestAnatomy, str]],
    replayed: Sequence[int | None] = (),
    warnings: Sequence[str] = (),
    transcript: Any = None,
    bodies: Any = None,
    simulated: Any = None,
) -> SessionAnatomy:
    """The calls' anatomies (each with its system prompt text) as a session: each diffed
    with the one before. ``simulated``: the recorded session the cache engine steps (the
    transcript, or one made of captured calls), each call's prediction beside its row."""
    diffs: list[CallDiff | None] = [None]
    for (before, system_before), (after, system_after) in pairwise(made):
        diffs.append(diff_calls(before, after, [system_before, system_after]))
    anatomies = tuple(a for a, _ in made)
    notes = list(warnings)
    # what the registry said of a call's model (assumed limits, a fallback row): once
    notes += dict.fromkeys(
        w for a in anatomies for w in a.warnings if w.startswith(f"{a.model}: ") and w not in notes
    )
    cache = _simulated(simulated, anatomies, diffs, notes) if simulated and anatomies else ()
    return SessionAnatomy(
        source=source,
        calls=anatomies,
        diffs=tuple(diffs[: len(made)]),
        replayed=tuple(replayed),
        warnings=tuple(notes),
        transcript=transcript,
        bodies=bodies,
        cache=cache,
    )


def _simulated(
    transcript: Any,
    anatomies: Sequence[RequestAnatomy],
    diffs: Sequence[CallDiff | None],
    warnings: list[str],
) -> tuple[Any, ...]:
    """Per anatomy, the cache engine's call (``ctx-lab cache`` on the same session, told what
    each request body shows changed), matched by call number."""
    from ..errors import CtxLabError
    from ..recordings import simulate_cache

    changes: dict[int, tuple[float, CacheCause, str]] = {}
    for anatomy, diff in zip(anatomies, diffs, strict=False):
        if diff is not None and diff.cache_break and anatomy.call is not None and anatomy.total:
            share = min(diff.stable_prefix / anatomy.total, 1.0)
            changes[anatomy.call - 1] = (share, engine_cause(diff.cache_break), diff.cache_break)
    try:
        report = simulate_cache(transcript, model=None if transcript.models else anatomies[0].model,
                                changes=changes)  # fmt: skip
    except CtxLabError as exc:
        warnings.append(f"no cache prediction ({exc})")
        return ()
    by_call = {c.call: c for c in report.calls}
    return tuple(by_call.get(a.call) if a.call is not None else None for a in anatomies)
