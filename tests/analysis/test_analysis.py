"""Corpus analyses: the same sweep and replay on a plain loop, a local process pool and a Dask
LocalCluster (127.0.0.1, two worker processes) give equal tables; failing items are error rows;
counters travel by name; the CLI writes Parquet and CSV."""

from __future__ import annotations

import concurrent.futures as cf
import json

import pandas as pd
import pytest

from ctx_lab.analysis import (
    REPLAY_CALL_COLUMNS,
    REPLAY_SESSION_COLUMNS,
    SWEEP_COLUMNS,
    replay_corpus,
    sweep_corpus,
)
from ctx_lab.cli import main
from ctx_lab.commands import invoke
from ctx_lab.errors import UsageError
from ctx_lab.examples.corpus import CORPUS_NOW, make_corpus

pytestmark = pytest.mark.slow

SWEEP_KEY = ["item", "budget", "model", "section"]
REPLAY_KEY = ["item", "budget", "model"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("corpus")
    made = make_corpus(root, projects=14, sessions=8, seed=3)
    broken = root / "sessions" / "broken.jsonl"
    broken.write_text('{"request": {"model": "gpt-4o", "messages": [\n')
    projects = [str(p) for p in made.projects] + [str(root / "no-such-project")]
    sessions = [str(p) for p in made.sessions] + [str(broken)]
    return projects, sessions


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
    )
    made = distributed.Client(cluster)
    yield made
    made.close()
    cluster.close()


def ordered(frame: pd.DataFrame, key: list[str]) -> pd.DataFrame:
    return frame.sort_values(key, kind="stable", na_position="first").reset_index(drop=True)


def sweep(projects: list[str], **options) -> pd.DataFrame:
    return sweep_corpus(
        projects, [2000, 8000], ["gpt-4o", "claude-sonnet-4-5"], now=CORPUS_NOW,
        progress=False, **options,
    )  # fmt: skip


def test_sweep_is_the_same_on_a_process_pool_and_on_dask(corpus, client) -> None:
    projects, _ = corpus
    pool = sweep(projects, workers=2)
    dask = sweep(projects, executor=client)
    assert list(pool.columns) == list(SWEEP_COLUMNS)
    pd.testing.assert_frame_equal(ordered(pool, SWEEP_KEY), ordered(dask, SWEEP_KEY))
    # and in the order the items were given, whichever finished first
    assert list(dict.fromkeys(pool["item"])) == projects
    pd.testing.assert_frame_equal(pool, dask)
    # the failing items are error rows, the others full results
    failed = pool[pool["error_type"].notna()]
    assert set(failed["item"]) == {projects[-1]}
    assert failed["error_type"].eq("ContextNotFound").all()
    assert failed["budget"].isna().all() and failed["section"].isna().all()
    ok = pool[pool["error_type"].isna()]
    assert ok.groupby("item").size().eq(2 * 2 * 5).all()  # budgets × models × sections
    assert (ok["packet_tokens"] <= ok["budget_tokens"]).all()
    claude = {c for c in ok["counter"] if c != "o200k"}  # the built-in Claude estimate
    assert len(claude) == 1 and claude.pop().startswith("bytes/4*{")


def test_sweep_inline_and_by_bytes_match_the_pool(corpus) -> None:
    projects, _ = corpus
    inline = sweep(projects[:5], executor="inline")
    shipped = sweep(projects[:5], workers=2, ship="bytes")
    pd.testing.assert_frame_equal(inline, shipped)
    # one item is the same as the packet command's for the same arguments
    from ctx_lab import commands

    packet = commands.packet(projects[0], budget=8000, counter="o200k", now=CORPUS_NOW)
    row = inline[(inline["item"] == projects[0]) & (inline["budget"] == 8000)]
    assert row[row["model"] == "gpt-4o"]["packet_tokens"].iloc[0] == packet.tokens_used


def test_replay_is_the_same_on_a_process_pool_and_on_dask(corpus, client) -> None:
    _, sessions = corpus
    models = ["gpt-4o", "claude-sonnet-4-5"]
    pool = replay_corpus(sessions, models, workers=2, progress=False)
    dask = replay_corpus(sessions, models, executor=client, progress=False)
    assert list(pool.columns) == list(REPLAY_SESSION_COLUMNS)
    pd.testing.assert_frame_equal(ordered(pool, REPLAY_KEY), ordered(dask, REPLAY_KEY))
    broken = pool[pool["item"] == sessions[-1]]
    assert len(broken) == 1 and broken["error_type"].iloc[0] == "TranscriptError"
    ok = pool[pool["error_type"].isna()]
    assert len(ok) == 2 * (len(sessions) - 1)
    # a session's row agrees with the one-file replay of the same session
    from ctx_lab import commands

    one = commands.replay(sessions[0], model=["gpt-4o"]).summary()[0]
    mine = ok[(ok["item"] == sessions[0]) & (ok["model"] == "gpt-4o")].iloc[0]
    assert mine["peak_context"] == one["peak_context"]
    assert mine["cost_usd"] == pytest.approx(one["cost_usd"])


def test_replay_per_call_on_dask_matches_inline(corpus, client) -> None:
    _, sessions = corpus
    inline = replay_corpus(sessions[:3], "gpt-4.1", per="call", executor="inline")
    dask = replay_corpus(sessions[:3], "gpt-4.1", per="call", executor=client)
    assert list(inline.columns) == list(REPLAY_CALL_COLUMNS)
    pd.testing.assert_frame_equal(inline, dask)
    assert (
        inline.groupby("item")["call"].apply(lambda c: list(c) == list(range(1, len(c) + 1))).all()
    )


def test_as_dask_keeps_one_partition_per_item_on_the_cluster(corpus, client) -> None:
    projects, sessions = corpus
    lazy = sweep(projects, executor=client, as_dask=True)
    assert lazy.npartitions == len(projects)
    pd.testing.assert_frame_equal(
        ordered(lazy.compute(), SWEEP_KEY),
        ordered(sweep(projects, executor="inline"), SWEEP_KEY),
        check_dtype=False,
    )
    sessions_lazy = replay_corpus(sessions, ["gpt-4o"], executor=client, as_dask=True)
    frame = sessions_lazy.compute()
    assert len(frame) == len(sessions) and frame["error_type"].notna().sum() == 1
    with pytest.raises(UsageError, match="as_dask"):
        sweep(projects, as_dask=True)


def test_an_in_process_counter_cannot_travel(corpus) -> None:
    projects, _ = corpus

    def words(text: str) -> int:
        return len(text.split())

    with pytest.raises(UsageError, match="entry point"):
        sweep_corpus(projects[:2], [2000], counter=words, workers=1, progress=False)
    # here, or on threads of this process, it counts
    inline = sweep_corpus(projects[:2], [2000], counter=words, executor="inline", progress=False)
    with cf.ThreadPoolExecutor(2) as threads:
        threaded = sweep_corpus(projects[:2], [2000], counter=words, executor=threads)
    pd.testing.assert_frame_equal(inline, threaded)
    assert set(inline["counter"].dropna()) == {"words"}


def test_a_calibration_travels_as_a_counter_name(corpus, client, tmp_path, monkeypatch) -> None:
    from ctx_lab.tokens import Calibration, save_calibration

    projects, _ = corpus
    monkeypatch.setenv("CTX_LAB_CONFIG_DIR", str(tmp_path))
    calibration = Calibration(
        model="claude-sonnet-4-5", base="bytes/4", ratio=1.3, low=1.2, high=1.4, calls=40
    )
    save_calibration(calibration)
    # the workers started before this configuration existed: the name carries it
    frame = sweep_corpus(projects[:3], [4000], ["claude-sonnet-4-5"], executor=client)
    assert set(frame["counter"].dropna()) == {"bytes/4*1.4"}  # a budget: the upper edge
    assert not frame["exact"].dropna().any()


def test_a_dead_worker_fails_its_item_only(corpus) -> None:
    projects, _ = corpus

    class Flaky(cf.ThreadPoolExecutor):
        def submit(self, fn, task, /):
            if task.item == projects[1]:
                future: cf.Future = cf.Future()
                future.set_exception(cf.process.BrokenProcessPool("worker killed"))
                return future
            return super().submit(fn, task)

    with Flaky(2) as flaky:
        frame = sweep_corpus(projects[:3], [2000], executor=flaky, now=CORPUS_NOW)
    failed = frame[frame["error_type"].notna()]
    assert list(failed["item"]) == [projects[1]]
    assert failed["error_type"].iloc[0] == "BrokenProcessPool"
    assert set(frame["item"]) == set(projects[:3])


def test_usage_errors_come_before_any_work(corpus) -> None:
    projects, sessions = corpus
    with pytest.raises(UsageError, match="budgets, models"):
        sweep_corpus(projects, [])
    with pytest.raises(UsageError, match="models"):
        replay_corpus(sessions, [])
    with pytest.raises(UsageError, match="empty"):
        sweep_corpus([], [2000])
    with pytest.raises(UsageError, match="executor"):
        sweep_corpus(projects, [2000], executor="threads please")


def test_cli_sweep_writes_parquet_and_csv(corpus, tmp_path, capsys) -> None:
    projects, _ = corpus
    args = ["sweep", *projects[:6], "--budget", "4000", "--model", "gpt-4o"]
    args += ["--now", "2026-11-02T12:00:00Z", "--no-progress"]
    assert main([*args, "--workers", "2", "-o", str(tmp_path / "s.parquet")]) == 0
    assert main([*args, "--workers", "2", "-o", str(tmp_path / "s.csv")]) == 0
    parquet = pd.read_parquet(tmp_path / "s.parquet")
    expected = sweep_corpus(projects[:6], [4000], ["gpt-4o"], now=CORPUS_NOW, executor="inline")
    pd.testing.assert_frame_equal(parquet, expected, check_dtype=False)
    csv = pd.read_csv(tmp_path / "s.csv")
    assert len(csv) == len(expected) and list(csv.columns) == list(SWEEP_COLUMNS)
    assert main([*args, "--workers", "0"]) == 0
    table = capsys.readouterr().out
    assert "sweep: 6 items (0 failed)" in table and "gpt-4o" in table


def test_cli_replay_of_many_files_and_of_one(corpus, capsys) -> None:
    _, sessions = corpus
    assert (
        main(["replay", *sessions, "--model", "gpt-4o", "--workers", "0", "--format", "json"]) == 0
    )
    payload = json.loads(capsys.readouterr().out)
    assert payload["kind"] == "replay-session" and payload["items"] == len(sessions)
    assert [f["item"] for f in payload["failures"]] == [sessions[-1]]
    # one file stays the one-session report
    one = invoke(["replay", sessions[0], "--model", "gpt-4o"]).result
    assert one.payload_kind == "replay"
    assert main(["replay", *sessions[:2], "--workers", "1", "--scheduler", "tcp://x:1"]) == 2


def test_cli_sweep_on_a_scheduler(corpus, client, capsys) -> None:
    projects, _ = corpus
    address = client.scheduler.address
    argv = ["sweep", *projects[:4], "--budget", "3000", "--scheduler", address, "--format", "csv"]
    assert main([*argv, "--now", "2026-11-02T12:00:00Z", "--no-progress"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0].startswith("item,budget,model") and len(rows) == 1 + 4 * 5


def test_shipped_bytes_keep_the_folder_warnings(tmp_path) -> None:
    """A project whose .context/ holds a folder ctx's layout does not read: the copy sent with
    ``ship="bytes"`` carries the folder's file names, so its rows (warnings included) equal the
    inline run's."""
    import shutil

    from ctx_lab.examples import EXAMPLE_DIR

    project = tmp_path / "proj"
    shutil.copytree(EXAMPLE_DIR / ".context", project / ".context")
    notes = project / ".context" / "sessions"
    notes.mkdir()
    for i in range(3):
        (notes / f"2026-06-0{i + 1}.md").write_text(f"# Session {i}\n")
    (project / "AGENTS.md").write_text("# Agents\n")  # another agent's memory beside it: named
    inline = sweep([str(project)], executor="inline")
    shipped = sweep([str(project)], executor="inline", ship="bytes")
    assert inline["warnings"].iloc[0] >= 2
    pd.testing.assert_frame_equal(inline, shipped)


def test_policies_are_the_same_inline_and_on_dask(corpus, client) -> None:
    """Policies over a corpus: one row per session and policy, the same table inline and on a
    Dask cluster; a broken session is an error row; a row agrees with the one-file run."""
    from ctx_lab.analysis import POLICIES_COLUMNS, policies_corpus

    _, sessions = corpus
    chosen = ["recorded", "observation-masking", "summary:threshold=2000"]
    inline = policies_corpus(sessions, policies=chosen, executor="inline")
    dask = policies_corpus(sessions, policies=chosen, executor=client)
    assert list(inline.columns) == list(POLICIES_COLUMNS)
    key = ["item", "policy"]
    pd.testing.assert_frame_equal(ordered(inline, key), ordered(dask, key))
    ok = inline[inline["error_type"].isna()]
    assert len(ok) == 3 * (len(sessions) - 1)
    assert inline[inline["item"] == sessions[-1]]["error_type"].iloc[0] == "TranscriptError"
    from ctx_lab import commands

    one = commands.policies(sessions[0], policy=chosen)
    mine = ok[(ok["item"] == sessions[0]) & (ok["policy"] == "summary")].iloc[0]
    assert mine["peak"] == one.policy("summary").peak
    assert mine["probes_lost"] == one.policy("summary").probes.lost


def test_a_progress_bar_is_drawn_on_a_terminal_or_in_a_notebook_only(monkeypatch) -> None:
    """Never redrawn into a pipe or a log (``2>&1``), where its lines are noise."""
    import io
    import sys

    from ctx_lab.analysis._executors import shows

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.delitem(sys.modules, "ipykernel", raising=False)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert not shows(True)
    monkeypatch.setattr(sys, "stderr", Terminal())
    assert shows(True) and not shows(False)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    monkeypatch.setitem(sys.modules, "ipykernel", sys)
    assert shows(True)


# the sweep of issue 65's "Done when": 12 settings, the recording beside them
TWELVE = [
    "observation-masking:keep=0|3,batch=1|10|30,breakpoint=true",
    "claude-code:pct=50..90/10",
    "observation-masking",
]


def test_a_sweep_over_the_real_sessions_is_the_same_inline_and_on_dask(client) -> None:
    """12 settings over every shared session that reports usage: one row per session and
    setting, equal tables inline and on a LocalCluster, and the same settings, front and
    recommendation from either table as from the one-file runs' rows."""
    from shared_recordings import with_usage

    from ctx_lab.analysis import run_policies_corpus
    from ctx_lab.analysis._corpus import PoliciesOptions, RunOptions
    from ctx_lab.recordings import decide, decision_row, run_policies
    from ctx_lab.recordings.transcripts import load_transcript

    sessions = [str(p) for p in with_usage()]
    if not sessions:
        pytest.skip("../shared/real-data is not here")
    options = PoliciesOptions(tuple(TWELVE))
    inline = run_policies_corpus(sessions, options, RunOptions(executor="inline", progress=False))
    dask = run_policies_corpus(sessions, options, RunOptions(executor=client, progress=False))
    key = lambda r: (r["item"], r["setting"])  # noqa: E731
    assert sorted(inline.rows, key=key) == sorted(dask.rows, key=key)
    assert len(inline.rows) == 13 * len(sessions) and not inline.failures
    assert len({r["setting"] for r in inline.rows}) == 13
    assert inline.decision() == dask.decision()
    one = [
        decision_row(path, r.agent, p, r.baseline_cost)
        for path in sessions
        for r in [run_policies(load_transcript(path), TWELVE, source=path)]
        for p in r.policies
    ]
    assert decide(one) == inline.decision()
    data = inline.to_dict()
    assert data["recommended"]["label"] == inline.decision()[1].label
    assert sum(s["on_front"] for s in data["settings"]) >= 1


def test_a_report_decides_once_whatever_forms_it_is_shown_in(monkeypatch) -> None:
    """The recommendation's bootstrap runs once a report: its JSON, text, front and plot all
    show the one decision."""
    import ctx_lab.recordings as recordings
    from ctx_lab.analysis import CorpusReport

    made: list[int] = []
    decide = recordings.decide
    monkeypatch.setattr(recordings, "decide", lambda rows: made.append(1) or decide(rows))
    report = CorpusReport.of("policies", [], 0, "")
    report.to_dict()
    report.to_text()
    assert report.decision() == report.decision()
    assert made == [1]
