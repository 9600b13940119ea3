"""``doctor``: which counters work, Node, Chromium, and the Jupyter extensions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._registry import Command, command

if TYPE_CHECKING:
    from ..doctor import DoctorReport

__all__ = ["doctor"]


def doctor() -> DoctorReport:
    """Check the counters, Node, Chromium and the Jupyter extensions, with fixes."""
    from ..doctor import run_doctor

    return run_doctor()


command(
    Command(
        "doctor",
        "check counters, Node, Chromium and the Jupyter extensions, with fixes",
        doctor,
        epilog="example:\n  ctx-lab doctor",
        group="context",
    )
)
