"""The stored calibrations as a result (``ctx-lab calibrate --list`` / ``--forget MODEL``)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..display import RichResult, escape, html_table
from ._calibration import CALIBRATIONS_FILE, Calibration, calibrations_path
from ._calibration_store import load_calibrations

__all__ = ["CalibrationList", "list_calibrations"]


@dataclass(frozen=True, kw_only=True)
class CalibrationList(RichResult):
    """The stored calibrations (``ctx-lab calibrate --list`` / ``--forget MODEL``): where the
    file is, each record, and the model just forgotten, if any."""

    path: str
    calibrations: tuple[Calibration, ...] = ()
    forgotten: str | None = None

    payload_kind = "calibrations"

    def to_dict(self) -> dict[str, Any]:
        """The file, the records (each with ``problem``: why it is not applied, or null).
        Hand-written: each record carries ``problem``, computed now."""
        return {
            "path": self.path,
            "forgotten": self.forgotten,
            "calibrations": [{**c.to_dict(), "problem": c.problem()} for c in self.calibrations],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CalibrationList:
        """The inverse of :meth:`to_dict`."""
        return cls(
            path=str(data["path"]),
            calibrations=tuple(Calibration.from_dict(c) for c in data.get("calibrations", ())),
            forgotten=data.get("forgotten"),
        )

    def to_text(self) -> str:
        """One line per stored calibration, and what is not applied and why."""
        lines = []
        if self.forgotten:
            lines.append(f"forgot the calibration of {self.forgotten}")
        if not self.calibrations:
            lines.append(f"no calibrations stored in {self.path}")
        for c in self.calibrations:
            problem = c.problem()
            lines.append(
                c.describe()
                + f" ({c.method}, fitted {c.fitted_on or 'on an unknown day'})"
                + (f" — NOT APPLIED: {problem}" if problem else "")
            )
        if self.calibrations:
            lines.append(f"stored in {self.path}")
        return "\n".join(lines)

    def html_body(self) -> str:
        """A table of the stored calibrations."""
        return f"<h4 data-ctx-calibrations>{escape(self.path)}</h4>" + html_table(
            ["model", "counter", "ratio", "90 % interval", "calls", "fitted", "applied"],
            [
                [
                    c.model,
                    c.counter_name,
                    f"{c.ratio:.3f}",
                    f"{c.low:.3f}–{c.high:.3f}",
                    c.calls,
                    c.fitted_on or "",
                    c.problem() or "yes",
                ]
                for c in self.calibrations
            ],
            numeric=(2, 4),
        )


def list_calibrations(
    directory: str | os.PathLike[str] | None = None, forgotten: str | None = None
) -> CalibrationList:
    """The stored calibrations as a result (a damaged file: :class:`CalibrationError`)."""
    found = load_calibrations(directory)
    return CalibrationList(
        path=str(calibrations_path(directory) / CALIBRATIONS_FILE),
        calibrations=tuple(found[k] for k in sorted(found)),
        forgotten=forgotten,
    )
