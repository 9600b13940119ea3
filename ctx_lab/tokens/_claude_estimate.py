"""ctx_lab's built-in estimate of Claude's input tokens: a calibration of ``bytes/4`` fitted on
public Claude Code sessions with their usage (``claude_estimate.json``, written by
``scripts/fit_claude_estimate.py``; the sessions, their repositories, commits and licences are
listed in it). ``counter="model"`` counts a Claude model with it where no calibration of one's
own is stored (``ctx-lab calibrate … --save`` replaces it) — never silently: the note says what
it is, what it was fitted on and how it held on sessions it never saw.

Claude has no offline tokenizer of Anthropic's. ``ctok`` (PyPI, 1.1.0, read 2026-12-07:
https://pypi.org/project/ctok/1.1.0/) reconstructs counts offline but is not installable here
(no distribution on the package index this project builds from), and ``anthropic-tokenizer``
0.1.0 embeds the 65,000-token vocabulary of Claude 2, which does worse than ``bytes/4`` on the
shared sessions (measured: docs/calibration.md).

Which tokenizer a Claude model uses, by version (ctok's page, read 2026-12-07): Claude 3 through
Opus 4.6 share one vocabulary ("v3") — every session fitted on is of these; Opus 4.7 through 4.9
use a newer one, and 5.x its vocabulary with another message frame. Anthropic's Opus 4.7
announcement (https://www.anthropic.com/news/claude-opus-4-7, as quoted by
https://www.nxcode.io/resources/news/claude-opus-4-7-developer-guide-api-claude-code-migration-2026,
read 2026-12-07) puts the newer tokenizer at 1.0–1.35× the tokens of the same text: for those
models the estimate is a lower bound (said), and budgets count 1.35× its upper edge.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from ._calibration import Calibration, band_width

__all__ = ["NEWER_TOKENIZER", "builtin_claude_calibration", "claude_estimate", "claude_version"]

DATA = Path(__file__).with_name("claude_estimate.json")
FITTED_FAMILY = (3, 0), (4, 7)  # the versions whose tokenizer the sessions fitted on used
NEWER_TOKENIZER = 1.35  # the most the newer tokenizer counts of the same text (cited above)
_VERSION = re.compile(
    r"^claude-(?:(?:opus|sonnet|haiku|instant)-)?(\d{1,2})(?:[-.](\d{1,2}))?(?!\d)"
)


def claude_version(model: str) -> tuple[int, int] | None:
    """``(major, minor)`` of a Claude model name (``claude-opus-4-6`` → (4, 6),
    ``claude-3-5-sonnet-20241022`` → (3, 5)); None when the name says none."""
    name = model.strip().lower().rsplit("/", 1)[-1]
    found = _VERSION.match(name)
    if found is None:
        return None
    return int(found.group(1)), int(found.group(2) or 0)


@lru_cache(maxsize=1)
def _stored() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DATA.read_text(encoding="utf-8"))
    return data


@lru_cache(maxsize=1)
def builtin_claude_calibration() -> Calibration:
    """The built-in calibration (see the module docstring)."""
    return Calibration.from_dict(_stored()["calibration"])


def _held_out_note() -> str:
    held = _stored().get("held_back") or {}
    if not held:
        return ""
    return (
        f"; on {held['calls']} calls of sessions it never saw: {held['median_abs_error']:.1%} "
        f"median error, {held['inside_band']:.0%} inside its 90 % band"
    )


def claude_estimate(model: str, budget: bool = False) -> tuple[str, str, Calibration] | None:
    """For a Claude model of a known version: the counter name the built-in estimate counts
    with (at its upper edge for a ``budget``), the note that says so, and the calibration;
    None for another model or a name without a version."""
    version = claude_version(model)
    if version is None or version < FITTED_FAMILY[0]:
        return None
    calibration = builtin_claude_calibration()
    ratios = sorted({c.ratio for c in calibration.classes if c.klass != "thinking"})
    scale = f"×{ratios[0]:.2f}" if len(ratios) == 1 else f"×{ratios[0]:.2f}–{ratios[-1]:.2f}"
    framing = f" + {calibration.framing:.0f} per tool message" if calibration.framing else ""
    band = calibration.growth_band
    width = f"; 90 % band ±{band_width(band, 10_000) / 10_000:.0%} at 10,000 tokens" if band else ""
    recordings = len(_stored().get("sources", ()))
    note = (
        f"no exact tokenizer for {model}: ctx_lab's Claude estimate, {calibration.base} {scale}"
        f"{framing} (fitted on {recordings} public Claude Code recordings{width}"
        f"{_held_out_note()}) — `ctx-lab calibrate` your own sessions to replace it"
    )
    if version >= FITTED_FAMILY[1]:
        note += (
            f"; {model} uses Claude's newer tokenizer (Opus 4.7 on), which Anthropic puts at "
            f"up to {NEWER_TOKENIZER}× the tokens of the same text: the estimate may be that "
            "much low"
            + (f", and budgets count {NEWER_TOKENIZER}× its upper edge" if budget else "")
        )
        if budget:
            calibration = _scaled(calibration, NEWER_TOKENIZER)
    if budget:
        note += "; budgets count at the band's upper edge"
    return calibration.counter_for(budget), note, calibration


def _scaled(calibration: Calibration, factor: float) -> Calibration:
    """Every ratio and the framing × ``factor`` (the newer tokenizer's most, for budgets)."""
    classes = tuple(
        replace(c, ratio=round(c.ratio * factor, 4), low=round(c.low * factor, 4),
                high=round(c.high * factor, 4))
        for c in calibration.classes
    )  # fmt: skip
    return replace(calibration, classes=classes, framing=round(calibration.framing * factor, 2))
