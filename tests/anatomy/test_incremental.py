"""A recorded session's anatomy costs each call its own growth: every message's pieces are
made once (``SessionPieces``) and every piece is counted and hashed once (the item memo), and
the result is the one the whole-history walk gives."""

from __future__ import annotations

import pytest
from paths import RECORDED

import ctx_lab.anatomy._pieces as pieces_module
from ctx_lab.anatomy import anatomy_of
from ctx_lab.anatomy._pieces import SessionPieces, pieces_of_transcript
from ctx_lab.recordings import load_transcript

SESSION = RECORDED / "codemie-ai__codemie-code" / "session-3fe1b6bc.jsonl.gz"
CODEX_LIKE = RECORDED / "codemie-ai__codemie-code" / "incremental-subagents-turn-2.jsonl.gz"


@pytest.mark.parametrize("path", [SESSION, CODEX_LIKE], ids=lambda p: p.name)
def test_each_calls_pieces_equal_the_whole_history_walk(path) -> None:  # type: ignore[no-untyped-def]
    transcript = load_transcript(path)
    shared = SessionPieces(transcript.system, transcript.tools, "anthropic")
    for call in transcript.calls:
        start, end = transcript.sent_range(call)
        whole = pieces_of_transcript(
            transcript.messages[start:end], transcript.system, transcript.tools
        )
        assert shared.of(transcript.messages, start, end) == whole


def test_a_sessions_messages_are_taken_apart_once_each(monkeypatch) -> None:
    transcript = load_transcript(SESSION)
    made: list[int] = []
    real = pieces_module.message_pieces
    monkeypatch.setattr(
        pieces_module, "message_pieces", lambda m, *a: made.append(1) or real(m, *a)
    )
    session = anatomy_of(SESSION, session=True, replay=False)
    runs: dict[int, int] = {}  # first message sent → the most any call sends from it
    for call in transcript.calls:
        start, end = transcript.sent_range(call)
        runs[start] = max(runs.get(start, 0), end - start)
    # each message of each run once (a compaction starts a run), not each message per call
    assert 0 < len(made) <= sum(runs.values())
    assert len(session.calls) == len(transcript.calls)


def _counting_resolutions(monkeypatch) -> list[str]:  # type: ignore[no-untyped-def]
    """Every model the anatomy resolved a counter for (a stored calibration is looked for on
    disk each time)."""
    import ctx_lab.anatomy._request as request_module

    asked: list[str] = []
    real = request_module.resolve_counter
    monkeypatch.setattr(
        request_module,
        "resolve_counter",
        lambda counter, model, default, **kw: (
            asked.append(model) or real(counter, model, default, **kw)
        ),
    )
    return asked


def test_a_session_resolves_its_counter_once_per_model(monkeypatch) -> None:
    asked = _counting_resolutions(monkeypatch)
    session = anatomy_of(SESSION, session=True, replay=False)
    models = {c.model for c in session.calls}
    assert len(session.calls) > 20 and sorted(asked) == sorted(models)


def test_a_captured_session_resolves_its_counter_once_per_model(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import json

    from ctx_lab.anatomy import CaptureStore

    def body(text: str, model: str) -> bytes:
        return json.dumps(
            {"model": model, "max_tokens": 10, "messages": [{"role": "user", "content": text}]}
        ).encode()

    rows = [
        {
            "started": f"2026-01-01T00:00:{i:02d}+00:00",
            "provider": "anthropic",
            "method": "POST",
            "path": "/v1/messages",
            "status": 200,
            "stream": False,
            "request_body": (made := body(f"turn {i}", model)),
            "request_bytes": len(made),
            "response_body": b"{}",
            "response_bytes": 2,
        }
        for i, model in enumerate(["claude-sonnet-4-5"] * 6 + ["gpt-4o"] * 4)
    ]
    path = tmp_path / "calls.db"
    with CaptureStore(path) as store:
        store.record_many(rows)
    asked = _counting_resolutions(monkeypatch)
    session = anatomy_of(path, session=True)
    assert len(session.calls) == 10 and sorted(asked) == ["claude-sonnet-4-5", "gpt-4o"]
