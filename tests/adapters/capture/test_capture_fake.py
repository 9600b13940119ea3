"""``ctx-lab capture --fake FILE``: recorded answers as the upstream — a capture file, recorded
JSON (pydantic-ai's request/response files), JSON Lines, or a VCR cassette in YAML — served to
the official SDKs without a key or a network, JSON or streamed as the request asks, and
recorded in the new capture file like any call."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import anthropic
import openai
import pytest
from paths import REPO

from ctx_lab.anatomy import CaptureStore, anatomy_of
from ctx_lab.capture._replay import RecordedUpstream, recorded_answers
from ctx_lab.errors import InputFileError, UsageError

pytestmark = [
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning"),
]

REAL = REPO.parent / "shared" / "real-data" / "transcripts" / "pydantic__pydantic-ai"
ANTHROPIC_JSON = REAL / "test_anthropic_tool_with_thinking.json"
ANTHROPIC_YAML = REAL / "test_anthropic_tool_with_thinking.yaml"
OPENAI_JSONL = REAL / "test_openai_tool_output.jsonl"


def _serve(*args: str) -> tuple[subprocess.Popen[str], str]:
    """The proxy in its own process; its first line (where it listens, what it serves) is
    kept in ``process.first_line``."""
    process = subprocess.Popen(
        [sys.executable, "-m", "ctx_lab.cli", "capture", "--port", "0", *args],
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    line = process.stderr.readline()  # type: ignore[union-attr]
    found = re.search(r"127\.0\.0\.1:(\d+)", line)
    assert found, line
    process.first_line = line  # type: ignore[attr-defined]
    return process, f"http://127.0.0.1:{found[1]}"


def _stop(process: subprocess.Popen[str]) -> str:
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=20)
    assert process.returncode == 0
    return err


def test_recorded_json_answers_the_anthropic_sdk_json_and_streamed(tmp_path: Path) -> None:
    recorded = json.loads(ANTHROPIC_JSON.read_text())
    db = tmp_path / "demo.db"
    process, url = _serve("--provider", "anthropic", "--db", str(db), "--fake", str(ANTHROPIC_JSON))
    try:
        client = anthropic.Anthropic(api_key="no-key-needed", base_url=url, max_retries=0)
        body = {k: v for k, v in recorded["request"].items() if k != "stream"}
        message = client.messages.create(**body)
        with client.messages.stream(**body) as stream:
            streamed = stream.get_final_message()
        other = client.messages.create(
            model="claude-sonnet-4-0", max_tokens=16, messages=[{"role": "user", "content": "hi"}]
        )
    finally:
        err = _stop(process)
    assert "1 recorded answer" in process.first_line  # type: ignore[attr-defined]
    assert "no provider is called" in process.first_line  # type: ignore[attr-defined]
    assert "3 call(s) recorded" in err
    expected = recorded["response"]
    assert message.usage.input_tokens == expected["usage"]["input_tokens"]
    assert [b.type for b in message.content] == [b["type"] for b in expected["content"]]
    assert [b.type for b in streamed.content] == [b["type"] for b in expected["content"]]
    assert other.id == expected["id"]  # an unknown request gets the next answer in turn
    with CaptureStore(db, readonly=True) as store:
        calls = store.calls()
    assert [c.stream for c in calls] == [False, True, False]
    assert anatomy_of(db, call=1).reported_input == expected["usage"]["input_tokens"]


def test_a_capture_file_is_replayed_to_the_openai_sdk(tmp_path: Path) -> None:
    first_db = tmp_path / "first.db"
    process, url = _serve(
        "--provider", "openai", "--db", str(first_db), "--fake", str(OPENAI_JSONL)
    )
    calls = [json.loads(line) for line in OPENAI_JSONL.read_text().splitlines() if line.strip()]
    try:
        client = openai.OpenAI(base_url=f"{url}/v1", api_key="no-key", max_retries=0)
        answers = []
        for call in calls:  # the same requests: each gets its own recorded answer
            body = {k: v for k, v in call["request"].items() if k != "stream"}
            answers.append(client.chat.completions.create(**body))
    finally:
        _stop(process)
    assert [a.id for a in answers] == [c["response"]["id"] for c in reversed(calls)] or [
        a.id for a in answers
    ] == [c["response"]["id"] for c in calls]
    assert [a.usage.prompt_tokens for a in answers] == [
        c["response"]["usage"]["prompt_tokens"] for c in calls
    ]
    # the capture just made serves as the recording of the next demo
    second_db = tmp_path / "second.db"
    process, url = _serve("--provider", "openai", "--db", str(second_db), "--fake", str(first_db))
    try:
        client = openai.OpenAI(base_url=f"{url}/v1", api_key="no-key", max_retries=0)
        body = {k: v for k, v in calls[1]["request"].items() if k != "stream"}
        again = client.chat.completions.create(**body, stream=True)
        chunks = list(again)
    finally:
        _stop(process)
    assert chunks[-1].usage.prompt_tokens == calls[1]["response"]["usage"]["prompt_tokens"]


def test_a_vcr_cassette_in_yaml_and_hostile_files() -> None:
    found = recorded_answers(ANTHROPIC_YAML)  # two interactions; the JSON file holds the second
    recorded = json.loads(ANTHROPIC_JSON.read_text())
    assert len(found) == 2 and {r.status for r in found} == {200}
    assert found[1].request == recorded["request"] and found[1].response == recorded["response"]
    assert found[0].response["content"] != recorded["response"]["content"]
    upstream = RecordedUpstream(found)
    assert upstream.answer(b"not json").status == 200  # anything gets an answer


@pytest.mark.parametrize(
    "content",
    ["", "[]", "{}", '{"request": {}, "response": 3}', "[1, 2]", "{not json", "interactions: 3"],
)
def test_files_without_recorded_answers_are_usage_errors(tmp_path: Path, content: str) -> None:
    path = tmp_path / ("bad.yaml" if content.startswith("interactions") else "bad.json")
    path.write_text(content)
    with pytest.raises(UsageError):
        recorded_answers(path)


def test_the_cli_refuses_a_missing_file_and_both_flags(tmp_path: Path, run_cli) -> None:
    with pytest.raises(InputFileError):
        recorded_answers(tmp_path / "missing.json")
    db = str(tmp_path / "x.db")
    code, _, err = run_cli(
        "capture", "--provider", "openai", "--db", db, "--fake", str(OPENAI_JSONL),
        "--upstream", "http://127.0.0.1:1",
    )  # fmt: skip
    assert code == 2 and "either --upstream or --fake" in err
    code, _, err = run_cli("capture", "--provider", "openai", "--db", db, "--fake", "nope.json")
    assert code == 1 and "no such file" in err
