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
