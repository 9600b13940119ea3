"""``ctx-lab capture`` stopped as services are stopped: SIGTERM keeps every finished call and
exits 0; SIGKILL at any moment loses only calls the client had not received whole. Clients are
the official ``anthropic`` SDK; the upstream is a local fake on 127.0.0.1."""

from __future__ import annotations

import random
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import anthropic
import pytest
from capture_helpers import message

from ctx_lab.anatomy import CaptureStore
from ctx_lab.capture import Answer, FakeUpstream, Served, sse_from_response

pytestmark = pytest.mark.slow

MESSAGE = message("a streamed answer in a few events", 8)


def start_proxy(db: Path, upstream: str, *extra: str) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "ctx_lab", "capture", "--provider", "anthropic", "--db", str(db),
         "--upstream", upstream, "--port", "0", *extra],
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    assert process.stderr is not None
    line = process.stderr.readline()
    found = re.search(r"http://127\.0\.0\.1:(\d+)", line)
    assert found, line
    return process, f"http://127.0.0.1:{found[1]}"


def markers(db: Path) -> set[str]:
    with CaptureStore(db, readonly=True) as store:
        bodies = [c.request_body.decode() for c in store.calls()]
    return {m for body in bodies for m in re.findall(r"call-[0-9a-f]{32}", body)}


def stream_once(client: anthropic.Anthropic, marker: str) -> bool:
    """One streamed call; True when the client received the whole answer."""
    with client.messages.stream(
        model="claude-test", max_tokens=20, messages=[{"role": "user", "content": marker}]
    ) as stream:
        message = stream.get_final_message()
    return (
        message.stop_reason == "end_turn"
        and message.content[0].text == MESSAGE["content"][0]["text"]
    )


@pytest.fixture
def upstream():  # type: ignore[no-untyped-def]
    served = Served(FakeUpstream([Answer.stream(sse_from_response(MESSAGE), delay=0.02)]).app())
    yield served.url
    served.stop()


def test_sigterm_after_16_concurrent_streams_keeps_all_16(tmp_path: Path, upstream: str) -> None:
    db = tmp_path / "calls.db"
    process, url = start_proxy(db, upstream)
    client = anthropic.Anthropic(base_url=url, api_key="sk-test", max_retries=0)
    sent = [f"call-{uuid.uuid4().hex}" for _ in range(16)]
    completed: list[str] = []

    def one(marker: str) -> None:
        if stream_once(client, marker):
            completed.append(marker)

    threads = [threading.Thread(target=one, args=(m,)) for m in sent]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    process.send_signal(signal.SIGTERM)  # at once, as kill, systemd and docker do
    assert process.wait(timeout=60) == 0
    assert sorted(completed) == sorted(sent)
    assert markers(db) == set(sent)


def test_sigterm_lets_a_call_in_flight_finish(tmp_path: Path) -> None:
    slow = Served(FakeUpstream([Answer.stream(sse_from_response(MESSAGE), delay=0.15)]).app())
    db = tmp_path / "calls.db"
    process, url = start_proxy(db, slow.url, "--grace", "20")
    client = anthropic.Anthropic(base_url=url, api_key="sk-test", max_retries=0)
    marker = f"call-{uuid.uuid4().hex}"
    result: list[bool] = []
    thread = threading.Thread(target=lambda: result.append(stream_once(client, marker)))
    thread.start()
    time.sleep(0.4)  # mid-answer
    process.send_signal(signal.SIGTERM)
    thread.join(30)
    assert process.wait(timeout=60) == 0
    slow.stop()
    assert result == [True] and markers(db) == {marker}


def busy(client: anthropic.Anthropic, completed: list[str], stop: threading.Event) -> None:
    """Streamed calls one after another until stopped or the proxy is gone."""
    while not stop.is_set():
        marker = f"call-{uuid.uuid4().hex}"
        try:
            if stream_once(client, marker):
                completed.append(marker)
        except Exception:  # the proxy was killed mid-call: that call is not received
            return


def test_sigkill_at_random_moments_loses_no_call_a_client_received(
    tmp_path: Path, upstream: str
) -> None:
    chance = random.Random(41)
    for round_ in range(10):
        db = tmp_path / f"round{round_}.db"
        process, url = start_proxy(db, upstream)
        client = anthropic.Anthropic(base_url=url, api_key="sk-test", max_retries=0)
        completed: list[str] = []
        stop = threading.Event()

        clients = [threading.Thread(target=busy, args=(client, completed, stop)) for _ in range(4)]
        for thread in clients:
            thread.start()
        # the kill lands at a random moment after the first call went through (on a loaded
        # machine the proxy's first answer alone can take longer than the random wait)
        deadline = time.monotonic() + 30
        while not completed and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(chance.uniform(0.0, 0.9))
        process.kill()
        process.wait(timeout=30)
        stop.set()
        for thread in clients:
            thread.join(30)
        assert completed, "no call completed before the kill"
        missing = set(completed) - markers(db)
        assert not missing, f"round {round_}: {len(missing)} received call(s) not in the file"
