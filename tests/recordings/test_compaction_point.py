"""The claude-code policy compacts where Claude Code did: before the call once the previous
response's reported size and what came since pass the point (the recordings' preTokens), on
five real sessions — two of them never seen while the rule was written (held back)."""

from __future__ import annotations

import pytest

from bench.accuracy import corpus

AUTO = [e for e in corpus() if e.main_claude_session and any(t == "auto" for _, t in e.compactions)]


@pytest.mark.parametrize("entry", AUTO, ids=lambda e: e.file.split("/")[-1][:12])
def test_the_policy_compacts_within_a_call_of_the_recording(entry) -> None:  # type: ignore[no-untyped-def]
    from ctx_lab.commands import policies

    if not entry.location.is_file():
        pytest.skip("../shared/real-data is absent")
    recorded_before = next(n for n, t in entry.compactions if t == "auto") + 1
    agent = policies(str(entry.location), policy=("claude-code",)).policy("claude-code")
    assert agent.compactions, "the policy never compacted"
    assert abs(agent.compactions[0] - recorded_before) <= 1, (agent.compactions, recorded_before)
