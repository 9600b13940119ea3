"""Policy sweeps: ``key=a|b|c`` and ``key=a..b/step`` expand to the grid of their settings,
each named by what it changes; hostile text is a usage error, never another exception."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctx_lab.errors import UsageError
from ctx_lab.recordings import POLICIES, expand_policies, expand_policy, setting_label
from ctx_lab.recordings.policies._sweep import MAX_SETTINGS, MAX_VALUES


def labels(text: str) -> list[str]:
    return [setting_label(s) for s in expand_policy(text)]


def test_a_list_and_a_range_expand_to_their_grid_in_the_order_given() -> None:
    assert labels("observation-masking:keep=3|5,batch=1|20") == [
        "observation-masking:keep=3",
        "observation-masking:keep=3,batch=20",
        "observation-masking:keep=5",
        "observation-masking:keep=5,batch=20",
    ]
    assert labels("claude-code:pct=60..90/10") == [f"claude-code:pct={p}" for p in (60, 70, 80, 90)]
    assert labels("observation-masking:keep=1..3") == [
        f"observation-masking:keep={k}" for k in (1, 2, 3)
    ]
    # a share sweeps in its own steps, without float drift; the default is named by the policy
    assert labels("codex:share=0.85..0.95/0.05") == ["codex:share=0.85", "codex:share=0.9", "codex"]
    assert [s.params["share"] for s in expand_policy("codex:share=0.85..0.95/0.05")] == [
        0.85,
        0.9,
        0.95,
    ]


def test_a_setting_is_named_by_what_differs_from_the_defaults() -> None:
    spec = expand_policy("clear-tool-uses:keep=3,trigger=50000")[0]
    assert setting_label(spec) == "clear-tool-uses:trigger=50000"
    assert setting_label(POLICIES["clear-tool-uses"]) == "clear-tool-uses"
    # tool names keep "|" for the names of one setting: one setting, not a sweep
    assert labels("clear-tool-uses:exclude_tools=Read|Grep") == [
        "clear-tool-uses:exclude_tools=Read|Grep"
    ]


def test_the_recording_runs_first_and_a_setting_given_twice_runs_once() -> None:
    specs = expand_policies(["observation-masking", "observation-masking:keep=10"], baseline=True)
    assert [setting_label(s) for s in specs] == ["recorded", "observation-masking"]
    specs = expand_policies(["observation-masking", "recorded"], baseline=True)
    assert [setting_label(s) for s in specs] == ["observation-masking", "recorded"]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("observation-masking:keep=1..100000", f"more than {MAX_VALUES}"),
        ("observation-masking:keep=" + "|".join(map(str, range(300))), f"at most {MAX_VALUES}"),
        ("observation-masking:keep=0..inf", f"more than {MAX_VALUES}"),
        ("observation-masking:keep=5..1", "a ≤ b"),
        ("observation-masking:keep=1..5/0", "step above 0"),
        ("observation-masking:keep=a..b", "not a range"),
        ("observation-masking:keep=1|", "empty value"),
        ("observation-masking:keep=3,keep=4", "given twice"),
        ("observation-masking:keep=3|x", "must be an integer"),
        ("observation-masking:nope=1|2", "no parameter 'nope'"),
        ("nope:keep=1|2", "unknown policy"),
        (
            "observation-masking:keep=0..199,batch=1..10,breakpoint=true|false",
            f"at most {MAX_SETTINGS:,}",
        ),
    ],
)
def test_a_bad_sweep_is_a_usage_error_naming_what_is_wrong(text: str, says: str) -> None:
    with pytest.raises(UsageError, match=says.replace("(", r"\(")):
        expand_policy(text)


@given(st.text(max_size=120))
def test_any_text_expands_or_is_a_usage_error(text: str) -> None:
    try:
        specs = expand_policy(text)
    except UsageError:
        return
    assert 1 <= len(specs) <= MAX_SETTINGS


@given(
    st.lists(st.integers(0, 50), min_size=1, max_size=6, unique=True),
    st.lists(st.integers(1, 40), min_size=1, max_size=4, unique=True),
)
def test_the_grid_is_every_combination_once(keeps: list[int], batches: list[int]) -> None:
    text = "observation-masking:keep={},batch={}".format(
        "|".join(map(str, keeps)), "|".join(map(str, batches))
    )
    specs = expand_policy(text)
    assert len(specs) == len(keeps) * len(batches)
    assert [(s.params["keep"], s.params["batch"]) for s in specs] == [
        (k, b) for k in keeps for b in batches
    ]
    assert len({setting_label(s) for s in specs}) == len(specs)
