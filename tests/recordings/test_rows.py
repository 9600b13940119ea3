"""A replay's rows are kept as columns (``RowTable``): what goes in comes out, value for value
and type for type, whatever mix of values a column meets; and a row costs far less than the
dict it was (300k rows for 100k calls on three models)."""

from __future__ import annotations

import pickle
import tracemalloc

from hypothesis import given
from hypothesis import strategies as st

from ctx_lab.recordings.replay._rows import RowTable

VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False),
    st.text(max_size=5),
)
KEYS = ("call", "model", "context_tokens", "cost_usd", "over_budget")


@given(st.lists(st.fixed_dictionaries({k: VALUES for k in KEYS}), max_size=30), st.data())
def test_rows_come_back_as_they_went_in(rows: list[dict[str, object]], data: st.DataObject) -> None:
    if rows and data.draw(st.booleans()):  # a row with other keys is kept whole
        rows.insert(data.draw(st.integers(0, len(rows))), {"call": 1, "other": "x"})
    table = RowTable(rows)
    assert len(table) == len(rows)
    assert list(table) == rows and table == rows
    for got, want in zip(table, rows, strict=True):
        assert [type(v) for v in got.values()] == [type(v) for v in want.values()]
    if rows:
        assert table[-1] == rows[-1] and table[1:3] == rows[1:3]
        for key in KEYS:
            assert list(table.column(key)) == [r.get(key) for r in rows]
    assert pickle.loads(pickle.dumps(table)) == rows


def test_a_row_holds_a_fraction_of_its_dict() -> None:
    def row(i: int) -> dict[str, object]:
        return {
            "call": i,
            "model": "gpt-4o",
            "context_tokens": 1000 + i,
            "budget": 120_000,
            "over_budget": False,
            "cost_usd": i * 1e-4,
            "reported_input": None,
            "event": "",
        } | {f"field_{k}": i * k for k in range(16)}

    tracemalloc.start()
    try:
        dicts = [row(i) for i in range(20_000)]
        as_dicts = tracemalloc.get_traced_memory()[0]
        del dicts
        base = tracemalloc.get_traced_memory()[0]
        table = RowTable(row(i) for i in range(20_000))
        as_table = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    assert len(table) == 20_000
    assert as_table * 4 < as_dicts, f"{as_table / 20_000:.0f} vs {as_dicts / 20_000:.0f} bytes"
