"""Advice: the largest avoidable cost of a request or a session and the ctx_lab command or
policy that addresses it, the saving estimated by paging, the policy lab or the cache model."""

from __future__ import annotations

from paths import REPO

from ctx_lab.anatomy import anatomy_of, request_anatomy
from ctx_lab.anatomy._advice import PAGE_TOKENS
from ctx_lab.recordings import agent_config, agent_rule, run_policies
from ctx_lab.recordings.transcripts import load_transcript

LONG = sorted(
    (REPO.parent / "shared" / "real-data" / "transcripts" / "marot__spotter" / "long").glob(
        "*.jsonl"
    )
)


def _body(result_words: int) -> dict:
    return {
        "model": "claude-sonnet-4-6",
        "max_tokens": 1024,
        "system": "You are a coding agent.",
        "messages": [
            {"role": "user", "content": "Read the big file."},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "a.py"}}
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": "word " * result_words}
                ],
            },
        ],
    }


def test_a_request_whose_file_read_fills_it_is_told_to_page(tmp_path) -> None:
    anatomy = request_anatomy(_body(20_000))
    result = anatomy.by_name("tool_result")["read_file"]
    assert result / anatomy.used > 0.9
    first = anatomy.advice()[0]
    assert first.command.startswith("ctx-lab page")
    assert first.saving_tokens == result - PAGE_TOKENS
    assert first.saving_usd == round(first.saving_tokens * 3 / 1_000_000, 6)  # $3/MTok fresh
    assert "largest avoidable cost: tool_result read_file" in anatomy.to_text()
    assert anatomy.to_dict()["advice"][0]["command"] == first.command
    assert "data-ctx-advice" in anatomy.html_body()


def test_nothing_material_gets_no_advice_and_no_made_up_saving() -> None:
    assert request_anatomy(_body(200)).advice() == []  # ~250 tokens: not worth a word
    advice = request_anatomy(_body(1_200)).advice()  # one page: named, with no saving
    assert advice and advice[0].saving_tokens is None and advice[0].saving_usd is None


def test_a_long_session_is_pointed_at_the_cheapest_policy_its_agent_runs() -> None:
    """Claude Code runs its own compaction at another point (CLAUDE_AUTOCOMPACT_PCT_OVERRIDE),
    not Codex's: the advice names the cheapest policy Claude Code can run with the setting that
    runs it, and a cheaper one only another agent runs as "another agent would"."""
    session = anatomy_of(str(LONG[0]), session=True)
    advice = session.advice()
    report = run_policies(load_transcript(str(LONG[0])))
    costs = {p.name: p.cost for p in report.policies}
    rule = agent_rule("claude-code")
    assert rule is not None and not rule.runs("codex") and rule.runs("summary")
    runnable = {n: c for n, c in costs.items() if rule.runs(n)}
    best = min(runnable, key=lambda n: runnable[n])
    first = advice[0]
    assert first.command.endswith(f"--policy {best}")
    # like with like: the recording priced by the engine as every policy is, not its bill
    assert report.baseline_cost is not None
    assert first.saving_usd == round(report.baseline_cost - costs[best], 6)
    assert "open-loop" in first.basis
    assert "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=" in first.action
    cheapest = min(costs, key=lambda n: costs[n])
    if cheapest != best:
        assert f"another agent would run {cheapest}" in first.action
        assert f"run the {cheapest} policy" not in first.action
    # the compaction's cache break is by design, not advice
    assert not any("compacted" in a.action for a in advice)
    assert session.to_dict()["advice"][0]["saving_usd"] == first.saving_usd


def test_a_codex_session_is_advised_with_codex_s_own_setting() -> None:
    rollout = next(
        (REPO.parent / "shared" / "real-data" / "transcripts" / "codemie-ai__codemie-code").glob(
            "rollout-2026-05-11T11*"
        )
    )
    transcript = load_transcript(str(rollout))
    # the rollout says Codex's version and the window it sized calls by (95 % of 272,000)
    assert (transcript.agent_version, transcript.agent_window) == ("0.125.0", 258_400)
    report = run_policies(transcript, ["recorded", "codex", "codex:limit=150000"])
    assert report.window == 272_000  # Codex's window for gpt-5.5, not the API's 1,050,000
    # Codex's own compaction never fires in this rollout: priced like with like (the recording
    # as the engine prices every policy, $3.64, not its $8.10 bill) it saves nothing, and the
    # advice says no policy Codex runs costs less
    assert report.policy("codex").cost == report.baseline_cost
    advice = anatomy_of(str(rollout), session=True).advice()
    assert any("no policy Codex runs costs less" in a.action for a in advice)
    config, _ = agent_config(
        "codex", {"limit": 150_000}, "codex", report.window, "codex:limit=150000"
    )
    assert config is not None and config.agent == "Codex"
    assert config.value == "model_auto_compact_token_limit = 150000"
