"""The decision a sweep asks for: the cost–loss front equals a brute-force Pareto computation,
the spread is a bootstrap over sessions (the same on every run), the recommendation follows its
stated rule, and the setting to paste is the recording's agent's own, cited — or none, said."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from ctx_lab.recordings import agent_config, decide, pareto_front
from ctx_lab.recordings.policies._front import RULE


def brute_front(points: list[tuple[float, float] | None]) -> set[int]:
    """Every point no other point dominates, by comparing every pair."""
    found = set()
    for i, p in enumerate(points):
        if p is None:
            continue
        dominated = any(
            q is not None and q[0] <= p[0] and q[1] <= p[1] and (q[0] < p[0] or q[1] < p[1])
            for j, q in enumerate(points)
            if j != i
        )
        if not dominated:
            found.add(i)
    return found


point = st.one_of(
    st.none(), st.tuples(st.integers(0, 20).map(lambda v: v / 4), st.integers(0, 12).map(float))
)


@given(st.lists(point, max_size=40))
def test_the_front_is_the_brute_force_pareto_front(points: list) -> None:
    assert pareto_front(points) == brute_front(points)


def row(item: str, setting: str, cost: float, lost: int, *, over: int = 0, base: float = 10.0,
        agent: str = "claude-code", params: dict | None = None, constraints: int = 0) -> dict:  # fmt: skip
    policy = setting.partition(":")[0]
    return {
        "item": item, "setting": setting, "policy": policy, "params": params or {},
        "agent": agent, "cost_usd": cost, "peak": 1000, "probes_lost": lost,
        "constraints_lost": constraints, "over_window": over, "baseline_cost": base,
    }  # fmt: skip


def rows_of(settings: dict[str, list[tuple[float, int]]], **extra) -> list[dict]:
    out = []
    for label, outcomes in settings.items():
        for i, (cost, lost) in enumerate(outcomes):
            out.append(row(f"s{i}", label, cost, lost, **extra))
    return out


def test_costs_are_ratios_to_the_recording_priced_the_same_way_and_the_spread_is_fixed() -> None:
    rows = rows_of(
        {
            "recorded": [(12.0, 5), (11.0, 6), (13.0, 5)],
            "claude-code:pct=60": [(8.0, 3), (9.0, 4), (12.0, 2)],
            "observation-masking": [(30.0, 9), (25.0, 9), (28.0, 9)],
        }
    )
    settings, chosen = decide(rows)
    by = {s.label: s for s in settings}
    # the recording's own row is 1 whatever its bill; others divide by baseline_cost (10.0)
    assert by["recorded"].cost_ratio is not None and by["recorded"].cost_ratio.median == 1.0
    pct = by["claude-code:pct=60"]
    assert [o.cost_ratio for o in pct.sessions] == [0.8, 0.9, 1.2]
    assert pct.cost_ratio is not None and pct.cost_ratio.median == 0.9
    assert pct.cost_ratio.low <= 0.9 <= pct.cost_ratio.high
    assert decide(rows) == (settings, chosen)  # a seeded bootstrap: the same every run
    assert {s.label for s in settings if s.on_front} == {"claude-code:pct=60"}
    assert chosen is not None and chosen.label == "claude-code:pct=60" and chosen.rule == RULE
    assert "open-loop" in chosen.open_loop


def test_a_setting_that_breaks_a_session_or_loses_a_constraint_is_not_recommended() -> None:
    rows = rows_of(
        {
            "recorded": [(10.0, 5), (10.0, 5)],
            "claude-code:pct=60": [(6.0, 7), (6.0, 7)],  # loses more probes: said, allowed
        }
    )
    rows += [row(f"s{i}", "claude-code:pct=50", 5.0, 9, constraints=2) for i in (0, 1)]
    rows.append(row("s2", "claude-code:pct=70", 5.5, 1, over=2))
    rows.append(row("s3", "claude-code:pct=70", 5.5, 1))
    settings, chosen = decide(rows)
    by = {s.label: s for s in settings}
    assert by["claude-code:pct=70"].broke == 1
    assert by["claude-code:pct=50"].constraints_lost.median == 2
    assert chosen is not None and chosen.label == "claude-code:pct=60"
    assert chosen.probes_lost.median == 7 and chosen.probes_lost_recorded == 5


def test_without_costs_there_is_no_recommendation() -> None:
    rows = [row("s0", "recorded", 10.0, 1, base=0.0), row("s0", "none", 5.0, 0, base=0.0)]
    rows[1]["cost_usd"] = None
    settings, chosen = decide(rows)
    assert settings[1].cost_ratio is None and not settings[1].on_front
    assert chosen is not None and chosen.label == "recorded"  # the only setting with a cost
    assert chosen.config is None and "nothing to change" in chosen.reason
    assert decide([]) == ((), None)


def test_a_setting_to_paste_is_the_agent_s_own_and_cited() -> None:
    config, why = agent_config("claude-code", {"pct": 60}, "claude-code", 200_000, "x")
    assert config is not None and not why
    assert config.value == "export CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=60"
    assert "code.claude.com/docs/en/env-vars" in config.source and "2026-12-07" in config.source
    # above Claude Code's own point a percentage does nothing: said, not printed
    config, why = agent_config("claude-code", {"pct": 90}, "claude-code", 200_000, "x")
    assert config is None and "cannot compact later" in why
    # the agent's default setting: nothing to change
    config, why = agent_config("claude-code", {"reserve": None}, "claude-code", 200_000,
                               "claude-code")  # fmt: skip
    assert config is None and "nothing to change" in why
    # Codex's own threshold
    config, _ = agent_config("codex", {"limit": 200_000}, "codex", 272_000, "codex:limit=200000")
    assert config is not None and config.value == "model_auto_compact_token_limit = 200000"
    # tool-result clearing: the Messages API's block for an API recording …
    params = {"trigger": 80_000, "keep": 3, "clear_at_least": 20_000, "exclude_tools": (),
              "clear_inputs": False}  # fmt: skip
    config, _ = agent_config("clear-tool-uses", params, "anthropic-messages", 200_000, "x")
    assert config is not None
    edit = json.loads(config.value)["context_management"]["edits"][0]
    assert edit == {
        "type": "clear_tool_uses_20250919",
        "trigger": {"type": "input_tokens", "value": 80_000},
        "keep": {"type": "tool_uses", "value": 3},
        "clear_at_least": {"type": "input_tokens", "value": 20_000},
    }
    # … and no setting in Claude Code, said
    config, why = agent_config("clear-tool-uses", params, "claude-code", 200_000, "x")
    assert config is None and why == "no setting in Claude Code runs clear-tool-uses"
    config, why = agent_config("observation-masking", {"keep": 3}, "codex", 272_000, "x")
    assert config is None and "no setting in Codex" in why


def test_the_front_as_a_table_and_a_chart() -> None:
    from ctx_lab.recordings.policies import FRONT_COLUMNS, front_frame, plot_front

    rows = rows_of(
        {
            "recorded": [(12.0, 5), (11.0, 6)],
            "claude-code:pct=60": [(8.0, 3), (9.0, 4)],
            "observation-masking": [(30.0, 9), (25.0, 9)],
        }
    )
    settings, chosen = decide(rows)
    frame = front_frame(settings, chosen)
    assert tuple(frame.columns) == FRONT_COLUMNS
    assert list(frame["setting"]) == ["claude-code:pct=60", "recorded", "observation-masking"]
    assert frame["recommended"].tolist() == [True, False, False]
    assert frame["on_front"].tolist() == [True, False, False]
    figure = plot_front(settings, chosen)
    ax = figure.axes[0]
    assert "open-loop" in ax.get_title()
    assert any("recommended: claude-code:pct=60" in t.get_text() for t in ax.texts)
    assert {t.get_text() for t in ax.get_legend().get_texts()} >= {
        "claude-code",
        "recorded",
        "observation-masking",
    }
