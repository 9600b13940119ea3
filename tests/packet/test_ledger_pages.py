"""A page of the ledger is made alone (issue 62): ``/entries?offset=…&limit=100`` of a
200,000-entry ``.context/`` built every row of the ledger per request (11.4 s a page); a page
now builds its own rows, equal to the same slice of the whole ledger."""

from __future__ import annotations

import random
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from ctx_lab.commands import entries
from ctx_lab.packet import assemble_packet, load_context

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench import workloads

NOW = datetime(2026, 12, 7, tzinfo=UTC)


@pytest.mark.parametrize("budget", [400, 3000, 20_000])
def test_a_page_is_the_same_slice_of_the_whole_ledger(tmp_path: Path, budget: int) -> None:
    workloads.context_dir(tmp_path, 700, 500, 40, areas=12)
    paged = assemble_packet(load_context(tmp_path / ".context"), budget, NOW)
    whole = tuple(assemble_packet(load_context(tmp_path / ".context"), budget, NOW).ledger_rows)
    assert len(paged.ledger_rows) == len(whole)  # counted without making a row
    chosen = random.Random(budget)
    for _ in range(40):
        start = chosen.randrange(len(whole) + 5)
        stop = start + chosen.choice([1, 7, 100, 2000])
        assert paged.ledger_rows[start:stop] == whole[start:stop], (start, stop)
    assert paged.ledger_rows._build is not None


def test_entries_pages_through_without_the_whole_ledger(tmp_path: Path) -> None:
    workloads.context_dir(tmp_path, 900, 900, 10)
    first = entries(str(tmp_path), now=NOW, offset=0, limit=100).to_dict()
    later = entries(str(tmp_path), now=NOW, offset=1500, limit=100)
    data = later.to_dict()
    assert data["rows_total"] == first["rows_total"] and len(data["rows"]) == 100
    assert later.packet.ledger_rows._build is not None
    everything = entries(str(tmp_path), now=NOW).to_dict()["rows"]
    assert data["rows"] == everything[1500:1600]
