"""Replaying a recorded session against other models' limits with ctx_lab's working-context
manager: when each would summarize, what it would cost."""

from __future__ import annotations

from ._replay import replay, replay_report
from ._replay_model import ReplaySettings
from ._replay_report import REPLAY_COLUMNS, ReplayReport, plot_replay

__all__ = [
    "REPLAY_COLUMNS",
    "ReplayReport",
    "ReplaySettings",
    "plot_replay",
    "replay",
    "replay_report",
]
