"""The window view and the charts in a real JupyterLab in Chromium: a request's whole window, a
Claude Code call with the prefix its file lacks (inferred from the reported input), the live
capture in the monitor with the budget line and "grew by", and every chart's axes and legend
(anatomy session, replay, cache, policies). Screenshots go to test-artifacts/."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from labtools import ARTIFACTS, Lab, open_lab, open_monitor, run_all, wait_for_calls

pytestmark = [pytest.mark.browser, pytest.mark.slow]
REPO = Path(__file__).resolve().parents[2]
REAL = REPO.parent / "shared" / "real-data" / "transcripts"
LONG = sorted((REAL / "marot__spotter" / "long").glob("*.jsonl"))
RECORDED = REAL / "pydantic__pydantic-ai" / "test_anthropic_tool_with_thinking.json"


def _blocks(view) -> dict[str, int]:  # type: ignore[no-untyped-def]
    cells = view.locator("[data-ctx-window-block]")
    return {
        cells.nth(i).get_attribute("data-ctx-window-block"): int(
            cells.nth(i).get_attribute("data-ctx-tokens")
        )
        for i in range(cells.count())
    }


def _axes_and_legend(chart) -> None:  # type: ignore[no-untyped-def]
    assert chart.locator("[data-ctx-axis='x'] [data-ctx-tick]").count() >= 2
    assert chart.locator("[data-ctx-axis='y'] [data-ctx-tick]").count() >= 3
    axis_titles = chart.locator("[data-ctx-axis] text:not([data-ctx-tick])").all_text_contents()
    assert "call" in axis_titles and any("tokens" in t for t in axis_titles)
    assert chart.locator(".ctx-legend .ctx-legend-item").count() >= 2


def test_window_view_of_a_request_and_of_a_claude_code_call(page, lab: Lab) -> None:
    shutil.copy(RECORDED, lab.root / "request.json")
    shutil.copy(LONG[0], lab.root / "claude-session.jsonl")
    lab.notebook(
        "window.ipynb",
        [
            "%load_ext ctx_lab",
            "%ctx anatomy request.json",
            "%ctx anatomy claude-session.jsonl --call 6",  # calls count from 1
        ],
    )
    open_lab(page, lab, "window.ipynb")
    run_all(page, "[data-ctx-window-view]", count=2)
    request, call = page.locator("[data-ctx-window-view]").all()[:2]
    blocks = _blocks(request)
    # no system prompt in this request: Anthropic's tool use system prompt is its own block
    assert {"tool_prompt", "tools", "messages", "free", "margin", "reserve"} <= set(blocks)
    assert "system" not in blocks
    assert request.locator("[data-ctx-window-legend]").count() == len(blocks)
    legend = request.locator("[data-ctx-window-legend='reserve']").inner_text()
    assert "output reserve" in legend and "%" in legend
    request.screenshot(path=str(ARTIFACTS / "window-view-request.png"))

    blocks = _blocks(call)
    assert blocks["hidden"] > 20_000  # Claude Code's system prompt and tools: not in the file
    hidden = call.locator("[data-ctx-window-legend='hidden']").inner_text()
    assert "system prompt + tools (inferred)" in hidden  # the cache engine's hidden prefix
    error = call.locator("[data-ctx-window-legend='error']").inner_text()
    assert "estimate error" in error and "inferred" in error
    assert "autocompact" in blocks and sum(blocks.values()) == 200_000
    head = page.locator("[data-ctx-anatomy-head]").nth(1).inner_text()
    assert f"free {blocks['free']:,}" in head
    assert page.locator("[data-ctx-advice]").count() >= 1
    page.locator("[data-ctx-anatomy]").nth(1).screenshot(
        path=str(ARTIFACTS / "window-view-claude-code-call.png")
    )


def test_every_chart_has_axes_and_a_legend(page, lab: Lab) -> None:
    from ctx_lab.examples import SESSIONS_DIR

    shutil.copy(LONG[0], lab.root / "long.jsonl")
    (lab.root / "coding.jsonl").write_bytes((SESSIONS_DIR / "coding-session.jsonl").read_bytes())
    lab.notebook(
        "charts.ipynb",
        [
            "%load_ext ctx_lab",
            "%ctx anatomy long.jsonl --session",
            "%ctx replay coding.jsonl --model gpt-4o --model claude-sonnet-4-6",
            "%ctx cache long.jsonl",
            "%ctx policies coding.jsonl --policy recorded --policy observation-masking:keep=2 "
            "--registry models-dev",
        ],
    )
    open_lab(page, lab, "charts.ipynb")
    run_all(page, "[data-ctx-kind='policies']")
    session = page.locator("[data-ctx-chart='timeline']").first
    _axes_and_legend(session)
    lines = session.locator("[data-ctx-legend-line]").all_inner_texts()
    assert any(t.startswith("input budget") for t in lines)
    assert any(t.startswith("autocompact at") for t in lines)
    assert session.locator("[data-ctx-line='budget']").count() == 1
    assert session.locator("[data-ctx-line='autocompact']").count() == 1
    assert "not in the file" in session.locator("[data-ctx-legend-area='hidden']").inner_text()
    session.screenshot(path=str(ARTIFACTS / "chart-anatomy-session.png"))
    for name in ("replay", "cache"):
        chart = page.locator(f"[data-ctx-chart='{name}']").first
        _axes_and_legend(chart)
        chart.screenshot(path=str(ARTIFACTS / f"chart-{name}.png"))
    policies = page.locator("[data-ctx-kind='policies']").first
    assert policies.locator("[data-ctx-axis='x'] [data-ctx-tick]").count() >= 2
    assert policies.locator("[data-ctx-axis='y'] [data-ctx-tick]").count() >= 3
    assert policies.locator("[data-ctx-legend] .ctx-legend-item").count() == 2
    policies.screenshot(path=str(ARTIFACTS / "chart-policies.png"))


def test_the_monitor_shows_the_window_the_lines_and_the_growth_of_a_live_capture(
    page, lab: Lab
) -> None:
    import openai

    from ctx_lab.anatomy import CaptureStore
    from ctx_lab.capture import CaptureProxy, Served
    from ctx_lab.capture._replay import RecordedUpstream, recorded_answers

    recording = REAL / "pydantic__pydantic-ai" / "test_openai_tool_output.jsonl"
    upstream = Served(RecordedUpstream(recorded_answers(recording)).app())  # capture --fake
    (lab.root / "live").mkdir(exist_ok=True)
    proxy = Served(
        CaptureProxy("openai", upstream.url, CaptureStore(lab.root / "live" / "calls.db")).app()
    )
    client = openai.OpenAI(base_url=f"{proxy.url}/v1", api_key="sk-test", max_retries=0)
    calls = [json.loads(line) for line in recording.read_text().splitlines() if line.strip()]
    try:
        body = {k: v for k, v in calls[0]["request"].items() if k != "stream"}
        client.chat.completions.create(**body)
        monitor = open_monitor(page, lab, "live", 1)
        body = {k: v for k, v in calls[1]["request"].items() if k != "stream"}
        client.chat.completions.create(**body)
        wait_for_calls(page, "live", 2, 5_000)
        time.sleep(0.2)
        fill = monitor.locator("[data-ctx-monitor-fill]")
        blocks = _blocks(fill.locator("[data-ctx-window-view]"))
        assert {"free", "reserve"} <= set(blocks) and sum(blocks.values()) == 128_000  # gpt-4o
        from ctx_lab.anatomy import anatomy_of

        rows = anatomy_of(lab.root / "live" / "calls.db", session=True).rows()
        expected = rows[1]["used"] - rows[0]["used"]
        assert expected > 0
        grew = fill.locator("[data-ctx-monitor-grew]")
        assert int(grew.get_attribute("data-ctx-monitor-grew")) == expected
        assert f"grew by {expected:,} tokens since the last call" in grew.inner_text()
        chart = monitor.locator("[data-ctx-chart='timeline']")
        _axes_and_legend(chart)
        assert chart.locator("[data-ctx-line='budget']").count() == 1
        assert any(
            t.startswith("input budget 106,036")
            for t in chart.locator("[data-ctx-legend-line]").all_inner_texts()
        )
        monitor.screenshot(path=str(ARTIFACTS / "monitor-window-and-lines.png"))
    finally:
        proxy.stop()
        upstream.stop()


def test_the_monitor_of_an_anthropic_capture_draws_the_autocompact_line(page, lab: Lab) -> None:
    import anthropic

    from ctx_lab.anatomy import CaptureStore
    from ctx_lab.capture import CaptureProxy, Served
    from ctx_lab.capture._replay import RecordedUpstream, recorded_answers

    upstream = Served(RecordedUpstream(recorded_answers(RECORDED)).app())  # capture --fake
    (lab.root / "claude").mkdir(exist_ok=True)
    db = lab.root / "claude" / "calls.db"
    proxy = Served(CaptureProxy("anthropic", upstream.url, CaptureStore(db)).app())
    client = anthropic.Anthropic(base_url=proxy.url, api_key="sk-test", max_retries=0)
    body = {k: v for k, v in json.loads(RECORDED.read_text())["request"].items() if k != "stream"}
    # Claude Code's own request (its identity line opens the system prompt): only then is the
    # window framed with its autocompact buffer (a plain SDK loop gets the output reserve)
    body["system"] = [
        {"type": "text", "text": "You are Claude Code, Anthropic's official CLI for Claude."}
    ]
    try:
        client.messages.create(**body)
        client.messages.create(**body)
        monitor = open_monitor(page, lab, "claude", 2)
        chart = monitor.locator("[data-ctx-chart='timeline']")
        _axes_and_legend(chart)
        assert chart.locator("[data-ctx-line='budget']").count() == 1
        assert chart.locator("[data-ctx-line='autocompact']").count() == 1
        keys = chart.locator("[data-ctx-legend-line]").all_inner_texts()
        assert any(k.startswith("autocompact at 167,000") for k in keys)  # Claude Code 2.1
        blocks = _blocks(monitor.locator("[data-ctx-monitor-fill] [data-ctx-window-view]"))
        assert blocks["autocompact"] == 33_000 and sum(blocks.values()) == 200_000
        grew = monitor.locator("[data-ctx-monitor-grew]").inner_text()
        assert grew == "the same size as the last call"
        monitor.screenshot(path=str(ARTIFACTS / "monitor-autocompact-line.png"))
    finally:
        proxy.stop()
        upstream.stop()
