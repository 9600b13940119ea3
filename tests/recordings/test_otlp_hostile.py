"""Hostile OTLP traces (issue 62): usage numbers that are not token counts, ctx_lab's own
attributes malformed — a located usage error (exit 2, REST 4xx) from every session command,
never a traceback or a negative bill."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctx_lab.cli import main
from ctx_lab.errors import InvalidRecording as TranscriptError
from ctx_lab.recordings.transcripts import load_transcript, otlp_bodies


def trace(*attributes: tuple[str, dict]) -> dict:
    base = [("gen_ai.operation.name", {"stringValue": "chat"}),
            ("gen_ai.request.model", {"stringValue": "claude-sonnet-4-5"}),
            ("gen_ai.usage.output_tokens", {"intValue": "5"})]  # fmt: skip
    chosen = dict(base + list(attributes))
    spans = [{"traceId": "01" * 16, "spanId": f"{i:016x}", "name": "chat",
              "startTimeUnixNano": str(10**18 + i), "endTimeUnixNano": str(10**18 + i + 1),
              "attributes": [{"key": k, "value": v} for k, v in chosen.items()]}
             for i in range(3)]  # fmt: skip
    return {"resourceSpans": [{"resource": {"attributes": []},
                               "scopeSpans": [{"scope": {"name": "t"}, "spans": spans}]}]}  # fmt: skip


HOSTILE = {
    "digits": ("gen_ai.usage.input_tokens", {"intValue": "9" * 4000}),
    "negative": ("gen_ai.usage.input_tokens", {"intValue": "-3000000"}),
    "negative cache": ("gen_ai.usage.cache_read.input_tokens", {"intValue": -5}),
    "text": ("gen_ai.usage.input_tokens", {"stringValue": "lots"}),
    "fraction": ("gen_ai.usage.input_tokens", {"doubleValue": 1.5}),
    "huge double": ("gen_ai.usage.output_tokens", {"doubleValue": 1e300}),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_usage_that_is_not_a_token_count_is_a_located_error(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(trace(HOSTILE[name])))
    with pytest.raises(TranscriptError, match="not a token count"):
        load_transcript(path)
    for command in (["replay"], ["cache"], ["policies"], ["check"], ["anatomy", "--session"],
                    ["calibrate"]):  # fmt: skip
        code = main([command[0], str(path), *command[1:]])
        err = capsys.readouterr().err
        assert code == 2 and "Traceback" not in err and "not a token count" in err, command


def test_a_good_trace_still_reads(tmp_path: Path) -> None:
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(trace(("gen_ai.usage.input_tokens", {"intValue": "1200"}))))
    calls = load_transcript(path).calls
    assert [c.usage.reported_input for c in calls] == [1200] * 3  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("attribute", "needle"),
    [
        (("ctx_lab.request.body", {"stringValue": "{not json"}), "not a JSON document"),
        (("ctx_lab.request.body", {"stringValue": '{"a": NaN}'}), "not a JSON document"),
        (("ctx_lab.call.index", {"stringValue": "first"}), "not a call number"),
    ],
)
def test_ctx_labs_own_attributes_malformed_are_located_errors(
    tmp_path: Path, attribute: tuple[str, dict], needle: str
) -> None:
    body = ("ctx_lab.request.body", {"stringValue": json.dumps({"model": "m", "messages": []})})
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(trace(body, attribute)))
    with pytest.raises(TranscriptError, match=needle):
        otlp_bodies(path)


def test_spans_per_trace_are_bounded(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("CTX_LAB_MAX_RECORDING_CALLS", "2")
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(trace(("gen_ai.usage.input_tokens", {"intValue": "1200"}))))
    assert main(["cache", str(path)]) == 1
    assert "3 LLM spans, over the 2-call recording_calls limit" in capsys.readouterr().err
