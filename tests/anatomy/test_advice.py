"""Advice: the largest avoidable cost of a request or a session and the ctx_lab command or
policy that addresses it, the saving estimated by paging, the policy lab or the cache model."""

from __future__ import annotations

from paths import REPO

from ctx_lab.anatomy import anatomy_of, request_anatomy
from ctx_lab.anatomy._advice import PAGE_TOKENS
from ctx_lab.conversation import run_policies
from ctx_lab.conversation.transcripts import load_transcript

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


def test_a_long_session_is_pointed_at_the_policy_lab_s_cheaper_policy() -> None:
    session = anatomy_of(str(LONG[0]), session=True)
    advice = session.advice()
    report = run_policies(load_transcript(str(LONG[0])))
    costs = {p.name: p.cost for p in report.policies}
    best = min(costs, key=lambda n: costs[n])
    first = advice[0]
    assert first.command.endswith(f"--policy {best}")
    assert first.saving_usd == round(costs["recorded"] - costs[best], 6)
    assert "open-loop" in first.basis
    # the compaction's cache break is by design, not advice
    assert not any("compacted" in a.action for a in advice)
    assert session.to_dict()["advice"][0]["saving_usd"] == first.saving_usd
