"""Counters calibrated on recorded sessions: growth pairs between consecutive calls, fitted per
content class with a band, and evaluated on sessions the fit never saw."""

from __future__ import annotations

from ._calibrate import calibrate
from ._calibration_eval import CalibrationEvaluation, evaluate_calibration
from ._delta import content_class, message_counts, mine_growth, thinking_blocks, thinking_sent
from ._growth_fit import fit_classes

__all__ = [
    "CalibrationEvaluation",
    "calibrate",
    "content_class",
    "evaluate_calibration",
    "fit_classes",
    "message_counts",
    "mine_growth",
    "thinking_blocks",
    "thinking_sent",
]
