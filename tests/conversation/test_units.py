"""The incremental tool-unit index answers exactly as the whole-history definition does, as a
history grows, shrinks and is replaced."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from ctx_lab.conversation._messages import Message
from ctx_lab.conversation._units import UnitIndex


@dataclass
class Entry:
    message: Message


def reference(entries: list[Entry]) -> list[tuple[int, int]]:
    """Tool units by their definition, read from the whole history at once."""
    uses: dict[str, int] = {}
    answered: set[str] = set()
    spans: list[tuple[int, int]] = []
    last = len(entries) - 1
    for position, entry in enumerate(entries):
        m = entry.message
        if m.role == "tool_use" and m.call_id:
            uses[m.call_id] = position
            spans.append((position, position))
        elif m.role == "tool_result" and m.call_id in uses:
            answered.add(m.call_id)
            spans.append((uses[m.call_id], position))
    spans += [(start, last) for call, start in uses.items() if call not in answered]
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return [u for u in merged if u[1] > u[0]]


messages = st.one_of(
    st.builds(lambda c: Message.tool_use(f"c{c}", "t"), st.integers(0, 6)),
    st.builds(lambda c: Message.tool_result(f"c{c}", "r"), st.integers(0, 6)),
    st.just(Message.user("u")),
    st.just(Message.assistant("a")),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(messages, st.booleans()), max_size=60))
def test_the_index_matches_the_definition_as_the_history_grows(steps) -> None:  # type: ignore[no-untyped-def]
    entries: list[Entry] = []
    index = UnitIndex()
    for message, pop_first in steps:
        if pop_first and entries:
            entries.pop()
        entries.append(Entry(message))
        index.update([e.message for e in entries])
        expected = reference(entries)
        assert index.units() == expected
        holder = {i: u for u in expected for i in range(u[0], u[1] + 1)}
        for position in range(len(entries)):
            assert index.containing(position) == holder.get(position)
        users = [i for i, e in enumerate(entries) if e.message.role == "user"]
        assert index.newest_user == (users[-1] if users else None)
    fresh = [Entry(Message.user("new"))]
    index.update([e.message for e in fresh])  # another history altogether
    assert index.units() == [] and index.newest_user == 0


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(1, 6)), max_size=8))
def test_id_runs_read_as_the_sorted_ids(gaps_and_lengths) -> None:  # type: ignore[no-untyped-def]
    from ctx_lab.conversation._units import IdRuns

    runs, position = [], 0
    for gap, length in gaps_and_lengths:
        start = position + gap
        runs.append((start, start + length))
        position = start + length
    ids = [i for start, stop in runs for i in range(start, stop)]
    seq = IdRuns(runs)
    assert len(seq) == len(ids) and list(seq) == ids and seq == ids
    assert [seq[i] for i in range(len(ids))] == ids and seq[1:3] == ids[1:3]
    if ids:
        assert seq[-1] == ids[-1] and seq[0] == ids[0]
