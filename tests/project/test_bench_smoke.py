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
        "slider, a pass of",
        "decisions and learnings vs",
        "replay memory",
        "builder memory: peak RSS",
        "files vs 40, cold",
        "small files vs",
        "the standard library",
        "-X importtime",
        "memory peak / file size",
        "capture: proxy RSS growth",
        "capture: monitor poll",
        "capture: time to first byte",
        "anatomy: --session of 1,000 captured calls, cold",
        "anatomy: --session of 1,000 captured calls, peak RSS",
        "mcp: tools/call over Streamable HTTP",
        "packet memory: peak RSS / .context/ size",
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
            "memory",
            "noisy",
        }
        assert row["median_ms"] >= 0 and row["p90_ms"] >= 0 and isinstance(row["passed"], bool)
    assert "median ms" in done.stdout and ("pass" in done.stdout or "FAIL" in done.stdout)
    # interactive rows are checked at their p90 too; the machine and its load are reported
    assert any(row["interactive"] for row in report["rows"])
    assert {"cpus", "load_average", "reference_loop_ms"} <= set(report["machine"])
    assert "load after" in done.stdout


def test_a_missed_timing_on_a_slow_machine_is_noisy_not_failed(
    monkeypatch, capsys, tmp_path: Path
) -> None:
    """The runner calls a timing row that misses its target "noisy" when the reference loop ran
    more than 1.5× slower than on the quiet machine; a memory row is failed all the same."""
    sys.path.insert(0, str(REPO))
    from bench import run

    slow = 2 * run.QUIET_REFERENCE_MS
    monkeypatch.setattr(run, "machine", lambda: {"platform": "p", "cpus": 2, "python": "3",
                        "load_average": [3.0], "reference_loop_ms": slow})  # fmt: skip
    monkeypatch.setattr(run, "SUITES", ("fake",))

    def fake(self: run.Bench) -> None:
        self.rows.append(run.row("timing", [50.0], "≤ 10 ms", lambda m, r: m <= 10))
        memory = run.row("memory", [500.0], "≤ 250 MB", lambda m, r: m <= 250)
        memory.memory = True
        self.rows.append(memory)

    monkeypatch.setattr(run.Bench, "fake", fake, raising=False)
    out = tmp_path / "report.json"
    run.main(["--out", str(out)])
    report = json.loads(out.read_text())
    printed = capsys.readouterr().out
    timing, memory = report["rows"]
    assert timing["noisy"] is True and timing["passed"] is False
    assert memory["noisy"] is False
    assert " noisy ≤ 10 ms" in printed and " FAIL ≤ 250 MB" in printed


def test_a_filter_that_names_no_suite_is_a_usage_error() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--quick", "-k", "no-such-suite"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and "no suite contains" in done.stderr
