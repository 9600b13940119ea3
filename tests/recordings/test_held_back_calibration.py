"""Issue 61's line, on sessions ctx_lab was never fitted or tuned on: the Claude calibration
fitted on the shared sessions (../shared/real-data) estimates marot/spotter's other Claude Code
sessions (ctx_lab/examples/recorded/marot__spotter, README there) — 85–95 % of their calls
inside the stated 90 % band, a median half-width of at most 8 %, a median absolute error of at
most 2 % and no session of five calls or more above 4 %."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from paths import RECORDED
from shared_recordings import claude_with_usage

from ctx_lab.recordings import CalibrationEvaluation, calibrate, evaluate_calibration
from ctx_lab.recordings.transcripts import load_transcript

HELD_BACK = RECORDED / "marot__spotter"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not claude_with_usage(), reason="../shared/real-data is not here"),
]


def _held_back(where: Path) -> list[Path]:
    found = []
    for packed in sorted(HELD_BACK.rglob("*.jsonl.gz")):
        name = str(packed.relative_to(HELD_BACK)).removesuffix(".gz").replace("/", "__")
        target = where / name
        target.write_bytes(gzip.decompress(packed.read_bytes()))
        found.append(target)
    return found


def test_the_held_back_sessions_hold_the_stated_band(tmp_path: Path) -> None:
    fitted = calibrate(claude_with_usage(), "bytes/4", model="claude")
    o200k = calibrate(claude_with_usage(), "o200k", model="claude").ratio
    rows: list = []
    per_session: dict[str, tuple[int, float]] = {}
    for path in _held_back(tmp_path):
        report = evaluate_calibration(fitted, [load_transcript(path)], o200k=o200k)
        rows += report.rows
        if report.rows:
            per_session[path.name] = (len(report.rows), report.median_abs_error or 0.0)
    combined = CalibrationEvaluation(model="claude", base="bytes/4", classes=(), rows=tuple(rows))
    assert len(rows) >= 400 and len(per_session) >= 7
    assert 0.85 <= combined.inside_band <= 0.95, combined.inside_band
    assert combined.median_half_width <= 0.08
    assert combined.median_abs_error <= 0.02
    scalars = combined.scalar_errors()
    assert all(v is not None and v > combined.median_abs_error for v in scalars.values())
    assert max(e for n, e in per_session.values() if n >= 5) <= 0.04, per_session
    # the one miss: a sub-agent of two estimated calls that fetched two web pages of Markdown,
    # which Claude counts at about bytes/4 × 1.05 where the fit's prose is × 1.33
    above = {name: v for name, v in per_session.items() if v[1] > 0.04}
    assert list(above) == ["258c7280-ae70-4798-800f-63464d01a85d__subagents__agent-a881341.jsonl"]
    assert above[next(iter(above))][0] == 2
