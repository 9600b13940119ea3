"""The MCP server, driven by the official SDK's own client: in memory, over stdio (a real
``ctx-lab mcp serve`` process) and over Streamable HTTP on 127.0.0.1. Tools and resources are
listed, a PDF and an HTML file are read to the end, a paging quota runs out, the packet matches
the CLI's, bad paths and private addresses are clean error results, a changed ``.context/``
notifies listeners, and the call log loads as a DataFrame and replays as a transcript."""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from paths import REPO
from read_helpers import walk as read_walk

from ctx_lab import commands
from ctx_lab.cli import main
from ctx_lab.mcp_server import (
    PACKET_URI,
    CallLog,
    CtxLabMCP,
    build_server,
    call_log_messages,
    load_call_log,
)
from ctx_lab.read import Reader

pytestmark = pytest.mark.slow

CONTINUED = re.compile(r"\[page \d+ of \d+, continued\]\n")
DATA = REPO / "notebooks" / "data"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    shutil.copytree(REPO / "ctx_lab" / "examples" / "tidepool" / ".context", root / ".context")
    shutil.copy(DATA / "gateway-handbook.pdf", root / "handbook.pdf")
    shutil.copy(DATA / "guide.html", root / "guide.html")
    (root / "app.log").write_text("".join(f"{i:04d} event " + "x" * 60 + "\n" for i in range(500)))
    (tmp_path / "secret.txt").write_text("outside the root")
    return root


def text_of(result) -> str:
    return result.content[0].text


async def walk(client: Client, uri: str, max_chars: int) -> list[dict]:
    chunks = [(await client.call_tool("read", {"uri": uri, "max_chars": max_chars}))]
    while chunks[-1].structured_content["truncated"]:
        assert len(chunks) < 500
        cursor = chunks[-1].structured_content["next_cursor"]
        chunks.append(
            await client.call_tool("read", {"uri": uri, "cursor": cursor, "max_chars": max_chars})
        )
    assert not any(c.is_error for c in chunks)
    return [c.structured_content for c in chunks]


def test_in_memory_tools_resources_reading_paging_and_errors(project: Path) -> None:
    log = project.parent / "calls.jsonl"
    state = CtxLabMCP(project, budget=2000, log=CallLog(log), max_pages=3, watch_interval=0)
    reader = Reader([project])

    async def session() -> None:
        async with Client(build_server(state)) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert set(tools) == {
                *("read", "page", "budget", "packet", "build", "count_tokens", "anatomy", "cache"),
                "policies",
                "check",
            }
            assert tools["read"].input_schema == commands.commands()["read"].input_schema()
            assert "next_cursor" in tools["read"].description
            assert "truncated=false" in tools["read"].description
            assert "artifact_id" in tools["page"].input_schema["properties"]
            uris = [str(r.uri) for r in (await client.list_resources()).resources]
            assert uris[0] == PACKET_URI and "ctx-lab://context/DECISIONS.md" in uris

            # a PDF and an HTML page, read to the end: the chunks are the whole text
            for name in ("handbook.pdf", "guide.html"):
                chunks = await walk(client, name, 600)
                assert len(chunks) > 2
                joined = "".join(c["content"] for c in chunks)
                # the same text however it is cut (a chunk that starts mid-page repeats the
                # page's marker as "continued"): the whole document in the largest chunks
                whole = "".join(c.content for c in read_walk(reader, name, 20_000))
                assert CONTINUED.sub("", joined) == CONTINUED.sub("", whole)
                document = reader.document(name)[0]
                if document.pages:  # a PDF: every page's text, in order, under its marker
                    at = [joined.index(page.strip()[:200]) for page in document.pages]
                    assert at == sorted(at) and joined.startswith("[page 1 of ")
                else:
                    assert joined == document.text

            # a stateless request gets a new quota; the agent carries it by budget_id
            first = await client.call_tool("page", {"artifact_id": "app.log", "end_line": 20})
            budget_id = first.structured_content["budget_id"]
            outcomes = [first]
            for start in (21, 41, 61):
                args = {"artifact_id": "app.log", "start_line": start, "end_line": start + 19}
                outcomes.append(await client.call_tool("page", {**args, "budget_id": budget_id}))
            assert [o.is_error for o in outcomes] == [False, False, False, True]
            assert "BudgetExhausted" in text_of(outcomes[-1])
            left = await client.call_tool("budget", {"budget_id": budget_id})
            assert left.structured_content["pages_remaining"] == 0

            # clean error results, never a crash
            outside = await client.call_tool("read", {"uri": "../secret.txt"})
            assert outside.is_error and "PathOutsideRoot" in text_of(outside)
            private = await client.call_tool("read", {"uri": "http://10.0.0.1/admin"})
            assert private.is_error and "private" in text_of(private)
            loopback = await client.call_tool("page", {"artifact_id": "http://127.0.0.1:1/x"})
            assert loopback.is_error
            unknown = await client.call_tool("packet", {"budget": 100, "colour": "red"})
            assert unknown.is_error
            build = await client.call_tool(
                "build", {"task": "what does app.log say", "paths": ["app.log"], "budget": 800}
            )
            assert not build.is_error and "app.log" in text_of(build)
            count = await client.call_tool(
                "count_tokens", {"text": "hello world", "model": "gpt-4o"}
            )
            # the tokens command's report: the model's own tokenizer, and that it is exact
            counted = count.structured_content
            assert counted["total"] == {"o200k": 2} and counted["exact"] == {"o200k": True}

    anyio.run(session)
    frame = load_call_log(log)
    assert frame["tool"].value_counts()["read"] >= 6
    assert frame["is_error"].sum() == 5
    assert (frame["tokens"] > 0).all() and frame["counter"].eq("o200k").all()
    assert list(frame["call"]) == list(range(1, len(frame) + 1))


def test_packet_matches_the_cli_and_the_resource(project: Path, capsys) -> None:
    state = CtxLabMCP(project, budget=1500, watch_interval=0)

    async def session() -> tuple[dict, str]:
        async with Client(build_server(state)) as client:
            made = await client.call_tool("packet", {"budget": 1500, "format": "json"})
            resource = await client.read_resource(PACKET_URI)
            return made.structured_content, resource.contents[0].text

    packet, resource = anyio.run(session)
    assert main(["packet", str(project), "--budget", "1500", "--format", "json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert packet["tokens_used"] == cli["tokens_used"] and packet["budget"] == 1500
    assert resource.startswith("# Context Packet") and "Budget: 1500 tokens" in resource


def test_a_changed_context_notifies_listeners_and_subscribers(project: Path) -> None:
    state = CtxLabMCP(project, budget=2000, watch_interval=0.1)
    learnings = project / ".context" / "LEARNINGS.md"

    def touch() -> None:
        learnings.write_text(learnings.read_text() + "\n## [2026-06-20-120000] Found\n\nA.\n")

    async def modern() -> str:
        async with (
            Client(build_server(state)) as client,
            client.listen(resource_subscriptions=[PACKET_URI]) as events,
        ):
            touch()
            with anyio.fail_after(10):
                async for event in events:
                    return event.uri
        return ""

    assert anyio.run(modern) == PACKET_URI
    seen: list[str] = []

    async def legacy() -> None:
        async def handler(message) -> None:
            uri = getattr(getattr(getattr(message, "root", message), "params", None), "uri", None)
            if uri:
                seen.append(str(uri))

        async with Client(build_server(state), mode="legacy", message_handler=handler) as client:
            await client.subscribe_resource("ctx-lab://context/LEARNINGS.md")
            touch()
            with anyio.fail_after(10):
                while not seen:
                    await anyio.sleep(0.05)
            # unsubscribing (a later request of the same connection) stops the updates
            await client.unsubscribe_resource("ctx-lab://context/LEARNINGS.md")
            touch()
            await anyio.sleep(0.6)  # six watch intervals
            # a stateful connection keeps its own paging quota without budget_id
            for _ in range(2):
                await client.call_tool("page", {"artifact_id": ".context/TASKS.md", "end_line": 3})
            left = await client.call_tool("budget", {})
            assert left.structured_content["pages_used"] == 2

    with pytest.warns(Warning):
        anyio.run(legacy)
    assert seen == ["ctx-lab://context/LEARNINGS.md"]


def test_stdio_server_and_its_call_log(project: Path) -> None:
    log = project.parent / "served.jsonl"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "ctx_lab", "mcp", "serve", "--root", str(project), "--log", str(log)],
    )

    async def session() -> None:
        async with Client(params) as client:
            assert (
                len((await client.list_tools()).tools) == 10
            )  # anatomy, cache, policies, check too
            chunks = await walk(client, "guide.html", 4000)
            assert chunks[-1]["truncated"] is False
            bad = await client.call_tool("read", {"uri": "/etc/passwd"})
            assert bad.is_error

    anyio.run(session)
    frame = load_call_log(log)
    assert len(frame) == len(set(frame["call"])) and frame["tool"].eq("read").all()
    assert frame["is_error"].tolist() == [False] * (len(frame) - 1) + [True]
    # what the agent received, as a conversation the transcript tools read
    from ctx_lab.recordings import load_transcript

    transcript = load_transcript(call_log_messages(log))
    results = [m for m in transcript.messages if m.role == "tool_result"]
    assert [m.content for m in results] == frame["result"].tolist()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_http_server_on_loopback(project: Path) -> None:
    port = free_port()
    argv = ["mcp", "serve", "--root", str(project), "--transport", "http", "--port", str(port)]
    server = subprocess.Popen(
        [sys.executable, "-m", "ctx_lab", *argv, "--budget", "1500"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.1)

        async def session() -> None:
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                assert {t.name for t in (await client.list_tools()).tools} >= {"read", "packet"}
                made = await client.call_tool("packet", {"format": "json"})
                assert made.structured_content["budget"] == 1500
                outside = await client.call_tool("read", {"uri": "../secret.txt"})
                assert outside.is_error and "PathOutsideRoot" in text_of(outside)
                private = await client.call_tool("read", {"uri": "http://192.168.1.1/"})
                assert private.is_error
                resource = await client.read_resource(PACKET_URI)
                assert resource.contents[0].text.startswith("# Context Packet")

        anyio.run(session)
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_cli_usage_errors(project: Path, capsys) -> None:
    assert main(["mcp"]) == 2
    assert main(["mcp", "serve", "--transport", "pigeon"]) == 2
    assert main(["mcp", "serve", "--root", str(project), "--log", "/no/such/dir/x.jsonl"]) == 1
    assert "does not exist" in capsys.readouterr().err


def test_every_tool_declares_its_output_schema_and_annotations(project: Path) -> None:
    """Listed through the official client: each tool's output schema is its result's payload
    schema and its annotations come from its declaration; the client validates every
    structured result against the schema it listed (a mismatch raises)."""
    state = CtxLabMCP(project, budget=2000, watch_interval=0)

    async def session() -> None:
        async with Client(build_server(state)) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            for name, tool in tools.items():
                declared = commands.mcp_tools()[name]
                assert tool.output_schema == declared.output_schema, name
                assert tool.annotations is not None and tool.annotations.destructive_hint is False
            assert tools["page"].annotations.read_only_hint is False
            assert tools["page"].annotations.idempotent_hint is False
            assert tools["read"].annotations.open_world_hint is True
            assert tools["packet"].annotations.read_only_hint is True
            calls = {
                "packet": {"budget": 1500},
                "build": {"task": "what does app.log say", "paths": ["app.log"], "budget": 800},
                "page": {"artifact_id": "app.log", "end_line": 5},
                "budget": {},
                "read": {"uri": "guide.html", "max_chars": 500},
                "count_tokens": {"text": "hello"},
                "anatomy": {"file": "calls.json"},
                "cache": {"file": "session.jsonl"},
                "policies": {"file": ["session.jsonl"], "policy": ["recorded", "none"]},
                "check": {"file": ["session.jsonl"]},
            }
            (project / "calls.json").write_text(
                json.dumps({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]})
            )
            shutil.copy(REPO / "ctx_lab" / "examples" / "sessions" / "coding-session.jsonl",
                        project / "session.jsonl")  # fmt: skip
            assert set(calls) == set(tools)
            for name, arguments in calls.items():
                result = await client.call_tool(name, arguments)  # validated by the client
                assert not result.is_error, (name, text_of(result))
                assert result.structured_content["version"] == 1

    anyio.run(session)


def test_http_serves_with_the_httptools_parser(project: Path, monkeypatch) -> None:
    """The HTTP server runs on httptools (the ``mcp`` extra installs it): uvicorn's pure-Python
    h11 costs ~0.3 ms of a tools/call round trip (bench: mcp)."""
    import uvicorn

    from ctx_lab.mcp_server import _serve

    seen: dict[str, object] = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **options: seen.update(options))
    _serve.serve(CtxLabMCP(project, watch_interval=0), "http", port=free_port())
    assert seen["http"] == "httptools" and seen["host"] == "127.0.0.1"
    assert seen["proxy_headers"] is False  # nothing in front: X-Forwarded-For is not believed
    assert _serve.http_protocol() == "httptools"


def test_a_made_up_model_in_a_recording_warns_once_over_mcp(project: Path) -> None:
    """The MCP check tool on a recording whose model no registry knows: a result, not an error,
    with one warning naming the assumed limits and no finding made from them."""
    from shared_recordings import made_up_recording

    made_up_recording(project)
    state = CtxLabMCP(project, watch_interval=0)

    async def session() -> dict:
        async with Client(build_server(state)) as client:
            result = await client.call_tool("check", {"file": ["made-up.json"]})
            assert not result.is_error, text_of(result)
            return result.structured_content

    report = anyio.run(session)
    assert report["findings"] == []
    said = [w for w in report["warnings"] if "made-up-model-9" in w]
    assert len(said) == 1 and "assumed" in said[0]


def test_the_server_makes_its_first_packet_while_it_starts(project: Path, monkeypatch) -> None:
    """``serve`` starts ``warm`` in the background: the ``.context/`` files are read and parsed
    before the first ``packet`` call, which then reads none of them (a first call over stdio:
    15–28 ms before, 9–12 ms after, as later calls). A root without ``.context/`` warms quietly."""
    import threading

    import ctx_lab.packet._context as context_module
    from ctx_lab.mcp_server import _serve

    state = CtxLabMCP(project)
    started: list[str] = []
    monkeypatch.setattr(threading.Thread, "start", lambda t: started.append(t.name))
    monkeypatch.setattr("anyio.run", lambda *a, **k: None)
    _serve.serve(state)
    assert started == ["ctx-lab-mcp-warm"]

    reads: list[Path] = []
    real = context_module.load_parts
    monkeypatch.setattr(context_module, "load_parts", lambda d, *a: reads.append(d) or real(d, *a))
    state.warm()
    assert len(reads) == 1
    connection = state.connection({})
    first = state.call("packet", {}, connection)
    assert len(reads) == 1  # made from what warm() read
    assert first.result.to_dict() == commands.packet(root=project).to_dict()

    bare = project.parent / "bare"
    bare.mkdir()
    CtxLabMCP(bare).warm()  # nothing to make: no error
