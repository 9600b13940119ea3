"""A recording that names no model (a Codex rollout without turn_context) is taken apart as the
model --model names — its advice included (it ran the policy lab without it and refused)."""

from __future__ import annotations

import pytest

from tests.paths import SHARED

ROLLOUT = (
    SHARED / "real-data" / "transcripts" / "codemie-ai__codemie-code"
    / "rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl"
)  # fmt: skip


@pytest.mark.skipif(not ROLLOUT.is_file(), reason="../shared/real-data is absent")
def test_the_session_and_its_advice_take_the_model_asked_for(run_cli) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run_cli("anatomy", "--session", str(ROLLOUT), "--model", "gpt-5")
    assert code == 0, err
    assert "18 calls" in out
    code, _, err = run_cli("anatomy", "--session", str(ROLLOUT))
    assert code == 2 and "pass --model" in err
