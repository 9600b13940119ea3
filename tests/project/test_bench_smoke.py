"""The benchmark runner works end to end at tiny sizes: every target row is reported with its
median, p90, baseline, ratio and pass/fail. It asserts the report's shape, never a time."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from paths import REPO

pytestmark = pytest.mark.slow


def test_quick_bench_reports_every_target(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--quick", "--out", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(out.read_text())
    assert report["version"] == 1 and report["quick"] is True
    names = [row["name"] for row in report["rows"]]
    for expected in (
        "packet re-budget",
        "packet cold CLI",
        "packet scaling",
        "count_message",
        "push_message",
        "prepare()",
        "summarize_pending",
        "ExtractiveSummarizer",
        "DirectoryStore",
        "read continuation",
        "builder",
        "journal append_text",
        "import ctx_lab",
        "--help",
        "corpus sweep, 2 worker processes",
        "corpus sweep per item",
        "replay",
        "focus change",
        "slider on first-seen keyword sets",
        "small files vs",
        "the standard library",
        "-X importtime",
        "memory peak / file size",
        "capture: proxy RSS growth",
        "capture: monitor poll",
        "capture: time to first byte",
    ):
        assert any(expected in name for name in names), expected
    for row in report["rows"]:
        assert set(row) == {
            "name",
            "median_ms",
            "p90_ms",
            "baseline_ms",
            "ratio",
            "target",
            "passed",
            "note",
            "growth",
            "interactive",
        }
        assert row["median_ms"] >= 0 and row["p90_ms"] >= 0 and isinstance(row["passed"], bool)
    assert "median ms" in done.stdout and ("pass" in done.stdout or "FAIL" in done.stdout)
    # interactive rows are checked at their p90 too; the machine and its load are reported
    assert any(row["interactive"] for row in report["rows"])
    assert {"cpus", "load_average", "reference_loop_ms"} <= set(report["machine"])
    assert "load after" in done.stdout
