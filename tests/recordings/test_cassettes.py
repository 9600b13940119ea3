"""VCR cassettes read as recorded sessions: the model calls answered as JSON become calls; the
rest is left out and counted; a hostile cassette is a typed error."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from ctx_lab.errors import InvalidRecording, TranscriptError
from ctx_lab.recordings import load_transcript
from tests.paths import FIXTURES

CASSETTES = FIXTURES / "sessions" / "cassettes"


def _messages_call(text: str, cached: int = 0) -> dict:  # type: ignore[type-arg]
    request = {"model": "claude-sonnet-4-5", "max_tokens": 64,
               "messages": [{"role": "user", "content": text}]}  # fmt: skip
    response = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
                "usage": {"input_tokens": 12, "output_tokens": 2,
                          "cache_read_input_tokens": cached,
                          "cache_creation_input_tokens": 0}}  # fmt: skip
    return {
        "request": {"method": "POST", "uri": "https://api.anthropic.com/v1/messages",
                    "body": json.dumps(request)},
        "response": {"status": {"code": 200, "message": "OK"},
                     "body": {"string": gzip.compress(json.dumps(response).encode())}},
    }  # fmt: skip


def _write(tmp_path: Path, interactions: list, name: str = "c.yaml") -> Path:  # type: ignore[type-arg]
    import yaml

    path = tmp_path / name
    path.write_text(yaml.safe_dump({"interactions": interactions, "version": 1}))
    return path


def test_model_calls_are_read_and_the_rest_counted(tmp_path: Path) -> None:
    count = {"request": {"method": "POST", "uri": "https://api.anthropic.com/v1/messages/count_tokens",
                         "body": json.dumps({"model": "m", "messages": []})},
             "response": {"status": {"code": 200}, "body": {"string": '{"input_tokens": 9}'}}}  # fmt: skip
    stream = _messages_call("streamed")
    stream["response"]["body"] = {"string": "event: message_start\ndata: {}\n\n"}
    failed = _messages_call("refused")
    failed["response"]["status"] = {"code": 429}
    page = {"request": {"method": "GET", "uri": "https://example.org/", "body": None},
            "response": {"status": {"code": 200}, "body": {"string": "<html></html>"}}}  # fmt: skip
    path = _write(tmp_path, [_messages_call("one"), count, stream, failed, page,
                             _messages_call("two", cached=5)])  # fmt: skip
    transcript = load_transcript(path)
    assert transcript.format == "anthropic-messages"
    assert len(transcript.calls) == 2
    assert [c.usage.cache_read_input_tokens for c in transcript.calls] == [0, 5]  # type: ignore[union-attr]
    note = next(w for w in transcript.warnings if "cassette interactions left out" in w)
    assert "not a model call: 2" in note  # the token count and the page
    assert "a model call answered as an event stream: 1" in note
    assert "a model call answered 429: 1" in note


def test_a_packed_cassette_and_a_json_one_read_alike(tmp_path: Path) -> None:
    yaml_path = _write(tmp_path, [_messages_call("hello")])
    packed = tmp_path / "c.yaml.gz"
    packed.write_bytes(gzip.compress(yaml_path.read_bytes()))
    plain = load_transcript(yaml_path)
    assert len(load_transcript(packed).calls) == len(plain.calls) == 1


def test_a_bedrock_body_is_anthropic_and_named_by_its_path(tmp_path: Path) -> None:
    call = _messages_call("hi")
    body = json.loads(call["request"]["body"])
    del body["model"]
    body["anthropic_version"] = "bedrock-2023-05-31"
    call["request"]["body"] = json.dumps(body)
    call["request"]["uri"] = (
        "https://bedrock-runtime.us-east-1.amazonaws.com/model/"
        "anthropic.claude-3-haiku-20240307-v1%3A0/invoke"
    )
    transcript = load_transcript(_write(tmp_path, [call]))
    assert transcript.format == "anthropic-messages"


def test_a_cassette_without_a_model_call_is_said(tmp_path: Path) -> None:
    page = {"request": {"method": "GET", "uri": "https://example.org/", "body": None},
            "response": {"status": {"code": 200}, "body": {"string": "x"}}}  # fmt: skip
    with pytest.raises(TranscriptError, match="without a model call"):
        load_transcript(_write(tmp_path, [page]))


def test_an_alias_bomb_is_refused_typed(tmp_path: Path) -> None:
    levels = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for n in range(1, 8):
        levels.append(
            f"{chr(97 + n)}: &{chr(97 + n)} [" + ", ".join([f"*{chr(96 + n)}"] * 10) + "]"
        )
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("\n".join(levels) + "\ninteractions: []\n")
    with pytest.raises(InvalidRecording, match="aliases"):
        load_transcript(bomb)


@pytest.mark.parametrize("cassette", sorted(CASSETTES.glob("*/*.gz")), ids=lambda p: p.name[:40])
def test_every_committed_cassette_reads_with_usage(cassette: Path) -> None:
    transcript = load_transcript(cassette)
    assert transcript.calls and all(c.usage is not None for c in transcript.calls)
