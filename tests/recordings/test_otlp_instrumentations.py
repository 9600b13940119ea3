"""Traces made by real instrumentation packages read as sessions: the official openai SDK,
instrumented in turn by OpenTelemetry's own ``opentelemetry-instrumentation-openai-v2`` (the
GenAI conventions' latest attributes, content on the spans — and again with the content in log
records beside them), Arize's
``openinference-instrumentation-openai`` (``llm.input_messages.N.message.*``) and Traceloop's
``opentelemetry-instrumentation-openai`` (OpenLLMetry), makes pydantic-ai's real recorded calls
through ``ctx-lab capture`` to a fake upstream, offline; the spans, exported as OTLP/JSON, read
back to the same per-call usage and messages as the capture proxy's record of the same calls.
Package versions: scripts/constraints.txt."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from paths import SHARED

from ctx_lab.anatomy import CaptureStore, anatomy_of, capture_transcript
from ctx_lab.capture import Answer, CaptureProxy, FakeUpstream, Served
from ctx_lab.recordings.transcripts import load_transcript

CASSETTE = (
    SHARED / "real-data" / "transcripts" / "pydantic__pydantic-ai" / "test_openai_tool_output.jsonl"
)
CHILD = Path(__file__).with_name("otel_child.py")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not CASSETTE.is_file(), reason="../shared/real-data is absent"),
]


def _recorded(db: Path, count: int) -> None:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if db.exists():
            with CaptureStore(db, readonly=True) as store:
                if len(store.calls()) >= count:
                    return
        time.sleep(0.02)


@pytest.mark.parametrize("kind", ["openai-v2", "openai-v2-events", "openinference", "openllmetry"])
def test_a_real_instrumentations_trace_reads_as_the_captured_calls(
    kind: str, tmp_path: Path
) -> None:
    calls = [json.loads(line) for line in CASSETTE.read_text().splitlines() if line.strip()]
    db, out = tmp_path / "calls.db", tmp_path / "trace.json"
    upstream = Served(FakeUpstream([Answer.json(c["response"]) for c in calls]).app())
    proxy = Served(CaptureProxy("openai", upstream.url, CaptureStore(db)).app())
    try:
        done = subprocess.run(
            [sys.executable, str(CHILD), kind, f"{proxy.url}/v1", str(CASSETTE), str(out)],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        _recorded(db, len(calls))
    finally:
        proxy.stop()
        upstream.stop()
    traced, captured = load_transcript(out), capture_transcript(db)
    assert traced.format == "otlp" and len(traced.calls) == len(captured.calls) == 2
    for mine, theirs in zip(traced.calls, captured.calls, strict=True):
        assert mine.usage == theirs.usage
        assert mine.model == theirs.model
        sent = traced.messages[slice(*traced.sent_range(mine))]
        assert sent == captured.messages[slice(*captured.sent_range(theirs))]
    assert traced.messages == captured.messages  # the answers too
    assert [m.role for m in traced.messages] == ["user", "tool_use", "tool_result", "tool_use"]
    assert traced.messages[1].name == "get_user_country"
    assert (traced.calls[0].usage.reported_input, traced.calls[1].usage.reported_input) == (68, 89)
    # ctx-lab check reads the capture file: the two tool definitions are 43 of the first
    # call's 71 counted tokens (60.6 %, over the default 50 %), found once
    from ctx_lab.check import check_files

    found = check_files([db]).findings
    assert [(f.code, round(f.value, 1)) for f in found] == [("CTX104", 60.6)]
    # the capture file exports too, and reads back to the same anatomy
    captured_anatomy = anatomy_of(db, session=True, replay=False)
    exported = tmp_path / "capture.otlp.json"
    exported.write_text(captured_anatomy.render("otlp"))
    again = anatomy_of(exported, session=True, replay=False)
    assert again.rows() == captured_anatomy.rows()
