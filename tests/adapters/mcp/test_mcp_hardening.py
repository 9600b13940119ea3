"""The MCP server under attack (hardening round 3): argument types and enums, budgets another
session cannot reset or invent, subscriptions only to listed resources and capped, a log that
rotates and loads, the root never shown, and over HTTP Host/Origin checks for every bind and
bearer tokens — driven by the official SDK's client and plain HTTP requests."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import anyio
import httpx
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from paths import REPO

from ctx_lab.cli import main
from ctx_lab.errors import CtxLabError
from ctx_lab.mcp_server import CallLog, CtxLabMCP, build_server, load_call_log
from ctx_lab.mcp_server._server import MAX_SUBSCRIPTIONS, http_security


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    shutil.copytree(REPO / "ctx_lab" / "examples" / "tidepool" / ".context", root / ".context")
    (root / "app.log").write_text("".join(f"{i:04d} event\n" for i in range(300)))
    (root / "outside.txt").symlink_to(tmp_path / "secret.txt")
    (tmp_path / "secret.txt").write_text("outside the root")
    return root


def text_of(result) -> str:  # type: ignore[no-untyped-def]
    return result.content[0].text


def test_arguments_are_checked_against_the_schema(project: Path) -> None:
    state = CtxLabMCP(project, budget=1500, watch_interval=0)

    async def session() -> None:
        async with Client(build_server(state)) as client:
            for name, arguments, expected in [
                ("packet", {"focus": 5}, "focus must be a string, not int"),
                ("packet", {"format": "xml"}, "format must be one of md, json"),
                ("packet", {"budget": True}, "budget must be an integer, not bool"),
                ("read", {"uri": "app.log", "max_chars": 10**9}, "max_chars must be ≤ 20000"),
                ("build", {"task": "x", "paths": [1, 2]}, "paths must be a list of strings"),
                ("build", {}, "build needs task"),
                ("count_tokens", {"text": ["a"]}, "text must be a string"),
            ]:
                result = await client.call_tool(name, arguments)
                assert result.is_error and "UsageError" in text_of(result), (name, arguments)
                assert expected in text_of(result), text_of(result)
            as_json = await client.call_tool("packet", {"format": "json"})
            assert json.loads(text_of(as_json))["budget"] == 1500
            as_md = await client.call_tool("packet", {})
            assert text_of(as_md).startswith("# Context Packet")
            outside = await client.call_tool("read", {"uri": "outside.txt"})
            assert outside.is_error and str(project) not in text_of(outside)
            assert str(project.parent) not in text_of(outside)

    anyio.run(session)


def test_quotas_cannot_be_invented_or_reset_by_another_session(project: Path) -> None:
    state = CtxLabMCP(project, max_pages=2, watch_interval=0)

    async def session() -> None:
        owner = Client(build_server(state), mode="legacy")  # a stateful session
        async with owner, Client(build_server(state)) as other:
            first = await owner.call_tool("page", {"artifact_id": "app.log", "end_line": 5})
            budget_id = first.structured_content["budget_id"]
            invented = await other.call_tool(
                "page", {"artifact_id": "app.log", "budget_id": "f" * 32}
            )
            assert invented.is_error and "unknown budget_id" in text_of(invented)
            for i in range(1100):  # another session: ids never issued, and its own budgets
                asked = await other.call_tool("budget", {"budget_id": f"{i:032x}"})
                assert asked.is_error
                await other.call_tool("budget", {})
            left = await owner.call_tool("budget", {})
            assert left.structured_content["pages_used"] == 1
            assert left.structured_content["budget_id"] == budget_id
            await owner.call_tool("page", {"artifact_id": "app.log", "end_line": 5})
            spent = await owner.call_tool("page", {"artifact_id": "app.log", "end_line": 5})
            assert spent.is_error and "BudgetExhausted" in text_of(spent)

    anyio.run(session)
    assert len(state.session.budgets.budgets) <= 2  # asking about a quota never makes one


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
def test_subscriptions_only_to_listed_resources_and_capped(project: Path, monkeypatch) -> None:
    from ctx_lab.mcp_server import _server as module

    monkeypatch.setattr(module, "MAX_SUBSCRIPTIONS", 3)
    state = CtxLabMCP(project, watch_interval=0)

    async def session() -> None:
        async with Client(build_server(state), mode="legacy") as client:
            listed = [str(r.uri) for r in (await client.list_resources()).resources]
            with pytest.raises(Exception, match="no resource"):
                await client.subscribe_resource("ctx-lab://context/" + "x" * 3_000_000)
            for uri in listed[:3]:
                await client.subscribe_resource(uri)
            await client.subscribe_resource(listed[0])  # again: no new entry
            with pytest.raises(Exception, match="at most 3"):
                await client.subscribe_resource(listed[3])

    anyio.run(session)
    assert MAX_SUBSCRIPTIONS >= 100  # the real cap leaves room for every .context/ file


def test_the_call_log_rotates_and_its_loader_reads_what_it_wrote(tmp_path: Path) -> None:
    path = tmp_path / "calls.jsonl"
    log = CallLog(path, max_bytes=20_000)
    for i in range(200):
        log.record(1, "read", {"uri": f"f{i}"}, "result " * 50, False)
    big = log.record(1, "read", {}, "x" * 200_000, False)
    assert big["result_cut"] and big["chars"] == 200_000
    files = sorted(tmp_path.iterdir())
    assert [p.name for p in files] == ["calls.jsonl", *(f"calls.jsonl.{n}" for n in (1, 2, 3))]
    assert all(p.stat().st_size <= 200_000 for p in files)
    assert len(load_call_log(path)) >= 1 and len(load_call_log(files[1])) > 10
    bad = tmp_path / "bad.jsonl"
    for line, reason in [
        ("[1, 2]", "a JSON list"),
        ('{"time": "t"}', "no 'connection'"),
        ("[" * 100_000, "is not JSON"),
    ]:
        bad.write_text(line + "\n")
        with pytest.raises(CtxLabError, match=reason):
            load_call_log(bad)


def test_http_security_lists() -> None:
    assert http_security("127.0.0.2", 9000)[0] == [
        "127.0.0.2:9000",
        "localhost:9000",
        "127.0.0.1:9000",
        "[::1]:9000",
    ]
    assert http_security("0:0:0:0:0:0:0:1", 9000)[0][0] == "[::1]:9000"
    assert http_security("10.1.2.3", 80, ["box.lan"])[0] == ["10.1.2.3:80", "box.lan:80"]
    assert http_security("127.0.0.1", 80, allow_origins=["http://localhost:3000"])[1] == [
        "http://localhost:3000"
    ]
    with pytest.raises(CtxLabError, match="--allow-host"):
        http_security("0.0.0.0", 80)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve_http(project: Path, host: str, port: int, *extra: str) -> subprocess.Popen:
    """A real ``ctx-lab mcp serve --transport http`` process."""
    command = [sys.executable, "-m", "ctx_lab", "mcp", "serve", "--root", str(project),
               "--transport", "http", "--host", host, "--port", str(port), *extra]  # fmt: skip
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def start(project: Path, *extra: str) -> tuple[subprocess.Popen, int, str]:
    port = free_port()
    host = "127.0.0.1"  # the tests reach only loopback's first address (other binds: above)
    server = serve_http(project, host, port, *extra)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection((host, port), timeout=0.5).close()
            break
        except OSError:
            time.sleep(0.1)
    return server, port, host


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"},
    },
}


def post(url: str, **headers: str) -> int:
    response = httpx.post(
        url,
        json=INITIALIZE,
        headers={"accept": "application/json, text/event-stream", **headers},
        timeout=10,
    )
    return response.status_code


@pytest.mark.slow
def test_http_checks_host_origin_and_token_on_every_bind(project: Path) -> None:
    server, port, host = start(project, "--token", "s3cret")
    url = f"http://{host}:{port}/mcp"
    auth = {"authorization": "Bearer s3cret"}
    try:
        assert post(url) == 401
        assert post(url, authorization="Bearer wrong") == 401
        assert post(url, **auth, host="evil.example") == 421
        assert post(url, **auth, origin="http://evil.example") == 403
        assert post(url, **auth, origin=f"http://localhost:{port + 1}") == 403
        assert post(url, **auth) == 200

        async def session() -> None:
            client = create_mcp_http_client(headers=auth)
            async with Client(streamable_http_client(url, http_client=client)) as mcp:
                made = await mcp.call_tool("packet", {"budget": 900})
                assert not made.is_error

        anyio.run(session)
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.mark.slow
def test_beyond_loopback_a_token_is_generated_and_printed(project: Path) -> None:
    port = free_port()
    server = serve_http(project, "0.0.0.0", port, "--allow-host", "127.0.0.1")
    try:
        line = server.stderr.readline() if server.stderr else ""
        assert "Authorization: Bearer " in line
        token = line.split("Bearer ", 1)[1].split("'", 1)[0]
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.1)
        url = f"http://127.0.0.1:{port}/mcp"
        assert post(url) == 401
        assert post(url, authorization=f"Bearer {token}") == 200
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_serve_flags_are_bounded(capsys) -> None:
    assert main(["mcp", "serve", "--transport", "http", "--port", "70000"]) == 2
    assert "--port must be 1–65535" in capsys.readouterr().err
    assert main(["mcp", "serve", "--watch-interval", "1e-300"]) == 2
    assert "--watch-interval" in capsys.readouterr().err
    assert main(["mcp", "serve", "--watch-interval", "nan"]) == 2
    assert main(["mcp", "serve", "--transport", "http", "--host", "0.0.0.0"]) == 2
    assert "--allow-host" in capsys.readouterr().err


def test_mcp_and_rest_send_the_same_error_payload(project: Path) -> None:
    from ctx_lab import commands
    from ctx_lab.display import error_payload

    state = CtxLabMCP(project, watch_interval=0)
    try:
        commands.read("outside.txt", root=project)
    except CtxLabError as exc:
        expected = error_payload(exc, project)  # what REST's error body holds
    assert expected["status"] == 403 and str(project) not in expected["message"]

    async def session() -> None:
        async with Client(build_server(state)) as client:
            got = await client.call_tool("read", {"uri": "outside.txt"})
            assert got.is_error and got.structured_content == {"error": expected}
            assert text_of(got) == f"{expected['type']}: {expected['message']}"

    anyio.run(session)


def test_the_packet_tool_takes_now_and_relevance_like_the_cli(project: Path) -> None:
    from datetime import datetime

    from ctx_lab import commands

    state = CtxLabMCP(project, budget=1500, watch_interval=0)
    now = "2026-06-15T12:00:00Z"
    cli = commands.packet(
        project, budget=1500, now=datetime.fromisoformat(now), relevance="bm25", root=project
    )

    async def session() -> None:
        async with Client(build_server(state)) as client:
            made = await client.call_tool(
                "packet", {"now": now, "relevance": "bm25", "format": "json"}
            )
            assert made.structured_content["generated"] == "2026-06-15T12:00:00Z"
            assert made.structured_content["relevance"] == "bm25"
            assert made.structured_content["tokens_used"] == cli.tokens_used
            bad = await client.call_tool("packet", {"now": "yesterday"})
            assert bad.is_error and "UsageError" in text_of(bad)

    anyio.run(session)


def test_listen_streams_only_for_listed_resources(project: Path) -> None:
    state = CtxLabMCP(project, watch_interval=0)

    async def session() -> None:
        async with Client(build_server(state)) as client:
            with pytest.raises(Exception, match="no resource"):
                async with client.listen(
                    resource_subscriptions=["ctx-lab://context/" + "x" * 3000]
                ):
                    pass
            with pytest.raises(Exception, match="at most"):
                async with client.listen(
                    resource_subscriptions=["ctx-lab://packet"] * (MAX_SUBSCRIPTIONS + 1)
                ):
                    pass
            async with client.listen(resource_subscriptions=["ctx-lab://packet"]):
                pass  # a listed resource is accepted

    anyio.run(session)


def test_the_check_after_each_call_resolves_a_listing_once(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The look at .context/ after every tool call confines each file to the root when the
    listing is new, not on every call (resolving cost ~0.8 ms a call over HTTP); a new file is
    confined — and a symlink out of the root refused — when it appears."""
    import ctx_lab.files as files

    calls = []
    real = files.confine
    monkeypatch.setattr(files, "confine", lambda *a, **k: calls.append(a[1]) or real(*a, **k))
    state = CtxLabMCP(project, watch_interval=0)  # takes its first look at .context/
    state.changes()
    first = len(calls)
    assert first == 1 + len(state.context_files())  # the directory and each file
    for _ in range(5):
        state.changes()
    assert len(calls) == first
    (project / ".context" / "NOTES.md").write_text("# Notes\n")
    changed, listed = state.changes()
    assert listed and "ctx-lab://context/NOTES.md" in changed and len(calls) > first
    (project / ".context" / "LEAK.md").symlink_to(project.parent / "secret.txt")
    with pytest.raises(CtxLabError):
        state.changes()


WHITESPACE = " " * 2_000_000  # past the run tiktoken's pre-tokenizer panics on (≈ 1,000,185)


class FakePanic(BaseException):
    """What pyo3 raises for a Rust panic: a BaseException that ``except Exception`` misses."""


def test_a_native_panic_fails_one_call_and_the_server_keeps_serving(
    project: Path, monkeypatch
) -> None:
    state = CtxLabMCP(project, watch_interval=0)

    def panics(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise FakePanic("called `Result::unwrap()` on an `Err` value")

    async def session() -> None:
        async with Client(build_server(state)) as client:
            counted = await client.call_tool(
                "count_tokens", {"text": WHITESPACE, "counter": "o200k"}
            )
            assert not counted.is_error and "15625" in text_of(counted).replace(",", "")
            with monkeypatch.context() as patch:
                patch.setattr(state, "call", panics)
                failed = await client.call_tool("count_tokens", {"text": "x"})
            assert failed.is_error and "NativeCodeError" in text_of(failed)
            assert failed.structured_content["error"]["status"] == 422
            after = await client.call_tool("packet", {"budget": 900})
            assert not after.is_error

    anyio.run(session)


@pytest.mark.slow
def test_two_megabytes_of_whitespace_over_http_and_stdio(project: Path) -> None:
    from mcp.client.stdio import StdioServerParameters

    server, port, host = start(project)
    url = f"http://{host}:{port}/mcp"
    stdio = StdioServerParameters(
        command=sys.executable, args=["-m", "ctx_lab", "mcp", "serve", "--root", str(project)]
    )

    async def over(transport) -> None:  # type: ignore[no-untyped-def]
        async with Client(transport()) as mcp, Client(transport()) as other:
            counted = await mcp.call_tool("count_tokens", {"text": WHITESPACE, "counter": "o200k"})
            assert not counted.is_error, text_of(counted)
            assert "15625" in text_of(counted).replace(",", "")
            assert not (await other.call_tool("packet", {"budget": 900})).is_error

    try:
        anyio.run(over, lambda: streamable_http_client(url))
        assert post(url) == 200  # still answering every client
        anyio.run(over, lambda: stdio)
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_loopback_in_every_spelling_the_c_library_binds() -> None:
    from ctx_lab.mcp_server._server import is_loopback

    for host in ("127.1", "127.0.0.1", "0x7f.1", "2130706433", "localhost", "[::1]", "::1"):
        assert is_loopback(host), host
    for host in ("0.0.0.0", "10.1", "example.com", "", "127.1.1.1.1"):
        assert not is_loopback(host), host


def test_a_request_lists_a_bounded_number_of_files_each_once(project: Path) -> None:
    session = project / "s.jsonl"
    session.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}]}) + "\n")
    state = CtxLabMCP(project, watch_interval=0)

    async def run() -> None:
        async with Client(build_server(state)) as client:
            many = await client.call_tool("check", {"file": ["s.jsonl"] * 40})
            assert many.is_error and "at most 20 items, not 40" in text_of(many)
            repeated = await client.call_tool("check", {"file": ["s.jsonl"] * 3, "model": "gpt-4o"})
            assert not repeated.is_error, text_of(repeated)
            assert repeated.structured_content["sessions"] == ["s.jsonl"]

    anyio.run(run)
