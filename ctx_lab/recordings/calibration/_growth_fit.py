"""The growth model a calibration fits on growth pairs (:mod:`._delta`): what a pair added costs

    Σ ratio(class) × counted(class) + framing × tool messages + 4 × messages + images

— the counter's count of each message's content and role per class, scaled; a fixed **framing**
per tool call and per tool result (its id, its name and the block around it, which the file does
not show as text: about 35–40 tokens each on real Claude Code sessions, measured); the
conversation design's 4 tokens per message; images by rule. The ratios and the framing are
fitted together by least absolute deviations over the pairs (:mod:`._robust_fit`): without the
framing, a pair of one short tool call and result looks like a ratio of ×2–3 and the ratios'
band is ±40 % wide. A class gets a ratio of its own where at least :data:`MIN_SAMPLES` pairs are
mostly (:data:`DOMINANT`) of it; the other classes share one (``pooled``). The band is stated by
whoever fits (:func:`ctx_lab.conversation.calibrate`: held-out sessions); alone, the 5–95 %
spread of the pairs' measured ÷ predicted growth.

**Thinking**: a pair that sends new thinking measures it — its growth beyond the model's
prediction for what else was added, per counted token of the summary (the ``thinking`` class).
Too few such pairs (or none) leave the thinking at the prose ratio, a lower bound (said:
``pooled``).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ...tokens import CLASSES, MAX_FRAMING, MESSAGE_OVERHEAD, PLAUSIBLE_RATIO, ClassRatio
from ._calibrate_band import band as _band
from ._delta import MIN_GROWTH, MIN_SAMPLES, THINKING, GrowthPair
from ._robust_fit import fit_l1

__all__ = ["DOMINANT", "GrowthFit", "fit_classes", "fit_growth"]

DOMINANT = 0.8  # a pair measures a class when that class is this share of what was added
POOLED = "pooled"  # the column of the classes without a ratio of their own


@dataclass(frozen=True)
class GrowthFit:
    """The fitted growth model (see the module docstring): the classes' ratios with their
    band, the thinking's, and the framing per tool message."""

    classes: tuple[ClassRatio, ...] = ()
    framing: float = 0.0
    ratios: dict[str, float] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "ratios", {c.klass: c.ratio for c in self.classes})

    def predict(self, added: Mapping[str, int], tools: int, messages: int, images: int) -> float:
        """The provider tokens of what was added (tokens per class, tool messages, messages,
        images' tokens)."""
        ratios = self.ratios
        fallback = ratios.get("prose", 1.0)
        return (
            sum(ratios.get(k, fallback) * n for k, n in added.items())
            + self.framing * tools
            + MESSAGE_OVERHEAD * messages
            + images
        )

    def thinking(self, summary: int) -> float:
        """The provider tokens of ``summary`` counted tokens of thinking summary sent again."""
        return self.ratios.get(THINKING, self.ratios.get("prose", 1.0)) * summary


def fit_classes(pairs: Sequence[GrowthPair]) -> tuple[ClassRatio, ...]:
    """Each class's ratio with its band, then the thinking's (:func:`fit_growth`'s classes);
    empty without pairs."""
    return fit_growth(pairs).classes


def _dominant(pairs: Sequence[GrowthPair]) -> Counter[str]:
    """Per class, the pairs it makes at least :data:`DOMINANT` of."""
    found: Counter[str] = Counter()
    for pair in pairs:
        if pair.added:
            top, tokens = Counter(pair.added).most_common(1)[0]
            if tokens >= DOMINANT * pair.counted:
                found[top] += 1
    return found


def _columns(pairs: Sequence[GrowthPair], own: Sequence[str], pooled: float | None,
             framing: bool) -> list[str]:  # fmt: skip
    columns = list(own)
    if pooled is None and any(k not in own for p in pairs for k in p.added):
        columns.append(POOLED)
    if framing:
        columns.append("tool")
    return columns


def _solve(
    pairs: Sequence[GrowthPair], own: Sequence[str], framing: bool, pooled: float | None = None
) -> dict[str, float] | None:
    """The columns' coefficients (a class of its own, the pooled rest, the framing); a given
    ``pooled`` ratio is held, not fitted."""
    columns = _columns(pairs, own, pooled, framing)
    if not columns:
        return None
    rows, ys = [], []
    for pair in pairs:
        row = dict.fromkeys(columns, 0.0)
        held = 0.0
        for klass, tokens in pair.added.items():
            if klass in own:
                row[klass] += tokens
            elif pooled is None:
                row[POOLED] += tokens
            else:
                held += pooled * tokens
        if framing:
            row["tool"] = float(pair.tools)
        rows.append([row[c] for c in columns])
        ys.append(pair.measured - held)
    found = fit_l1(rows, ys)
    if found is None or not all(math.isfinite(v) for v in found):
        return None
    solved = dict(zip(columns, found, strict=True))
    if pooled is not None:
        solved[POOLED] = pooled
    return solved


def _plausible(value: float) -> bool:
    return PLAUSIBLE_RATIO[0] <= value <= PLAUSIBLE_RATIO[1]


def _held_pooled(pairs: Sequence[GrowthPair], found: dict[str, float], own: list[str]) -> float:
    """A ratio for the classes without their own where the fit cannot tell theirs from the
    framing (every tool call's arguments alike): the own classes' ratios, weighted by their
    tokens."""
    weights = {k: sum(p.added.get(k, 0) for p in pairs) for k in own}
    total = sum(weights.values())
    if not total:
        return 1.0
    return sum(found[k] * weights[k] for k in own) / total


def _coefficients(pairs: Sequence[GrowthPair], own: list[str]) -> tuple[dict[str, float], float]:
    """The ratios (own classes and pooled) and the framing: a class whose own ratio is not
    believable joins the pooled ones; pooled classes the fit cannot tell from the framing take
    the own classes' ratio; a framing below nothing (or beyond :data:`MAX_FRAMING`) is left
    out; without a solution, the median ratio and no framing."""
    framing = sum(1 for p in pairs if p.tools) >= MIN_SAMPLES
    pooled: float | None = None
    while True:
        found = _solve(pairs, own, framing, pooled)
        if found is None:
            break
        if framing and not 0 <= found["tool"] <= MAX_FRAMING:
            framing = False
            continue
        wrong = [k for k in own if not _plausible(found[k])]
        if wrong:
            own = [k for k in own if k not in wrong]
            continue
        if POOLED in found and not _plausible(found[POOLED]):
            if own and pooled is None:
                pooled = _held_pooled(pairs, found, own)
                continue
            if framing:
                framing, pooled = False, None
                continue
            break
        return found, found.get("tool", 0.0)
    median = _band([p.measured / p.counted for p in pairs if p.counted])[0]
    return {POOLED: median}, 0.0


def fit_growth(
    pairs: Sequence[GrowthPair],
    *,
    pooled: bool = False,
    band: tuple[float, float] | None = None,
) -> GrowthFit:
    """The growth model over ``pairs`` (see the module docstring); ``pooled``: one ratio for
    every class; ``band``: the multipliers of the predicted growth that hold 90 % of it
    (default: the 5–95 % spread of the pairs' measured ÷ predicted growth)."""
    plain = [p for p in pairs if not p.thinking and p.measured > 0 and p.counted > 0]
    if not plain:
        return GrowthFit()
    samples = _dominant(plain)
    own = [] if pooled else [k for k in CLASSES if samples[k] >= MIN_SAMPLES]
    found, framing = _coefficients(plain, own)
    rest = found.get(POOLED)
    if rest is None:  # no pair added a class without its own ratio: they take the own ones'
        rest = _held_pooled(plain, found, [k for k in CLASSES if k in found])
    ratios = {k: found.get(k, rest) for k in CLASSES}
    unbanded = GrowthFit(
        tuple(
            ClassRatio(
                klass=k,
                ratio=ratios[k],
                low=ratios[k],
                high=ratios[k],
                samples=samples[k],
                pooled=k not in found,
            )
            for k in CLASSES
        ),
        round(framing, 2),
    )
    if band is None:
        spread = [p.measured / unbanded.predict(p.added, p.tools, 0, 0) for p in plain]
        band = _band(spread)[1:]
    low, high = min(band[0], 1.0), max(band[1], 1.0)
    classes = tuple(
        ClassRatio(
            klass=c.klass,
            ratio=round(c.ratio, 4),
            low=round(c.ratio * low, 4),
            high=round(c.ratio * high, 4),
            samples=c.samples,
            pooled=c.pooled,
        )
        for c in unbanded.classes
    )
    fitted = GrowthFit(classes, round(framing, 2))
    return GrowthFit((*classes, _thinking_ratio(pairs, fitted)), fitted.framing)


def _thinking_ratio(pairs: Sequence[GrowthPair], fitted: GrowthFit) -> ClassRatio:
    """What a counted token of thinking summary is sent back as: each thinking pair's growth
    beyond the model's prediction for what else it added (never below nothing), per counted
    token."""
    samples = [
        max(p.measured - fitted.predict(p.added, p.tools, 0, 0), 0) / p.thinking
        for p in pairs
        if p.thinking >= MIN_GROWTH
    ]
    if len(samples) >= MIN_SAMPLES:
        ratio, low, high = _band(samples)
        return ClassRatio(
            klass=THINKING,
            ratio=round(ratio, 4),
            low=round(low, 4),
            high=round(high, 4),
            samples=len(samples),
            pooled=False,
        )
    prose = fitted.ratios["prose"]  # the summary as prose: a lower bound
    return ClassRatio(
        klass=THINKING, ratio=prose, low=prose, high=prose, samples=len(samples), pooled=True
    )
