"""What a project's configuration (``.ctxrc`` …) sets for its packets: the token budget and the
task and convention shares."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..token_budget import CTXRC, config_budget, read_ctxrc
from ..validate import shown

__all__ = ["ContextSettings", "read_settings"]


@dataclass(frozen=True)
class ContextSettings:
    """What ``.ctxrc`` sets: the token budget and the task and convention shares."""

    token_budget: int | None = None
    task_budget_pct: float = 0.40
    convention_budget_pct: float = 0.20
    budget_source: str = CTXRC


def read_settings(root: Path, warnings: list[str]) -> ContextSettings:
    """The settings of the project at ``root``; a value out of range is a warning."""
    data = read_ctxrc(root, warnings)
    defaults = ContextSettings()
    configured = config_budget(root, warnings)

    def share(key: str, default: float) -> float:
        value = data.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            warnings.append(
                f"{root / CTXRC}: {key} {shown(value)} ignored (need a fraction between 0 and 1)"
            )
            return default
        return float(value)

    return ContextSettings(
        configured[0] if configured else None,
        share("task_budget_pct", defaults.task_budget_pct),
        share("convention_budget_pct", defaults.convention_budget_pct),
        configured[1] if configured else CTXRC,
    )
