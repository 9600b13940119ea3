"""Cache-aware observation masking on the shared long Claude Code sessions: the rolling mask
rewrites the whole history behind its boundary every call (> 1× the recording under the cache
the usage supports), while a mask moved in batches with a cache breakpoint at its boundary
keeps the prefix before it readable — on 8463c716 it costs less than the recording with a
lower peak. Costs are ratios to the recording priced by the same engine."""

from __future__ import annotations

import pytest
from paths import SHARED

from ctx_lab.recordings import run_policies
from ctx_lab.recordings.transcripts import load_transcript

LONG = SHARED / "real-data" / "transcripts" / "marot__spotter" / "long"
SESSIONS = sorted(LONG.glob("*.jsonl")) if LONG.is_dir() else []
MASKS = [
    "observation-masking",
    "observation-masking:keep=0|3,batch=10|30,breakpoint=true",
    "observation-masking:batch=20",
]

pytestmark = pytest.mark.skipif(not SESSIONS, reason="../shared/real-data is not here")


def ratios(path) -> tuple[dict[str, float], dict[str, int], int]:
    report = run_policies(load_transcript(path), MASKS)
    assert report.baseline_cost
    costs = {p.label: (p.cost or 0.0) / report.baseline_cost for p in report.policies}
    peaks = {p.label: p.peak for p in report.policies}
    return costs, peaks, report.policy("recorded").peak


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.name[:8])
def test_the_rolling_mask_costs_more_than_the_recording(path) -> None:
    costs, _, _ = ratios(path)
    assert costs["observation-masking"] > 1.0
    # moving the mask in batches alone already helps; the breakpoint helps more
    assert costs["observation-masking:batch=20"] < costs["observation-masking"]
    assert (
        costs["observation-masking:keep=3,batch=10,breakpoint=true"]
        < (costs["observation-masking:batch=20"])
    )


def test_a_batched_mask_with_a_breakpoint_costs_less_than_the_recording_with_a_lower_peak() -> None:
    path = next(p for p in SESSIONS if p.name.startswith("8463c716"))
    costs, peaks, recorded_peak = ratios(path)
    cheap = [
        label for label, ratio in costs.items()
        if "breakpoint" in label and ratio <= 1.0 and peaks[label] < recorded_peak
    ]  # fmt: skip
    assert cheap, costs
    assert costs["observation-masking:keep=0,batch=10,breakpoint=true"] < 0.9


def test_the_recommendation_names_a_claude_code_setting_with_its_source() -> None:
    path = next(p for p in SESSIONS if p.name.startswith("8463c716"))
    report = run_policies(load_transcript(path), ["claude-code:pct=50..80/10", *MASKS])
    chosen = report.recommended
    assert chosen is not None and chosen.cost_ratio is not None
    assert chosen.cost_ratio.median <= 1.0
    if chosen.policy == "claude-code":
        assert chosen.config is not None
        assert chosen.config.value.startswith("export CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=")
        assert "code.claude.com" in chosen.config.source
    else:  # a mask: Claude Code has no setting for it, and says so
        assert chosen.config is None and "no setting in Claude Code" in chosen.reason
    assert "open-loop" in chosen.open_loop
    assert "recommended: " in report.to_text() and "open-loop" in report.to_text()


def test_across_both_long_sessions_a_cache_aware_mask_costs_no_more_than_the_recording() -> None:
    """Taken together (the median over the two sessions, as a sweep reports it), a mask with
    a breakpoint at its boundary costs at most the recording with a lower peak, and the rolling
    mask more: keep=0 with a breakpoint is 0.80× on 8463c716 and 1.17× on ae4a77f8."""
    from ctx_lab.recordings import decide, decision_row

    sweep = ["observation-masking", "observation-masking:keep=0|3,batch=1|10,breakpoint=true"]
    rows = []
    for path in SESSIONS:
        report = run_policies(load_transcript(path), sweep, source=str(path))
        rows += [decision_row(str(path), report.agent, p, report.baseline_cost)
                 for p in report.policies]  # fmt: skip
    settings, _ = decide(rows)
    by = {s.label: s for s in settings}
    recorded = by["recorded"]
    cheap = [
        s.label for s in settings
        if "breakpoint" in s.label and s.cost_ratio is not None and s.cost_ratio.median <= 1.0
        and s.peak < recorded.peak
    ]  # fmt: skip
    assert cheap == ["observation-masking:keep=0,breakpoint=true"], {
        s.label: s.cost_ratio for s in settings
    }
    rolling = by["observation-masking"].cost_ratio
    assert rolling is not None and rolling.median > 1.0
