"""Round 3 of the attack on the surfaces that arrived since the last one: each finding of the
hardening issue (N1–N20) with the test that reproduces it."""

from __future__ import annotations

import re

import pytest

from ctx_lab.cli import main as cli_main

pytestmark = pytest.mark.hardening  # a theme of the hardening rounds


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
