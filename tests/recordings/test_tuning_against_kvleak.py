"""The recommended Claude Code setting saves at least what ``kvleak tune`` (PyPI 0.12.0, run
here on 2026-12-07 with ``--since 2000-01-01`` on the same files) finds: $2.36 of $29.01 on the
three held-back long sessions, $1.52 on 8463c716 and nothing on ae4a77f8 — and states the
probes it loses beside the recording's, open-loop."""

from __future__ import annotations

from pathlib import Path

import pytest
from paths import RECORDED, SHARED

from ctx_lab.recordings import Recommendation, decide, decision_row, run_policies
from ctx_lab.recordings.transcripts import load_transcript

HELD = sorted((RECORDED / "marot__spotter").glob("*.jsonl.gz"))
LONG = SHARED / "real-data" / "transcripts" / "marot__spotter" / "long"
SWEEP = ["claude-code:pct=40..80/5"]
KVLEAK = {"held back": 2.36, "8463c716": 1.52, "ae4a77f8": 0.0}


def saving(paths: list[Path], registry: str | None = None) -> tuple[float, Recommendation]:
    """What the recommended setting saves across ``paths`` (USD, the recording priced the
    same way less the setting's cost), and the recommendation."""
    rows, baselines = [], {}
    for path in paths:
        report = run_policies(load_transcript(path), SWEEP, registry=registry, source=str(path))
        baselines[str(path)] = report.baseline_cost
        rows += [decision_row(str(path), report.agent, p, report.baseline_cost)
                 for p in report.policies]  # fmt: skip
    settings, chosen = decide(rows, 200_000)
    assert chosen is not None
    mine = next(s for s in settings if s.label == chosen.label)
    saved = sum(baselines[o.source] - (o.cost or 0.0) for o in mine.sessions)
    return saved, chosen


def test_on_the_held_back_sessions_it_saves_at_least_what_kvleak_finds() -> None:
    saved, chosen = saving(HELD, "models-dev")
    assert saved >= KVLEAK["held back"]
    assert chosen.policy == "claude-code" and chosen.config is not None
    assert chosen.probes_lost_recorded is not None
    assert "open-loop" in chosen.open_loop


@pytest.mark.skipif(not LONG.is_dir(), reason="../shared/real-data is not here")
@pytest.mark.parametrize("name", ["8463c716", "ae4a77f8"])
def test_on_each_shared_long_session_it_saves_at_least_what_kvleak_finds(name: str) -> None:
    path = next(LONG.glob(f"{name}*.jsonl"))
    saved, chosen = saving([path])
    assert saved >= KVLEAK[name]
    assert chosen.config is not None or chosen.reason
