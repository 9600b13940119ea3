"""Probes: the facts a session's later calls rely on (files read, constraints given), followed
through a policy to see which it kept, summarized or lost."""

from __future__ import annotations

from ._probes import Probe, mine_probes

__all__ = [
    "Probe",
    "mine_probes",
]
