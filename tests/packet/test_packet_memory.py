"""Memory proportional to the input: loading and assembling a generated 4.8 MB ``.context/``
(5k decisions, 5k learnings, 1k tasks) holds at most 5× the folder's bytes (it held 26×:
every entry's word list kept after the postings were built, per-keyword position tuples of int
objects, BM25 frequencies as dicts, entries whose cached properties unshared their dicts; then
7.7×: each entry's text beside the file's, entry blocks remembered by their text, per-entry
dicts of ages and keys). Measured with tracemalloc: allocations, not wall time."""

from __future__ import annotations

import sys
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path

import pytest
from paths import REPO

from ctx_lab.packet import assemble_packet, load_context

pytestmark = pytest.mark.slow


def test_a_context_is_held_in_at_most_five_times_its_size(tmp_path: Path) -> None:
    sys.path.insert(0, str(REPO))
    from bench import workloads

    workloads.context_dir(tmp_path, 5000, 5000, 1000)
    size = sum(p.stat().st_size for p in (tmp_path / ".context").rglob("*") if p.is_file())
    tracemalloc.start()
    try:
        context = load_context(tmp_path)
        packet = assemble_packet(context, 8000, datetime(2026, 6, 1, tzinfo=UTC))
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert packet.tokens_used <= 8000
    assert peak <= 5 * size, f"peak {peak / size:.1f}× the .context/ size"
    assert held <= 5 * size
