"""``ctx-lab cache`` with default flags bills a Claude Code session at the published prices: its
input cost equals a hand computation from the JSONL's own usage, to the cent.

The prices below are typed from Anthropic's pricing page
(https://platform.claude.com/docs/en/about-claude/pricing, read 2026-12-07: base input, 5-minute
cache write 1.25×, 1-hour write 2×, cache read 0.1×), not read from ctx_lab's table, and the
calls are grouped by hand: one call per distinct ``message.id`` of an ``assistant`` record of
the main chain (a file whose records are all side-chain is a sub-agent's and counts them all).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from shared_recordings import TRANSCRIPTS

from ctx_lab.cli import main

# USD per million tokens: input, 5-minute write, 1-hour write, cache read
PUBLISHED = {
    "claude-opus-4-6": (5.0, 6.25, 10.0, 0.5),
    "claude-haiku-4-5": (1.0, 1.25, 2.0, 0.1),
    "claude-sonnet-4-5": (3.0, 3.75, 6.0, 0.3),
}
CLAUDE_CODE = sorted(
    [
        *(TRANSCRIPTS / "marot__spotter").rglob("*.jsonl"),
        *(TRANSCRIPTS / "codemie-ai__codemie-code").glob("session-*.jsonl"),
    ]
)
needs_shared = pytest.mark.skipif(not CLAUDE_CODE, reason="../shared/real-data is not here")


def _price(model: str) -> tuple[float, float, float, float]:
    return next(p for name, p in PUBLISHED.items() if model.startswith(name))


def by_hand(path: Path) -> float:
    """The input cost of a Claude Code session from its usage, one line at a time."""
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    assistants = [r for r in records if r.get("type") == "assistant"]
    if any(not r.get("isSidechain") for r in assistants):
        assistants = [r for r in assistants if not r.get("isSidechain")]
    calls: dict[str, tuple[str, dict]] = {}
    for record in assistants:
        message = record["message"]
        if message.get("usage") and message.get("model", "").startswith("claude"):
            calls[message["id"]] = (message["model"], message["usage"])  # the last line wins
    total = 0.0
    for model, usage in calls.values():
        fresh, write5, write1h, read = _price(model)
        split = usage.get("cache_creation") or {}
        hour = split.get("ephemeral_1h_input_tokens", 0)
        written = usage.get("cache_creation_input_tokens", 0)
        total += (
            usage.get("input_tokens", 0) * fresh
            + (written - hour) * write5
            + hour * write1h
            + usage.get("cache_read_input_tokens", 0) * read
        ) / 1_000_000
    return total


@needs_shared
@pytest.mark.parametrize("path", CLAUDE_CODE, ids=lambda p: p.name[:20])
def test_cache_bills_the_session_at_the_published_prices(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["cache", str(path), "--format", "json"]) == 0
    actual = json.loads(capsys.readouterr().out)["cost"]["actual"]
    expected = by_hand(path)
    if expected == 0:
        pytest.skip(f"{path.name}: no Claude call reports usage")
    assert actual == pytest.approx(expected, abs=0.01), (path.name, actual, expected)


@needs_shared
def test_the_long_sessions_cost_what_they_billed() -> None:
    """The figures the issue names: 8463c716 at Opus 4.6's $5 input is about $10.5, not the
    $31.46 the May 2025 claude-opus-4 row ($15) gave."""
    long = TRANSCRIPTS / "marot__spotter" / "long" / "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
    assert 10 < by_hand(long) < 11


@needs_shared
def test_codex_cache_writes_are_read_and_priced(tmp_path: Path) -> None:
    """A newer Codex rollout reports ``cache_write_input_tokens`` inside ``input_tokens``, as it
    does the cached: the reported input is unchanged, the written part is a cache write (priced
    as one by ``cache``), not fresh input."""
    from ctx_lab.recordings.transcripts import load_transcript

    rollout = next((TRANSCRIPTS / "codemie-ai__codemie-code").glob("rollout-2026-05-11T11*"))
    lines = rollout.read_text(encoding="utf-8").splitlines()
    changed = []
    for line in lines:
        record = json.loads(line)
        info = (record.get("payload") or {}).get("info") or {}
        last = info.get("last_token_usage")
        if last and not changed:
            last["cache_write_input_tokens"] = 1000
            changed.append(last["input_tokens"])
        changed_line = json.dumps(record)
        lines[lines.index(line)] = changed_line
    path = tmp_path / rollout.name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    before, after = load_transcript(rollout), load_transcript(path)
    first_before = next(c.usage for c in before.calls if c.usage)
    first_after = next(c.usage for c in after.calls if c.usage)
    assert first_after.reported_input == first_before.reported_input == changed[0]
    assert first_after.cache_creation_input_tokens == 1000
    assert first_after.input_tokens == first_before.input_tokens - 1000
