"""Calibrated counters: another counter's count times a fitted factor — one factor
(:class:`ScaledCounter`, ``bytes/4*1.31``) or one per content class with a tool framing and an
optional band edge (:class:`ClassScaledCounter`) — each named so it travels by name."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["BAND_ENTRIES", "NOT_CLASSES", "TOOL_FRAMING", "ClassScaledCounter", "ScaledCounter"]


@dataclass(frozen=True)
class ScaledCounter:
    """Another counter's count times ``factor``, rounded half up: a calibrated estimate, named
    ``<base>*<factor>`` (``bytes/4*1.31``) so it travels by name like any counter."""

    base: Any
    factor: float

    @property
    def name(self) -> str:
        """``<base name>*<factor>``."""
        return f"{self.base.name}*{self.factor:g}"

    @property
    def exact(self) -> bool:
        """Never exact: a fitted ratio is an estimate."""
        return False

    def count(self, text: str) -> int:
        """The base count times the factor."""
        return int(self.base.count(text) * self.factor + 0.5)

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """Count each text (the base counts them in one batch)."""
        return [int(n * self.factor + 0.5) for n in self.base.count_many(texts)]


TOOL_FRAMING = "tool"  # the entry of a class-scaled counter that is a framing, not a class
BAND_ENTRIES = ("z", "sys", "rand")  # entries of a budget's counter: its band's upper edge
NOT_CLASSES = (TOOL_FRAMING, *BAND_ENTRIES)


@dataclass(frozen=True)
class ClassScaledCounter:
    """Another counter's count times its text's content class's factor
    (:func:`~ctx_lab.tokens.text_class`), rounded half up: a calibration fitted per class,
    named ``<base>*{prose:1.64,code:1.38,json:1.53,cjk:1.62}`` so it travels by name. A
    ``tool`` entry is no class: the tokens each tool call and tool result costs beyond its
    text (:attr:`tool_framing`, which a conversation adds per tool message). ``z``, ``sys`` and
    ``rand`` entries make it count at a calibration's upper edge, for budgets: a text of ``n``
    tokens as counted counts ``n + z·sqrt((sys·n)² + rand²·n)``."""

    base: Any
    factors: tuple[tuple[str, float], ...]

    @property
    def name(self) -> str:
        """``<base name>*{class:factor,…}``."""
        inner = ",".join(f"{k}:{v:g}" for k, v in self.factors)
        return f"{self.base.name}*{{{inner}}}"

    @property
    def exact(self) -> bool:
        """Never exact: fitted ratios are an estimate."""
        return False

    def _entry(self, name: str) -> float:
        return next((v for k, v in self.factors if k == name), 0.0)

    @property
    def tool_framing(self) -> float:
        """Tokens per tool call or tool result beyond its text (0 without a ``tool`` entry);
        at the upper edge of its band where the counter counts at one."""
        return self._edge(self._entry(TOOL_FRAMING))

    def _edge(self, middle: float) -> float:
        """``middle`` tokens at the upper edge of the band the name carries (itself without)."""
        z = self._entry("z")
        if not z or middle <= 0:
            return middle
        systematic, random = self._entry("sys"), self._entry("rand")
        return middle + z * math.sqrt((systematic * middle) ** 2 + random**2 * middle)

    def _factor(self, text: str) -> float:
        from ._classes import text_class

        klass = text_class(text)
        scales = [(k, v) for k, v in self.factors if k not in NOT_CLASSES]
        return next((v for k, v in scales if k == klass), scales[0][1] if scales else 1.0)

    def count(self, text: str) -> int:
        """The base count times the factor of the text's class (at the band's upper edge
        where the name carries one)."""
        return int(self._edge(self.base.count(text) * self._factor(text)) + 0.5)

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """Count each text (the base counts them in one batch)."""
        counts = self.base.count_many(texts)
        return [
            int(self._edge(n * self._factor(t)) + 0.5) for n, t in zip(counts, texts, strict=True)
        ]
