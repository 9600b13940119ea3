"""The window view: the model's whole window as labelled blocks — the request's own, what the
file lacks (inferred from the reported input), free space to the limit, and what the window
keeps — summing to the window, on real recordings, with the charts' axes and legends."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from paths import REPO

from ctx_lab.anatomy import anatomy_of
from ctx_lab.recordings.transcripts import load_transcript

REAL = REPO.parent / "shared" / "real-data" / "transcripts"
LONG = sorted((REAL / "marot__spotter" / "long").glob("*.jsonl"))
RECORDED = REAL / "pydantic__pydantic-ai" / "test_anthropic_tool_with_thinking.json"


def _blocks(anatomy) -> dict[str, int]:
    return {b.key: b.tokens for b in anatomy.window_view()}


def test_a_claude_code_call_shows_its_hidden_prefix_and_free_space_from_the_report() -> None:
    call = anatomy_of(str(LONG[0]), call=5)
    assert call.reported_input and call.reported_input > call.total  # the file lacks its prefix
    blocks = _blocks(call)
    # the reported beyond the counted: the cache engine's hidden prefix (as ctx-lab cache
    # reports it), and what is left, the estimate error
    from ctx_lab.recordings import simulate_cache

    inferred = simulate_cache(load_transcript(LONG[0])).hidden_prefix
    assert call.system_inferred == inferred and blocks["hidden"] == inferred
    assert blocks["hidden"] + blocks["error"] == call.reported_input - call.total
    labels = {b.key: b.label for b in call.window_view()}
    assert labels["hidden"] == "system prompt + tools (inferred)"
    assert labels["error"] == "estimate error"
    assert {b.basis for b in call.window_view() if b.key in ("hidden", "error")} == {"inferred"}
    # free space runs from the reported total to where Claude Code compacts
    assert call.autocompact_at is not None
    assert blocks["free"] == call.autocompact_at - call.reported_input == call.free
    assert blocks["autocompact"] == call.window - call.autocompact_at
    assert sum(blocks.values()) == call.window
    text = call.to_text()
    assert f"+ {call.hidden:,} not in the file" in text and f"free {call.free:,}" in text
    payload = call.to_dict()
    assert payload["used"] == call.reported_input and payload["hidden"] == call.hidden
    assert [b["key"] for b in payload["window_view"]] == list(blocks)


def test_a_request_with_its_system_prompt_and_tools_keeps_the_output_reserve() -> None:
    request = anatomy_of(str(RECORDED))
    blocks = _blocks(request)
    # the request has no system prompt: what Anthropic adds for its tools is its own block,
    # named as Anthropic's pricing page names it, at its documented size
    assert "system" not in blocks and blocks["tools"] > 0
    assert blocks["tool_prompt"] in (346, 313)
    labels = {b.key: b.label for b in request.window_view()}
    assert labels["tool_prompt"] == "tool use system prompt"
    assert blocks["reserve"] == request.output_reserve
    assert blocks["margin"] == request.window - request.output_reserve - request.budget
    assert blocks["free"] == request.budget - request.used == request.free
    assert sum(blocks.values()) == request.window
    assert "hidden" not in blocks or request.reported_input > request.total
    html = request.html_body()
    assert html.count("data-ctx-window-block=") == len(blocks)
    assert html.count("data-ctx-window-legend=") == len(blocks)


def test_a_request_over_its_budget_eats_into_what_the_window_keeps() -> None:
    request = anatomy_of(str(RECORDED))
    used = request.used
    tight = replace(request, budget=100, output_reserve=50, window=used + 30)
    blocks = _blocks(tight)
    assert "free" not in blocks and "margin" not in blocks
    assert blocks["reserve"] == 30 and sum(blocks.values()) == tight.window
    assert tight.free == 100 - used
    beyond = replace(request, budget=100, output_reserve=50, window=used - 10)
    blocks = _blocks(beyond)
    assert blocks["over"] == 10 and "reserve" not in blocks
    assert {b.label for b in beyond.window_view() if b.key == "over"} == {"over the window"}


def test_the_session_chart_has_a_call_axis_a_token_axis_and_a_legend(tmp_path: Path) -> None:
    session = anatomy_of(str(LONG[0]), session=True)
    figure = session.plot()
    ax = figure.axes[0]
    assert ax.get_xlabel() == "call" and ax.get_ylabel() == "input tokens"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "not in the file (inferred from reported input)" in labels
    assert {"input budget", "autocompact", "tool_result"} <= set(labels)
    peak = max(r["used"] for r in session.rows())
    low, high = ax.get_ylim()
    assert low == 0 and peak <= high <= 1.2 * max(peak, session.calls[0].autocompact_at or 0)
    request = session.calls[40].plot().axes[0]
    assert request.get_xlabel().startswith("tokens") and request.get_legend() is not None
    assert any("input budget" in t.get_text() for t in request.get_legend().get_texts())


def _auto_compacted() -> list[Path]:
    from shared_recordings import with_usage

    return [p for p in with_usage() if '"trigger":"auto"' in p.read_text().replace(" ", "")]


def test_the_compaction_line_is_where_each_recording_compacted() -> None:
    """The window view's compaction line comes from the version in the file (Claude Code 2.0.x:
    200k less 45,000; 2.1.x: less 33,000, whatever window the API offers the model) and the
    first call past it is within one call of every recorded automatic compaction: 2.0.76's
    session-624a4a58 (after call 37) and 2.1.39's 8463c716 (after call 71)."""
    checked = {}
    for path in _auto_compacted():
        transcript = load_transcript(path)
        session = anatomy_of(str(path), session=True)
        line = {"2.0": 155_000, "2.1": 167_000}[transcript.agent_version[:3]]
        assert {c.autocompact_at for c in session.calls} == {line}, path.name
        assert {c.window for c in session.calls} == {200_000}, path.name  # not the API's 1M
        recorded = [c + 1 for c in transcript.compaction_calls()]
        auto = [r for r in recorded if r > 1]
        predicted, after = [], 0
        for call in session.calls:
            number = call.call or 0
            if number <= after or call.reported_input is None:
                continue
            if call.reported_input > line:
                predicted.append(number + 1)  # compacted after this response
                after = next((r for r in recorded if r > number), 10**9) - 1
        assert len(predicted) >= 1 and all(any(abs(p - r) <= 1 for r in auto) for p in predicted), (
            path.name,
            predicted,
            recorded,
        )
        checked[transcript.agent_version[:3]] = predicted
    assert set(checked) == {"2.0", "2.1"}, checked


def test_every_agent_s_compaction_line_is_its_one_rule() -> None:
    """Gemini CLI compresses at half the model's token limit; Codex at the window its rollout
    reports (95 % of 272,000 for gpt-5.5): the window view draws the line where the agent's
    policy in the lab compacts (``agent_point``), from what the file says."""
    from ctx_lab.recordings import agent_point, run_policies

    codemie = REAL / "codemie-ai__codemie-code"
    gemini = anatomy_of(
        str(codemie / "session-2026-01-16T11-01-file-ops-37b7abef.json"), session=True
    )
    assert {(c.window, c.autocompact_at) for c in gemini.calls} == {(1_048_576, 524_288)}
    rollout = next(codemie.glob("rollout-2026-05-11T11*"))
    codex = anatomy_of(str(rollout), session=True)
    assert {(c.window, c.autocompact_at) for c in codex.calls} == {(272_000, 258_400)}
    assert {c.budget for c in codex.calls} == {258_400}  # the window Codex says it sized by
    transcript = load_transcript(rollout)
    policy = run_policies(transcript, ["codex"]).policy("codex")
    assert policy.threshold == agent_point(transcript, 272_000) == 258_400
