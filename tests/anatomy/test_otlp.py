"""OpenTelemetry traces out and in: ``anatomy --session --format otlp`` exports every real
recorded session so that reading the export back gives the same anatomy; the export parses
into OpenTelemetry's own protobuf messages; a trace without content reads as calls with usage
and says so; every command that takes a session reads the export."""

from __future__ import annotations

import base64
import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
from paths import SHARED

from ctx_lab.anatomy import anatomy_of
from ctx_lab.cli import main
from ctx_lab.errors import UsageError
from ctx_lab.recordings.transcripts import load_transcript

REAL = SHARED / "real-data" / "transcripts"
SESSIONS = sorted(p for p in REAL.rglob("*.json*") if p.is_file()) if REAL.is_dir() else []
# request bodies and cassettes, taken apart body by body rather than read as a transcript
BODIES = {"test_anthropic_tool_with_thinking.json", "test_openai_tool_output.jsonl"}
LONG = REAL / "marot__spotter" / "long" / "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
needs_shared = pytest.mark.skipif(not SESSIONS, reason="../shared/real-data is absent")


# a recording that names no model (a Codex 0.128 rollout without turn_context) is exported
# for the model the user names: without one, every command asks for --model
NO_MODEL = {"rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl": "gpt-5.5"}


def _export(path: Path, tmp_path: Path, content: str = "delta") -> tuple[Any, Path]:
    from dataclasses import replace

    anatomy = anatomy_of(path, session=True, replay=False, model=NO_MODEL.get(path.name))
    out = tmp_path / f"{path.stem}.{content}.otlp.json"
    out.write_text(replace(anatomy, otlp_content=content).render("otlp"), encoding="utf-8")
    return anatomy, out


@needs_shared
@pytest.mark.parametrize("content", ["delta", "full"])
@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.name)
def test_export_then_import_gives_the_same_anatomy(
    path: Path, content: str, tmp_path: Path
) -> None:
    """Each message once (``delta``, the default) or the conventions' whole input every span
    (``full``): the same session, hence the same anatomy, read back."""
    if path.name in NO_MODEL:
        with pytest.raises(UsageError, match="--model"):
            anatomy_of(path, session=True, replay=False)
    anatomy, out = _export(path, tmp_path, content)
    again = anatomy_of(
        out, session=True, replay=False, label=anatomy.source, model=NO_MODEL.get(path.name)
    )
    assert again.rows() == anatomy.rows()
    assert [c.items for c in again.calls] == [c.items for c in anatomy.calls]
    original, imported = load_transcript(path), load_transcript(out)
    if path.name in BODIES:  # the bodies travel whole; the conventions' content beside them
        assert [c.usage for c in imported.calls] == [c.usage for c in original.calls]
        assert imported.messages == original.messages
        return
    assert imported.format == original.format and imported.thinking == original.thinking
    assert [c.usage for c in imported.calls] == [c.usage for c in original.calls]
    # the session itself: every message (those no call was sent too), where it compacted and
    # what its compactions wrote, and the agent's version
    assert imported.messages == original.messages
    assert imported.compactions == original.compactions
    assert imported.recorded_summaries == original.recorded_summaries
    assert imported.agent_version == original.agent_version
    assert imported.agent_window == original.agent_window  # Codex's window for the model


def _as_protobuf(payload: dict[str, Any]) -> Any:
    """OTLP/JSON to OpenTelemetry's protobuf message (OTLP/JSON writes ids in hex where the
    protobuf JSON mapping expects base64: converted first, as the OTLP spec describes)."""
    for resource in payload["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                for ids in (span, *span.get("links", [])):
                    for key in ("traceId", "spanId"):
                        ids[key] = base64.b64encode(bytes.fromhex(ids[key])).decode()
    return json_format.Parse(json.dumps(payload), trace_service_pb2.ExportTraceServiceRequest())


@needs_shared
def test_the_export_parses_with_opentelemetry_proto(tmp_path: Path) -> None:
    anatomy, out = _export(LONG, tmp_path)
    message = _as_protobuf(json.loads(out.read_text()))
    spans = message.resource_spans[0].scope_spans[0].spans
    assert len(spans) == len(anatomy.calls) == 143
    first = {a.key: a.value for a in spans[25].attributes}
    assert first["gen_ai.usage.input_tokens"].int_value == 132_083  # cache included
    assert first["gen_ai.operation.name"].string_value == "chat"
    assert first["ctx_lab.context.counter"].string_value == anatomy.calls[25].counter
    assert len(spans[25].trace_id) == 16 and len(spans[25].span_id) == 8
    assert spans[25].links[0].span_id == spans[24].span_id  # each span links to the one before
    # the cache model's prediction beside the reported split (as ctx-lab cache gives it)
    from ctx_lab.recordings import simulate_cache

    predicted = simulate_cache(load_transcript(LONG)).calls[25]
    assert first["ctx_lab.context.cache_read.predicted"].int_value == predicted.cache_read
    assert first["ctx_lab.context.cache_read.reported"].int_value == anatomy.calls[25].cache_read
    assert all(e.name == "ctx_lab.context.item" for s in spans for e in s.events)


@needs_shared
def test_a_trace_without_content_reads_as_usage_and_says_so(tmp_path: Path) -> None:
    _, out = _export(LONG, tmp_path)
    payload = json.loads(out.read_text())
    for span in payload["resourceSpans"][0]["scopeSpans"][0]["spans"]:
        span["attributes"] = [a for a in span["attributes"]
                              if not a["key"].startswith(("gen_ai.input", "gen_ai.output",
                                                          "gen_ai.system", "ctx_lab."))]  # fmt: skip
    bare = tmp_path / "usage-only.json"
    bare.write_text(json.dumps(payload))
    transcript = load_transcript(bare)
    original = load_transcript(LONG)
    assert transcript.messages == () and len(transcript.calls) == 143

    def split(usage: Any) -> tuple[int, ...]:  # (the 1-hour cache write is ctx_lab's own)
        return (usage.reported_input, usage.output_tokens, usage.cache_read_input_tokens,
                usage.cache_creation_input_tokens)  # fmt: skip

    assert [split(c.usage) for c in transcript.calls] == [split(c.usage) for c in original.calls]
    assert "143 of 143 calls have no content in the trace (usage only)" in transcript.warnings


@needs_shared
def test_every_session_command_reads_the_export(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    short = REAL / "marot__spotter" / "tool_heavy.jsonl"
    out = tmp_path / "trace.json"
    assert main(["anatomy", str(short), "--session", "--format", "otlp"]) == 0
    out.write_text(capsys.readouterr().out)
    for command in (["replay"], ["cache"], ["policies"], ["check"], ["anatomy", "--session"]):
        assert main([command[0], str(out), *command[1:], "--format", "json"]) in (0, 1), command
        assert isinstance(json.loads(capsys.readouterr().out), dict)


def test_a_single_request_says_to_export_sessions(tmp_path: Path) -> None:
    if not SESSIONS:
        pytest.skip("../shared/real-data is absent")
    body = REAL / "pydantic__pydantic-ai" / "test_anthropic_tool_with_thinking.json"
    assert main(["anatomy", str(body), "--format", "otlp"]) == 2


@needs_shared
def test_calibrate_reads_the_export_as_it_reads_the_session(tmp_path: Path) -> None:
    from ctx_lab.recordings import calibrate

    session = REAL / "marot__spotter" / "subagent.jsonl"
    _, out = _export(session, tmp_path)
    fitted, again = calibrate([session], "bytes/4"), calibrate([out], "bytes/4")
    assert (again.model, again.ratio, again.calls) == (fitted.model, fitted.ratio, fitted.calls)


@needs_shared
@pytest.mark.parametrize(
    "path",
    [p for p in SESSIONS if p.parent.name == "long"],
    ids=lambda p: p.name[:8],
)
def test_export_then_import_gives_identical_policies(path: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """An export of a long session is ~10× the session (every call's input again): read back
    under the recording limit, not the file limit, and ``policies`` on it gives the same JSON
    as on the original; past the recording limit, one line naming it (exit 1)."""
    from ctx_lab.recordings import run_policies

    _, out = _export(path, tmp_path, "full")
    size = out.stat().st_size
    assert size > 20 * 2**20  # 30–32 MB for these sessions
    monkeypatch.setenv("CTX_LAB_MAX_FILE_BYTES", str(size // 4))  # the file limit is not it
    exported = run_policies(load_transcript(out), source="s").to_dict()
    assert exported == run_policies(load_transcript(path), source="s").to_dict()
    monkeypatch.setenv("CTX_LAB_MAX_RECORDING_BYTES", str(size - 1))
    code = main(["policies", str(out)])
    assert code == 1


@needs_shared
@pytest.mark.parametrize(
    "path", [p for p in SESSIONS if p.parent.name == "long"], ids=lambda p: p.name[:8]
)
def test_the_default_export_holds_each_message_once(path: Path, tmp_path: Path) -> None:
    """``delta`` (the default): a span carries what its input adds to the span it links to,
    so a long session's export is smaller than the session (1.6 MB for ae4a77f8's 2.7 MB;
    ``full`` repeats every input: 30 MB); ``none`` carries no message at all. Every span after
    the first links to the one before."""
    _, delta = _export(path, tmp_path)
    _, full = _export(path, tmp_path, "full")
    _, bare = _export(path, tmp_path, "none")
    assert delta.stat().st_size < path.stat().st_size < full.stat().st_size / 5
    assert delta.stat().st_size <= 8 * 2**20
    spans = json.loads(delta.read_text())["resourceSpans"][0]["scopeSpans"][0]["spans"]
    assert "links" not in spans[0]
    assert all(s["links"][0]["spanId"] == p["spanId"] for p, s in itertools.pairwise(spans))
    names = {a["key"] for s in spans for a in s["attributes"]}
    assert "ctx_lab.input.delta" in names and "gen_ai.input.messages" not in names
    kept = json.loads(bare.read_text())["resourceSpans"][0]["scopeSpans"][0]["spans"]
    named = {a["key"] for s in kept for a in s["attributes"]}
    assert not {"ctx_lab.input.delta", "gen_ai.input.messages", "gen_ai.output.messages"} & named
    assert "gen_ai.usage.input_tokens" in named
    read = load_transcript(bare)
    assert len(read.calls) == len(load_transcript(path).calls) and not read.messages


def test_a_delta_that_carries_more_than_its_link_held_is_refused(tmp_path: Path) -> None:
    from ctx_lab.errors import InvalidRecording

    def span(index: int, carried: int) -> dict[str, Any]:
        attrs = {"gen_ai.operation.name": "chat", "ctx_lab.call.index": index,
                 "ctx_lab.input.carried": carried,
                 "ctx_lab.input.delta": json.dumps([{"role": "user", "parts": [
                     {"type": "text", "content": "hi"}]}])}  # fmt: skip
        return {"traceId": "0" * 32, "spanId": f"{index + 1:016x}", "name": "chat m",
                "attributes": [{"key": k, "value": {"intValue": str(v)} if isinstance(v, int)
                                else {"stringValue": v}} for k, v in attrs.items()]}  # fmt: skip

    path = tmp_path / "t.json"
    body = {"resourceSpans": [{"scopeSpans": [{"spans": [span(0, 0), span(1, 9)]}]}]}
    path.write_text(json.dumps(body))
    with pytest.raises(InvalidRecording, match="carries 9 messages"):
        load_transcript(path)
