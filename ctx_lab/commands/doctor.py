"""``ctx-lab doctor``: which counters work, Node, Chromium, and the Jupyter extensions."""

from __future__ import annotations

import argparse

from ..display import RichResult
from ..doctor import run_doctor
from .registry import Command, Invocation, command


def _arguments(p: argparse.ArgumentParser) -> None:
    """doctor takes no arguments besides --format."""


def _run(args: argparse.Namespace, inv: Invocation) -> RichResult:
    return run_doctor()


DOCTOR = command(
    Command(
        "doctor",
        "check counters, Node, Chromium and the Jupyter extensions, with fixes",
        _arguments,
        _run,
        epilog="example:\n  ctx-lab doctor",
    )
)
