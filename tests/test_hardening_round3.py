"""Round 3 of the attack on the surfaces that arrived since the last one: each finding of the
hardening issue (N1–N20) with the test that reproduces it."""

from __future__ import annotations

import os
import re
import stat
import threading
from pathlib import Path

import pytest

from ctx_lab.cli import main as cli_main
from ctx_lab.errors import CtxLabError
from ctx_lab.files import write_output

# -- N2: -o FILE never replaces what is not a file ------------------------------------------------


def test_output_into_a_fifo_is_written_in_place(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []

    def reader() -> None:
        with open(fifo, "rb") as handle:
            received.append(handle.read())

    thread = threading.Thread(target=reader)
    thread.start()
    for _ in range(200):  # the reader must have the FIFO open before we write
        try:
            write_output(fifo, "hello\n")
            break
        except CtxLabError:
            threading.Event().wait(0.01)
    thread.join(5)
    assert received == [b"hello\n"] and stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_output_refuses_a_fifo_nobody_reads_a_directory_and_a_socket(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(CtxLabError, match="nothing reads the FIFO"):
        write_output(fifo, "x")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    with pytest.raises(CtxLabError, match="a directory"):
        write_output(tmp_path, "x")
    import socket

    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "s"))
    try:
        with pytest.raises(CtxLabError, match="a socket"):
            write_output(tmp_path / "s", "x")
    finally:
        sock.close()


def test_output_writes_through_a_symlink_and_honours_the_umask(tmp_path: Path) -> None:
    real = tmp_path / "real.md"
    real.write_text("old")
    real.chmod(0o640)
    link = tmp_path / "link.md"
    link.symlink_to(real)
    write_output(link, "new")
    assert link.is_symlink() and real.read_text() == "new"
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    previous = os.umask(0o022)
    try:
        write_output(tmp_path / "fresh.md", "x")
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "fresh.md").stat().st_mode) == 0o644


def test_the_cli_refuses_a_directory_as_its_output(tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    out.mkdir()
    assert cli_main(["packet", "--example", "--budget", "800", "-o", str(out)]) == 1
    assert "it is a directory" in capsys.readouterr().err
    assert out.is_dir() and not list(out.iterdir())


# -- N5: page --state across processes ----------------------------------------------------------


def test_page_state_is_charged_under_a_lock_across_processes(tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    (tmp_path / "big.log").write_text(
        "".join(f"{i} a line of text for paging\n" for i in range(1, 3001))
    )
    script = (
        "import json, sys\n"
        "from ctx_lab import commands\n"
        "from ctx_lab.errors import CtxLabError\n"
        "served = 0\n"
        "for k in range(6):\n"
        "    start = 1 + 50 * (int(sys.argv[1]) * 6 + k)\n"
        "    try:\n"
        "        r = commands.page('big.log', lines=(start, start + 49), root='.',\n"
        "                          state='state.json', max_pages=1000, max_tokens=8000)\n"
        "        served += r.tokens\n"
        "    except CtxLabError:\n"
        "        pass\n"
        "print(served)\n"
    )
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(n)], cwd=tmp_path, stdout=subprocess.PIPE, text=True
        )
        for n in range(8)
    ]
    served = sum(int(w.communicate(timeout=120)[0]) for w in workers)
    recorded = json.loads((tmp_path / "state.json").read_text())
    assert served <= 8000 and served == recorded["tokens_used"] > 6000


# -- lone surrogates and damaged histories ------------------------------------------------------


def test_lone_surrogates_never_enter_a_history_that_must_save(tmp_path: Path) -> None:
    from ctx_lab.conversation import ContextManager, Message
    from ctx_lab.errors import UsageError

    manager = ContextManager("gpt-4o", counter="bytes/4")
    with pytest.raises(UsageError, match="unpaired surrogate"):
        manager.set_system_prompt("prompt \ud800")
    with pytest.raises(UsageError, match="unpaired surrogate"):
        manager.set_tools([{"name": "t", "description": "x \udfff"}])
    with pytest.raises(UsageError, match="JSON data"):
        manager.set_tools([{"name": object()}])

    class Broken:
        name = "broken"

        def summarize(self, pending, target_tokens):  # type: ignore[no-untyped-def]
            return "summary \ud83d"

    small = ContextManager("gpt-4o", counter="bytes/4", preserve_recent=2)
    for i in range(400):
        small.push_message(Message.user(f"message {i} " + "words " * 400))
    with pytest.raises(CtxLabError):
        small.summarize_pending(Broken())
    assert len(small.history.summaries) == 0
    small.save(tmp_path / "h.json")  # still saves
    assert ContextManager.load(tmp_path / "h.json").history.summaries == []


@pytest.mark.parametrize(
    "context",
    [
        [],
        "x",
        {"tools": "not a list"},
        {"system_prompt": 5},
        {"counter": 7},
        {"target_ratio": "high"},
        {"preserve_recent": -1},
        {"output_limit": "a lot"},
    ],
)
def test_a_history_with_damaged_settings_is_history_corrupted(
    tmp_path: Path, context: object, capsys
) -> None:
    import json

    from ctx_lab.conversation import ContextManager, Message
    from ctx_lab.errors import HistoryCorrupted

    manager = ContextManager("gpt-4o", counter="bytes/4")
    manager.push_message(Message.user("hello"))
    path = manager.save(tmp_path / "h.json")
    data = json.loads(path.read_text())
    data["context"] = context
    path.write_text(json.dumps(data))
    with pytest.raises(HistoryCorrupted):
        ContextManager.load(path)
    assert cli_main(["history", str(path)]) == 1
    assert "error:" in capsys.readouterr().err


# -- N11 / N17: long names and the server's root --------------------------------------------------


def test_hide_root_rewrites_whole_path_components_only() -> None:
    from ctx_lab.files import hide_root

    text = "/srv/root/a.md and /srv/root and /srv/rootx/b and '/srv/root'"
    assert hide_root(text, "/srv/root") == "a.md and . and /srv/rootx/b and '.'"
    assert hide_root(text, None) == text and hide_root("/x", "/") == "/x"


def test_a_name_too_long_is_a_typed_error_everywhere_in_the_cli(tmp_path: Path, capsys) -> None:
    long = "a" * 5000
    for argv in (
        ["build", "--task", "x", long],
        ["context", long],
        ["journal", "stats", long],
        ["packet", long],
    ):
        assert cli_main(argv) in (1, 2), argv
        err = capsys.readouterr().err
        assert "Traceback" not in err and "error:" in err, argv


# -- N14: embedded IPv4 in IPv6, IANA's newer ranges, a refusal said as such ----------------------


@pytest.mark.parametrize(
    "address",
    [
        "::169.254.169.254",
        "::127.0.0.1",
        "::ffff:0:7f00:1",
        "::ffff:0:a9fe:a9fe",
        "3fff::1",
        "5f00::1",
        "2001:2::1",
        "::ffff:127.0.0.1",
        "64:ff9b::7f00:1",
        "2002:7f00:1::",
    ],
)
def test_ipv6_forms_carrying_private_ipv4_are_refused(address: str) -> None:
    from ctx_lab.read._addresses import blocked_reason, parse_ip

    assert blocked_reason(parse_ip(address)) is not None


def test_global_addresses_stay_reachable() -> None:
    from ctx_lab.read._addresses import blocked_reason, parse_ip

    for address in ("8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8"):
        assert blocked_reason(parse_ip(address)) is None, address


def test_a_refused_connection_says_so_not_the_deadline(tmp_path: Path) -> None:
    import socket

    from ctx_lab.errors import ReadError
    from ctx_lab.read import Reader

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # bound, never listening: connecting is refused
        reader = Reader([tmp_path], allow_private=True)
        with pytest.raises(ReadError, match="refused") as info:
            reader.read(f"http://127.0.0.1:{port}/x")
    assert "deadline" not in str(info.value)


# -- N15: CSV formula injection -----------------------------------------------------------------


def test_every_csv_escapes_cells_a_spreadsheet_would_run(tmp_path: Path) -> None:
    import csv
    import io

    from ctx_lab.display import csv_text
    from ctx_lab.packet import assemble_packet, load_context
    from ctx_lab.packet._entries import EntriesReport

    text = csv_text(
        ["a", "b"],
        [['=HYPERLINK("x")', 3], ["@SUM(1)", -2], ["+1", None], ["\tx", "-x"], ["plain", 1.5]],
    )
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[1:] == [
        ['\'=HYPERLINK("x")', "3"],
        ["'@SUM(1)", "-2"],
        ["'+1", ""],
        ["'\tx", "'-x"],
        ["plain", "1.5"],
    ]
    ctx_dir = tmp_path / ".context"
    ctx_dir.mkdir()
    (ctx_dir / "DECISIONS.md").write_text(
        '# Decisions\n\n## [2026-06-01] =HYPERLINK("http://evil","click")\n\nBody.\n'
    )
    report = EntriesReport(assemble_packet(load_context(tmp_path), 2000))
    assert "'=HYPERLINK" in report.to_csv() and "\n=HYPERLINK" not in report.to_csv()


# -- Dask: strict scheduler addresses, a run whose last worker died -----------------------------


@pytest.mark.parametrize(
    "address, message",
    [
        ("tcp://127.0.0.1:99999", "Port out of range"),
        ("tcp://127.0.0.1", "a host and a port"),
        ("tcp://:8786", "a host and a port"),
        ("tcp://u:p@host:8786", "only scheme://host:port"),
        ("tcp://host:8786/path?x=1", "only scheme://host:port"),
        ("http://host:8786", "Dask scheduler address"),
        ("tcp://host:port", "Port could not be cast"),
        ("tls://127.0.0.1:8786", "tls:// needs TLS certificates"),
        ("wss://127.0.0.1:8786", "wss:// needs TLS certificates"),
        ("ucx://127.0.0.1:8786", "ucx:// needs ucx-py"),
    ],
)
def test_scheduler_addresses_are_parsed_strictly(address: str, message: str, capsys) -> None:
    from ctx_lab.analysis._executors import scheduler_address
    from ctx_lab.errors import UsageError

    with pytest.raises(UsageError, match=re.escape(message.split(" ")[0])):
        scheduler_address(address)
    assert cli_main(["sweep", ".", "--budget", "100", "--scheduler", address]) == 2
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.slow
def test_a_dask_run_whose_workers_are_gone_stops_with_error_rows() -> None:
    import time

    distributed = pytest.importorskip("distributed")
    from ctx_lab.analysis._executors import runner

    cluster = distributed.LocalCluster(
        n_workers=1,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
    )
    client = distributed.Client(cluster)
    try:

        def slow(task):  # type: ignore[no-untyped-def]
            time.sleep(0.5)
            return [{"item": task, "value": 1}]

        rows: dict[int, list] = {}
        started = time.monotonic()
        with runner(client, None, no_worker_timeout=2) as run:
            for index, got in run.run(slow, ((f"i{n}", f"i{n}") for n in range(40))):
                rows[index] = got
                if len(rows) == 2:
                    cluster.scale(0)  # the last worker goes away mid-run
        assert time.monotonic() - started < 60
        assert len(rows) == 40
        failed = [r for r in rows.values() if r[0].get("error_type") == "NoWorkers"]
        assert failed and "no Dask worker for 2 s" in failed[0][0]["error"]
        assert sum(1 for r in rows.values() if r[0].get("value") == 1) >= 2
    finally:
        client.close()
        cluster.close()


def test_a_stopped_run_exits_non_zero(capsys) -> None:
    """The rows a run left when its last worker went away are a table, not the result: the
    CLI exits 1 (an item that failed on its own still exits 0)."""
    from ctx_lab.analysis import CorpusReport
    from ctx_lab.analysis._tasks import error_row
    from ctx_lab.errors import NoWorkers

    done = {"item": "a", "session": "a"}
    stopped = CorpusReport.of("replay-session", [done, error_row("b", NoWorkers("gone"))], 2, "")
    failed = CorpusReport.of("replay-session", [done, error_row("b", ValueError("bad"))], 2, "")
    assert stopped.stopped and stopped.exit_code == 1
    assert not failed.stopped and failed.exit_code == 0


# -- every cache bounded --------------------------------------------------------------------------


def test_caches_stay_bounded_after_a_thousand_distinct_packet_requests(monkeypatch) -> None:
    from datetime import UTC, datetime, timedelta

    from ctx_lab.examples import EXAMPLE_DIR
    from ctx_lab.packet import assembler_for, load_context
    from ctx_lab.tokens import CountingCache

    monkeypatch.setattr(CountingCache, "MAX_ENTRIES", 500)
    ctx = load_context(EXAMPLE_DIR)
    assembler = assembler_for(ctx, "bytes/4").assembler  # the shared one, under its counter
    assembler.counts = CountingCache("bytes/4")  # the patched bound, on the shared assembler
    start = datetime(2026, 6, 15, 12, tzinfo=UTC)
    for i in range(1000):  # a new second and budget each time: every rendered packet is new
        assembler.assemble(600 + i, start + timedelta(seconds=i))
    assert len(assembler.counts) <= 2 * 500
    caches = assembler.caches()
    assert len(caches) >= 10  # every cache of the engine, wherever it lives
    for name, value in caches.items():
        assert len(value) <= 1000, name  # by entries, tasks or keyword sets: not requests


# -- N3: globs confined before expansion, no name oracle, a file once -----------------------------


def test_globs_are_confined_before_expansion_and_leak_no_names(tmp_path: Path) -> None:
    from ctx_lab import commands
    from ctx_lab.errors import PathOutsideRoot

    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.py").write_text("x = 1\n")
    (root / "loop").symlink_to(".")
    (root / "bomb").mkdir()
    (root / "bomb" / "up").symlink_to("..")
    (root / "bomb" / "self").symlink_to("../bomb")
    for pattern in ("/etc/shado?", "/usr/**/zz", "../*", "~/.ssh/*", "bomb/../../*"):
        with pytest.raises(PathOutsideRoot) as info:
            commands.build("t", [pattern], root=root, budget=2000)
        assert "shadow" not in str(info.value) and "/etc/" not in str(info.value).replace(
            pattern, ""
        )
    result = commands.build("t", ["**/*.py", "loop/loop/a.py", "loop/a.py"], root=root, budget=2000)
    assert [b.path for b in result.blocks if b.source == "file"] == ["a.py"]
    deep = commands.build("t", ["bomb/**/zz"], root=root, budget=2000)
    assert not [b for b in deep.blocks if b.source == "file"]
