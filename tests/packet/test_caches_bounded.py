"""Round 3 of the attack on the surfaces that arrived since the last one: each finding of the
hardening issue (N1–N20) with the test that reproduces it."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.hardening  # a theme of the hardening rounds


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
