"""Summarizers (extractive offline; HTTP ones against a fake server on 127.0.0.1),
summarize_pending, simulate and the history command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from werkzeug import Request, Response

from ctx_lab.conversation import (
    AnthropicSummarizer,
    ChatCompletionsSummarizer,
    ContextManager,
    ExtractiveSummarizer,
    Message,
)
from ctx_lab.conversation._simulate import SIMULATION_COLUMNS, plot_usage, simulate, step_clock
from ctx_lab.errors import SummarizerError
from ctx_lab.tokens import count_tokens

CONVERSATION = [
    Message.user(
        "We need cursor pagination for GET /invoices. Offsets break under concurrent inserts."
    ),
    Message.assistant(
        "Agreed. I will sign cursors with HMAC. The merchant id goes in the payload."
    ),
    Message.tool_use("c1", "read_file", {"path": "api/invoices.py"}),
    Message.tool_result("c1", "def list_invoices(offset, limit): ..."),
    Message.assistant("The endpoint uses offsets today. I will replace them."),
]


def test_extractive_is_deterministic_and_within_target() -> None:
    s = ExtractiveSummarizer()
    first = s.summarize(CONVERSATION, 40)
    assert first == s.summarize(CONVERSATION, 40)
    assert first and count_tokens(first, "cl100k") <= 40
    assert first.startswith("user: We need cursor pagination")
    assert "read_file" in s.summarize(CONVERSATION, 400)
    assert s.summarize(CONVERSATION, 1)  # never empty


def test_chat_completions(httpserver, monkeypatch) -> None:
    monkeypatch.setenv("TEST_KEY", "sk-test")
    seen = {}

    def handler(request: Request) -> Response:
        seen["auth"] = request.headers.get("Authorization")
        seen["body"] = request.get_json()
        return Response(
            json.dumps({"choices": [{"message": {"content": "  A short summary.  "}}]}),
            content_type="application/json",
        )

    httpserver.expect_request("/v1/chat/completions", method="POST").respond_with_handler(handler)
    s = ChatCompletionsSummarizer(
        "gpt-4o-mini", base_url=httpserver.url_for("/v1"), api_key_env="TEST_KEY"
    )
    assert s.summarize(CONVERSATION, 120) == "A short summary."
    assert seen["auth"] == "Bearer sk-test" and seen["body"]["max_tokens"] == 120
    assert "Preserve key facts" in seen["body"]["messages"][0]["content"]
    assert "cursor pagination" in seen["body"]["messages"][1]["content"]
    assert s.input_limit == 120_000


def test_anthropic_and_chunking(httpserver, monkeypatch) -> None:
    monkeypatch.setenv("ANTHROPIC_TEST", "key")
    calls = []

    def handler(request: Request) -> Response:
        body = request.get_json()
        calls.append(body)
        assert request.headers["x-api-key"] == "key" and request.headers["anthropic-version"]
        return Response(
            json.dumps({"content": [{"type": "text", "text": f"part {len(calls)}"}]}),
            content_type="application/json",
        )

    httpserver.expect_request("/v1/messages", method="POST").respond_with_handler(handler)
    s = AnthropicSummarizer(
        base_url=httpserver.url_for(""), api_key_env="ANTHROPIC_TEST", input_limit=260
    )
    long = [Message.user("word " * 120) for _ in range(6)]
    result = s.summarize(long, 100)
    assert len(calls) > 2  # chunks, then the summary of the chunk summaries
    assert result == f"part {len(calls)}"
    assert "Summary of part 1" in calls[-1]["messages"][0]["content"]


def test_failures_never_replace_history(httpserver, monkeypatch) -> None:
    monkeypatch.setenv("K", "k")
    httpserver.expect_request("/v1/chat/completions").respond_with_data("overloaded", status=529)
    failing = ChatCompletionsSummarizer(
        "m", base_url=httpserver.url_for("/v1"), api_key_env="K", input_limit=10_000
    )
    m = ContextManager("unknown", clock=step_clock())
    for i in range(10):
        m.push_message(Message.user(f"m{i}"), 500)
    with pytest.raises(SummarizerError, match="529"):
        m.summarize_pending(failing)
    assert m.history.summaries == []
    monkeypatch.delenv("K")
    with pytest.raises(SummarizerError, match="set K"):
        failing.summarize(CONVERSATION, 10)

    class Empty:
        name = "empty"

        def summarize(self, messages, target):
            return " "

    with pytest.raises(Exception, match="empty"):
        m.summarize_pending(Empty())
    assert m.history.summaries == []


def test_summarize_pending_until_it_fits() -> None:
    m = ContextManager("unknown", clock=step_clock())
    for i in range(12):
        m.push_message(Message.user(f"Message number {i} about the ledger export."), 500)
    created = m.summarize_pending(ExtractiveSummarizer())
    assert created and m.prepare().tokens <= m.message_budget()


def test_simulate_frame_and_plot() -> None:
    manager = ContextManager("gpt-4", clock=step_clock())
    frame = simulate([400] * 30, "gpt-4", switches={20: "gpt-3.5-turbo"}, manager=manager)
    assert list(frame.columns) == SIMULATION_COLUMNS and len(frame) == 30
    assert frame["event"].str.contains("summarized").any()
    assert "switched to gpt-3.5-turbo" in frame.loc[19, "event"]
    assert (frame["used"] <= frame["budget"]).all()
    assert manager.history.summaries and plot_usage(frame) is not None
    pairs = simulate([("user", 100), ("assistant", 300)], "gpt-4o")
    assert pairs["used"].tolist() == [100, 400]


def test_history_command(run_cli, tmp_path: Path) -> None:
    m = ContextManager("unknown-model", clock=step_clock())
    for i in range(10):
        m.push_message(Message.user(f"m{i}"), 500)
    path = tmp_path / "chat.json"
    m.save(path)
    code, out, _ = run_cli("history", str(path))
    assert (
        code == 0 and "needs_summarization" in out and "to summarize: 0–2 (1108 tokens over)" in out
    )
    code, _, _ = run_cli("history", str(path), "--check")
    assert code == 1
    code, out, _ = run_cli("history", str(path), "--model", "gpt-4o", "--check", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["state"] == "ready" and data["usage"]["budget_tokens"] == 106_036
    path.write_text("{}")
    code, _, err = run_cli("history", str(path))
    assert code == 1 and "entries" in err and "Traceback" not in err


def test_history_magic(ip, tmp_path: Path) -> None:
    from ctx_lab.conversation._report import HistoryReport

    m = ContextManager("gpt-4o", clock=step_clock())
    m.push_message(Message.user("hello"))
    m.save(tmp_path / "h.json")
    report = ip.run_line_magic("ctx", f"history {tmp_path / 'h.json'}")
    assert isinstance(report, HistoryReport) and report.state == "ready"
    assert "application/vnd.ctx-lab.history+json" in report._repr_mimebundle_()
