"""A bounded fuzz of the capture surface (issue 41): malformed SSE and JSON answers through the
proxy, and hostile capture files read back through the CLI, the command REST and MCP call —
never a traceback (only :class:`CtxLabError`), never a query past its deadline.

CI runs a short pass; ``CTX_LAB_FUZZ_SECONDS=600`` runs each part for ten minutes."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import sqlite3
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctx_lab import commands
from ctx_lab.anatomy import CaptureStore, anatomy_of
from ctx_lab.capture import Answer, CaptureProxy, FakeUpstream, Served
from ctx_lab.cli import main
from ctx_lab.errors import CtxLabError

pytestmark = pytest.mark.slow

SECONDS = float(os.environ.get("CTX_LAB_FUZZ_SECONDS", "0"))
FUZZ = settings(
    max_examples=500 if SECONDS else 300,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=not SECONDS,
    database=None,
)
QUERY_LIMIT_S = 2

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False),
    st.text(max_size=30),
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=12,
)
KEYS = ["type", "index", "delta", "content_block", "message", "usage", "choices", "text",
        "partial_json", "tool_calls", "function", "response", "iterations", "finish_reason"]  # fmt: skip
EVENT_TYPES = ["message_start", "content_block_start", "content_block_delta", "message_delta",
               "message_stop", "response.completed", "response.created", None]  # fmt: skip
shaped = st.fixed_dictionaries(
    {"type": st.sampled_from(EVENT_TYPES)},
    optional={k: values for k in KEYS if k != "type"},
)
events = st.lists(st.one_of(shaped, values), max_size=12)


def _sse(found: list[object]) -> bytes:
    out = []
    for event in found:
        kind = event.get("type") if isinstance(event, dict) else None
        head = f"event: {kind}\n" if isinstance(kind, str) else ""
        out.append(f"{head}data: {json.dumps(event)}\n\n")
    return ("".join(out) + "data: [DONE]\n\n").encode()


def _within(run, label: str) -> None:  # type: ignore[no-untyped-def]
    began = time.monotonic()
    with contextlib.suppress(CtxLabError):  # a typed refusal is fine; anything else fails
        run()
    spent = time.monotonic() - began
    assert spent < QUERY_LIMIT_S * 3 + 5, f"{label} took {spent:.1f} s"


class Budget:
    """A long fuzz runs batches of random examples until its time is up; CI runs one batch."""

    def __init__(self) -> None:
        self.until = time.monotonic() + SECONDS
        self.batches = 0

    def over(self) -> bool:
        return bool(SECONDS) and time.monotonic() > self.until

    def run(self, batch) -> None:  # type: ignore[no-untyped-def]
        while True:
            batch()
            self.batches += 1
            if not SECONDS or self.over():
                return


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    fake = FakeUpstream([Answer.json({})])
    upstream = Served(fake.app())
    db = tmp_path_factory.mktemp("fuzz") / "calls.db"
    proxy = Served(CaptureProxy("anthropic", upstream.url, CaptureStore(db)).app())
    yield fake, proxy, db
    proxy.stop()
    upstream.stop()


def test_malformed_answers_through_the_proxy(stack, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("CTX_LAB_MAX_CAPTURE_QUERY_SECONDS", str(QUERY_LIMIT_S))
    fake, proxy, db = stack
    budget = Budget()
    request = json.dumps(
        {
            "model": "claude-sonnet-4-5",
            "max_tokens": 5,
            "messages": [{"role": "user", "content": "hi"}],
        }
    )

    @FUZZ
    @given(found=events, raw=st.binary(max_size=300), stream=st.booleans(), use_raw=st.booleans())
    def one(found: list[object], raw: bytes, stream: bool, use_raw: bool) -> None:
        if budget.over():
            return
        body = raw if use_raw else _sse(found)
        answer = (
            Answer.stream([body])
            if stream
            else Answer(200, body if use_raw else json.dumps(found).encode())
        )
        fake.answers = [answer]
        fake.received.clear()
        connection = http.client.HTTPConnection("127.0.0.1", proxy.port, timeout=30)
        connection.request(
            "POST", "/v1/messages", body=request, headers={"Content-Type": "application/json"}
        )
        response = connection.getresponse()
        got = response.read()
        connection.close()
        assert got == answer.body or got == b"".join(answer.events)
        with CaptureStore(db, readonly=True) as store:
            latest = store.latest(1)[0]
        _within(lambda: json.dumps(anatomy_of(db, call=latest.id).payload()), "anatomy of a call")
        _within(lambda: anatomy_of(db, session=True, last=3), "a session of fuzzed calls")

    budget.run(one)


COLUMN_TYPES = ["INTEGER", "TEXT", "BLOB", "REAL", ""]
ID_TYPES = ["INTEGER PRIMARY KEY", "INTEGER PRIMARY KEY", "INTEGER", "TEXT", ""]
NAMES = ["id", "started", "duration_ms", "provider", "method", "path", "status", "stream",
         "request_body", "request_bytes", "request_truncated", "response_body", "response_bytes",
         "response_truncated", "error"]  # fmt: skip
cells = st.one_of(
    st.none(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=True),
    st.text(max_size=40),
    st.binary(max_size=60),
    st.sampled_from(
        [
            b'{"model": "gpt-4o", "messages": []}',
            b'{"messages": 5}',
            b"data: {}\n\n",
            "claude-sonnet-4-5",
        ]
    ),
)


@st.composite
def capture_files(draw):  # type: ignore[no-untyped-def]
    kind = draw(st.sampled_from(["table", "view", "missing", "generated", "no-meta"]))
    columns = [n for n in NAMES if kind != "missing" or draw(st.booleans())] or ["id"]
    typed = [
        f"{n} {draw(st.sampled_from(ID_TYPES if n == 'id' else COLUMN_TYPES))}".strip()
        for n in columns
    ]
    if kind == "generated":
        typed[-1] = f"{columns[-1]} GENERATED ALWAYS AS (zeroblob(100000000)) VIRTUAL"
    rows = draw(st.lists(st.lists(cells, min_size=len(columns), max_size=len(columns)), max_size=6))
    return kind, columns, typed, rows


def _write(path: Path, spec) -> None:  # type: ignore[no-untyped-def]
    kind, columns, typed, rows = spec
    if path.exists():
        path.unlink()
    db = sqlite3.connect(path)
    if kind != "no-meta":
        db.execute("CREATE TABLE capture_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    if kind == "view":
        db.execute(
            "CREATE VIEW calls AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
            + "SELECT "
            + ", ".join(f"i AS {c}" for c in columns)
            + " FROM n"
        )
    else:
        db.execute(f"CREATE TABLE calls ({', '.join(typed)})")
        plain = [c for c, t in zip(columns, typed, strict=True) if "GENERATED" not in t]
        for row in rows:
            if "INTEGER PRIMARY KEY" in typed[0] and not isinstance(row[0], int | None):
                row = [None, *row[1:]]  # a row id is a whole number (SQLite refuses others)
            db.execute(
                f"INSERT OR IGNORE INTO calls ({', '.join(plain)}) VALUES ({', '.join('?' * len(plain))})",
                [v for c, v in zip(columns, row, strict=True) if c in plain],
            )
    db.commit()
    db.close()


def test_hostile_capture_files_read_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("CTX_LAB_MAX_CAPTURE_QUERY_SECONDS", str(QUERY_LIMIT_S))
    monkeypatch.chdir(tmp_path)
    budget = Budget()
    path = tmp_path / "hostile.db"

    @FUZZ
    @given(spec=capture_files(), session=st.booleans(), call=st.none() | st.integers(-3, 10))
    def one(spec, session: bool, call: int | None) -> None:  # type: ignore[no-untyped-def]
        if budget.over():
            return
        _write(path, spec)
        argv = ["anatomy", path.name, "--format", "json"]
        argv += ["--session"] if session else ([] if call is None else ["--call", str(call)])
        began = time.monotonic()
        code = main(argv)  # the CLI: 0, 1 or 2, never a traceback
        assert code in (0, 1, 2) and time.monotonic() - began < QUERY_LIMIT_S * 3 + 5
        assert "Traceback" not in capsys.readouterr().err

        # REST and MCP call the same command with a root and send its payload as JSON: only
        # typed errors may come out, and the payload must serialize
        def served() -> None:
            result = commands.anatomy(path.name, session=session, root=str(tmp_path))
            json.dumps(result.payload(), ensure_ascii=False)

        _within(served, "command")

    budget.run(one)
