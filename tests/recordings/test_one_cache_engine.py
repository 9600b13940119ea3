"""One cache engine behind every command: on every shared recording with usage, ``cache``,
``anatomy``, ``check`` and ``policies`` number the calls from 1 and give the same prediction
and the same cause for every call; the engine's vocabulary is the only one; and the two
readings of which entries a request can find are both run."""

from __future__ import annotations

import pytest
from paths import SHARED
from shared_recordings import with_usage

from ctx_lab.anatomy import anatomy_of
from ctx_lab.check import check_files
from ctx_lab.recordings import CACHE_CAUSES, CacheEngine, CacheRequest, run_policies, simulate_cache
from ctx_lab.recordings.transcripts import load_transcript

REAL = SHARED / "real-data" / "transcripts"
WITH_USAGE = with_usage()


@pytest.mark.skipif(not WITH_USAGE, reason="../shared/real-data is not beside the checkout")
@pytest.mark.parametrize("path", WITH_USAGE, ids=lambda p: p.name[:16])
def test_every_command_gives_the_engines_prediction_and_cause(path) -> None:
    transcript = load_transcript(path)
    cache = simulate_cache(transcript)
    by_call = {c.call: c for c in cache.calls}
    assert sorted(by_call) == [c.index + 1 for c in transcript.calls if c.usage is not None]
    # anatomy: each row's engine columns are cache's call of the same number
    anatomy = anatomy_of(path, session=True, replay=False)
    for row in anatomy.rows():
        mine = by_call.get(row["call"])
        if mine is None:
            assert row["cache_cause"] is None
            continue
        assert (row["cache_read_predicted"], row["cache_write_predicted"]) == (
            mine.cache_read,
            mine.cache_write,
        ), (path.name, row["call"])
        assert (row["cache_cause"], row["cache_reason"]) == (mine.miss_cause, mine.miss_reason)
    # policies: the recorded policy's causes, call by call
    recorded = run_policies(transcript, ["recorded"]).policy("recorded")
    for call in recorded.calls:
        if call.call in by_call:
            assert call.miss_cause == by_call[call.call].miss_cause, (path.name, call.call)
    # check: a cache-miss finding names the engine's cause for its call
    for finding in check_files([path]).findings:
        if finding.code == "CTX107":
            engine = by_call[finding.call]
            assert engine.miss_cause and engine.miss_cause in finding.message, finding.message


def test_the_engine_speaks_one_vocabulary() -> None:
    from ctx_lab.recordings import CacheReport

    schema = CacheReport.payload_schema()
    cause = schema["properties"]["calls"]["items"]["properties"]["miss_cause"]
    assert tuple(c for c in cause["enum"] if c is not None) == CACHE_CAUSES
    assert "unexplained" not in CACHE_CAUSES and "hidden prefix changed" not in CACHE_CAUSES


def _step(engine: CacheEngine, number: int, total: int, stable: int | None, blocks: int):
    return engine.step(
        CacheRequest(
            number, "claude-sonnet-4-5", 60.0 * number, total, 0, stable, blocks, (20_000,)
        )
    )


def test_the_two_readings_differ_on_an_edit_far_back() -> None:
    """An edit 30 blocks before the end: under "breakpoints" the request finds only the
    entry at the system prompt's breakpoint (Anthropic's 20-block lookback), under "prefix"
    everything before the edit."""
    found = {}
    for reading in ("breakpoints", "prefix"):
        engine = CacheEngine(reading)
        _step(engine, 1, 50_000, None, 40)
        _step(engine, 2, 52_000, None, 42)  # append-only: reads call 1's entry whole
        third = _step(engine, 3, 54_000, 30_000, 44)  # a block edited 30 blocks back
        found[reading] = third
    assert found["breakpoints"].read == 20_000  # the system prompt's entry
    assert found["breakpoints"].cause == "beyond the lookback"
    assert found["prefix"].read == 30_000  # the shared prefix, wherever it ends


def test_several_entries_live_at_once_and_a_hit_refreshes_one() -> None:
    engine = CacheEngine()
    for number, (total, read) in enumerate(((30_000, 0), (31_000, 30_000), (32_000, 0)), 1):
        engine.step(
            CacheRequest(
                number,
                "claude-sonnet-4-5",
                10.0 * number,
                total,
                0,
                reported=(0, read, total - read),
            )
        )
    # call 4 reads call 2's entry (31,000), not the latest (32,000): named, not "unexplained"
    fourth = engine.step(
        CacheRequest(4, "claude-sonnet-4-5", 40.0, 33_000, 0, reported=(0, 31_000, 2_000))
    )
    assert fourth.read == 32_000 and fourth.cause == "several entries"
    assert "call 2" in fourth.reason
