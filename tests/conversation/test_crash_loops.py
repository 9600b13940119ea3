"""Crash loops: at least 50 SIGKILLs at random points for each durable writer — stream journal,
tool journal, history save, cursor key creation, atomic writes. Every acknowledged write is
recovered, nothing is corrupt, and no temporary file outlives the next write."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from paths import REPO, TESTS

CHILD = TESTS / "crash_child.py"
KILLS = int(os.environ.get("CTX_LAB_CRASH_KILLS", "50"))
PARALLEL = 5

pytestmark = pytest.mark.slow


def _spawn(*args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen(
        [sys.executable, str(CHILD), *args], stdout=subprocess.PIPE, text=True, env=env
    )


def _kill_after(child: subprocess.Popen[str], lines: int) -> list[str]:
    """Read ``lines`` acknowledgements, then SIGKILL (a random moment of the next write)."""
    seen: list[str] = []
    assert child.stdout is not None
    for line in child.stdout:
        seen.append(line.strip())
        if len(seen) >= lines:
            break
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    child.stdout.close()
    return seen


def _loop(
    tmp_path: Path,
    seed: int,
    start: Callable[[Path], subprocess.Popen[str]],
    most: int,
    check: Callable[[Path, list[str]], None],
) -> None:
    rng = random.Random(seed)
    for round_ in range(0, KILLS, PARALLEL):
        runs = []
        for k in range(min(PARALLEL, KILLS - round_)):
            where = tmp_path / f"run{round_ + k}"
            where.mkdir()
            runs.append((where, start(where), rng.randint(1, most)))
        for where, child, lines in runs:
            check(where, _kill_after(child, lines))


def test_stream_journal_survives_kills(tmp_path: Path) -> None:
    from ctx_lab.conversation import StreamJournal

    def check(where: Path, acks: list[str]) -> None:
        found = StreamJournal.open(where / "s.db").recover()
        acked = len([a for a in acks if a.isdigit()])
        assert found is not None
        count = found.partial_text.count("<")
        assert count >= acked
        assert found.partial_text == "".join(f"<{i}>" for i in range(count))

    _loop(tmp_path, 1, lambda w: _spawn("stream", str(w / "s.db"), "300"), 250, check)


def test_tool_journal_survives_kills(tmp_path: Path) -> None:
    from ctx_lab.conversation import ToolJournal

    def check(where: Path, acks: list[str]) -> None:
        found = ToolJournal.open(where / "t.db").recover()
        acked = [int(a) for a in acks if a.isdigit()]
        if acks and acks[0] == "batch":
            assert found is not None and len(found.calls) == 40
            done = {r.call_id for r in found.results}
            assert {f"c{i}" for i in acked} <= done
            for result in found.results:
                assert result.content.startswith(f"result {result.call_id[1:]} ")

    _loop(tmp_path, 2, lambda w: _spawn("tools", str(w / "t.db"), "40"), 35, check)


def test_history_save_survives_kills(tmp_path: Path) -> None:
    from ctx_lab.conversation import ContextManager

    def check(where: Path, acks: list[str]) -> None:
        loaded = ContextManager.load(where / "h.json")
        assert len(loaded.history) >= len(acks)
        ContextManager.load(where / "h.json").save(where / "h.json")  # the next write sweeps
        assert not [p for p in where.iterdir() if p.name.endswith(".tmp")]

    _loop(tmp_path, 3, lambda w: _spawn("history", str(w / "h.json"), "200"), 25, check)


def test_cursor_key_creation_survives_kills(tmp_path: Path, monkeypatch) -> None:
    from ctx_lab.read._cursor import user_cursor_secret

    def check(where: Path, acks: list[str]) -> None:
        keys = {int(i): key for i, key in (a.split() for a in acks)}
        for directory in sorted(where.iterdir()):
            monkeypatch.setenv("XDG_CACHE_HOME", str(directory))
            key = user_cursor_secret()
            assert len(key) == 16  # never empty, never half
            index = int(directory.name)
            if index in keys:
                assert key.hex() == keys[index]  # an acknowledged key is the key
            stored = (directory / "ctx-lab" / "cursor.key").read_text().strip()
            assert stored == key.hex()

    _loop(tmp_path, 4, lambda w: _spawn("cursor_key", str(w), "30"), 25, check)


def test_atomic_writes_leave_old_or_new_and_no_leftovers(tmp_path: Path) -> None:
    from ctx_lab.files import write_atomic

    def check(where: Path, acks: list[str]) -> None:
        text = (where / "out.txt").read_text()
        version = int(text.split("\n", 1)[0].split()[1])
        assert version >= int(acks[-1]) and text.endswith("x" * 200_000)
        write_atomic(where / "out.txt", "after the crash\n")
        assert sorted(p.name for p in where.iterdir()) == ["out.txt"]

    _loop(tmp_path, 5, lambda w: _spawn("atomic", str(w / "out.txt"), "400"), 40, check)
