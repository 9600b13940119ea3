"""How full a meter is, said one way everywhere: ``"ok"``, ``"warn"`` or ``"bad"``.

Paging budgets and the conversation gauge use :func:`severity`; packet and build meters use
:func:`fit_severity` (filling the budget is the point, only going over is bad). Every payload
with a meter carries the result in a ``severity`` field; renderers and widgets only read it.
"""

from __future__ import annotations

from typing import Literal

__all__ = [
    "BAD_AT",
    "SEVERITIES",
    "SEVERITY_COLORS",
    "WARN_AT",
    "Severity",
    "fit_severity",
    "severity",
    "worst",
]

Severity = Literal["ok", "warn", "bad"]
SEVERITIES: tuple[Severity, ...] = ("ok", "warn", "bad")
WARN_AT = 0.7
BAD_AT = 0.9
SEVERITY_COLORS: dict[str, str] = {"ok": "#2e7d32", "warn": "#f59e0b", "bad": "#c62828"}


def severity(used: float, limit: float) -> Severity:
    """ok below 70 % of ``limit``, warn below 90 %, bad from 90 % (with a limit of 0: ok while
    nothing is used, else bad)."""
    if limit <= 0:
        return "ok" if used <= 0 else "bad"
    share = used / limit
    if share < WARN_AT:
        return "ok"
    return "warn" if share < BAD_AT else "bad"


def fit_severity(used: float, budget: float) -> Severity:
    """A packet's or a built prompt's meter: ok while within ``budget``, bad over it."""
    return "ok" if used <= budget else "bad"


def worst(*levels: Severity) -> Severity:
    """The most severe of ``levels`` (ok when none)."""
    return max(levels, key=SEVERITIES.index, default="ok")
