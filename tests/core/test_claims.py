"""The claim vocabulary: one label or one per figure, and the walk that finds a figure no
claim labels."""

from __future__ import annotations

import pytest

from ctx_lab.choices import CLAIMS
from ctx_lab.claims import CLAIM_MEANINGS, claim_of, claim_schema, claim_text, claims, unlabelled


def test_the_vocabulary_is_the_issue_s_four_labels() -> None:
    assert CLAIMS == ("billed", "simulated", "estimated", "open-loop")
    assert tuple(CLAIM_MEANINGS) == CLAIMS
    assert claim_schema()["anyOf"][0]["enum"] == list(CLAIMS)


def test_one_label_or_one_per_figure() -> None:
    assert claims("billed") == "billed"
    assert claims("open-loop", cost="billed") == {"cost": "billed", "*": "open-loop"}
    assert claim_of({"cost": "billed", "*": "open-loop"}, "peak") == "open-loop"
    assert claim_of({"cost": "billed"}, "peak") is None
    with pytest.raises(ValueError, match="unknown claim"):
        claims("measured")  # type: ignore[arg-type]
    assert claim_text("billed") == "figures: billed (from the recording's usage)"
    assert (
        claim_text(claims("open-loop", cost="billed")) == "figures: cost billed; the rest open-loop"
    )


def test_the_walk_finds_each_figure_without_a_claim() -> None:
    payload = {
        "calls": 3,  # what the file holds: not a figure
        "window": 200_000,  # a setting
        "cost": 1.5,
        "rows": [{"call": 1, "input": 10, "claim": "billed"}, {"call": 2, "input": 11}],
        "split": {"read": 2.0, "claim": {"read": "simulated"}},
        "inner": {"claim": "estimated", "deep": {"tokens": 4}, "list": [1, 2]},
        "flag": True,
    }
    assert unlabelled(payload) == [".cost", ".rows[1].input"]


def test_a_named_label_covers_a_sub_object_and_the_nearest_wins() -> None:
    payload = {
        "claim": {"categories": "estimated", "*": "billed"},
        "categories": {"user": 4, "tool": 7},
        "cost": 0.1,
        "advice": [{"saving": 3, "claim": "open-loop"}],
    }
    assert unlabelled(payload) == []
    assert unlabelled({"claim": {"cost": "billed"}, "peak": 5}) == [".peak"]
