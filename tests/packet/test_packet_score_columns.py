"""A keyword set not seen before costs columns, not an object per entry: the budget slider
meets a new set each time its included tasks change, and making a score object for each of
10k entries (and sorting them through Python-level loops) held its p90 at 21 ms where the
target is 20. The scores read from the columns are the scores the rules define."""

from __future__ import annotations

import gc
import sys
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from paths import REPO

from ctx_lab.packet import PacketAssembler, load_context
from ctx_lab.packet._dated import Entry
from ctx_lab.packet._ranking import near_ties_rounded
from ctx_lab.packet._relevance import Relevance
from ctx_lab.packet._scoring import age_of, relevance_score, score_with
from ctx_lab.packet._side_scores import Locator

TODAY = date(2026, 6, 1)


@pytest.fixture(scope="module")
def relevance(tmp_path_factory: pytest.TempPathFactory) -> Relevance:
    sys.path.insert(0, str(REPO))
    from bench import workloads

    root = workloads.context_dir(tmp_path_factory.mktemp("ctx"), 1000, 1000, 50, areas=40)
    return PacketAssembler(load_context(root)).relevance


def tracked_objects_made(make: object) -> int:
    """How many objects the cyclic collector tracks after ``make()`` ran, beyond before."""
    gc.collect()
    gc.disable()
    try:
        before = gc.get_count()[0]
        kept = make()  # type: ignore[operator]
        after = gc.get_count()[0]
    finally:
        gc.enable()
    assert kept is not None
    return after - before


@pytest.mark.parametrize("rule", ["keywords", "bm25"])
def test_a_new_keyword_set_makes_no_object_per_entry(relevance: Relevance, rule: str) -> None:
    relevance.scores(("area1", "table"), TODAY, rule)  # postings, ages and BM25 built
    made = tracked_objects_made(lambda: relevance.scores(("area2", "table"), TODAY, rule))
    assert made < 100, f"{made} objects for 2,000 entries"


def test_columns_give_the_rules_scores(relevance: Relevance) -> None:
    keywords = ("area3", "table", "window")
    by_rule = {rule: relevance.scores(keywords, TODAY, rule) for rule in ("keywords", "bm25")}
    model = relevance.bm25()
    raw = model.sums(keywords)
    top = max(raw)
    position = 0
    for side, entries in relevance.sides:
        for e in entries:
            found = sum(
                1 for k in keywords if relevance.positions()[id(e)] in relevance.entries_matching(k)
            )
            expected = score_with(
                age_of(e, TODAY), (), e.superseded, relevance_score(min(found, 3))
            )
            assert by_rule["keywords"][side][e.key] == expected
            bm25 = score_with(age_of(e, TODAY), (), e.superseded, raw[position] / top)
            assert by_rule["bm25"][side][e.key] == bm25
            position += 1
        assert list(by_rule["bm25"][side]) == [e.key for e in entries]
        assert len(by_rule["keywords"][side]) == len(entries)


@given(
    st.lists(
        st.one_of(
            st.sampled_from([0.0, 0.2, 0.4, 0.7, 1.0, 1.0000004, 1.0000006, 0.9999996]),
            st.floats(0, 2, allow_nan=False),
        ),
        max_size=60,
    )
)
def test_near_ties_are_ranked_as_their_rounded_values(values: list[float]) -> None:
    order = sorted(range(len(values)), key=values.__getitem__, reverse=True)
    expected = sorted(range(len(values)), key=lambda p: (-round(values[p], 6), p))
    assert near_ties_rounded(order, values) == expected


def test_a_new_focus_leaves_no_long_list_for_the_collector(tmp_path: Path) -> None:
    """The collector walks every young list's items (a cache miss each on a large project:
    11 ms of a 105 ms focus change at 110k entries); the hot path keeps arrays instead."""
    sys.path.insert(0, str(REPO))
    from bench import workloads

    root = workloads.context_dir(tmp_path, 2500, 2500, 100)
    assembler = PacketAssembler(load_context(root))
    now = datetime(2026, 6, 1, tzinfo=UTC)
    assembler.assemble(4000, now, focus="alpha")
    gc.collect()
    gc.disable()
    try:
        packet = assembler.assemble(4000, now, focus="table window")
        young = [o for o in gc.get_objects(0) if isinstance(o, list | dict | tuple)]
        longest = max(map(len, young), default=0)
    finally:
        gc.enable()
    assert packet.counted, "the budget counts most entries in one line"
    assert longest < 500, f"a young container of {longest} items"


def test_entries_are_slices_of_their_files_text(tmp_path: Path) -> None:
    """An entry's text is its file's text from ``start`` to ``end`` — held once, in the
    file — unless a comment touched its lines (then it keeps its own, comment removed)."""
    text = (
        "# Decisions\n\n<!-- how to write one:\n## [2026-01-01-000000] Inside the comment\n-->\n"
        "## [2026-02-01-000000] First <!-- aside --> title\n\nBody one.\n\n---\n\n"
        "## [2026-03-01-000000] Second\n\nBody two.\n"
    )
    (tmp_path / ".context").mkdir()
    (tmp_path / ".context" / "DECISIONS.md").write_text(text)
    ctx = load_context(tmp_path, cached=False)
    by_title = {e.title.strip(): e for e in ctx.decisions}
    second = by_title["Second"]
    assert second.text == "## [2026-03-01-000000] Second\n\nBody two."
    assert second.base is ctx.texts[second.source] and second.end > 0
    first = next(e for e in ctx.decisions if e.title.startswith("First"))
    assert first.end == -1 and "aside" not in first.text and first.body == "Body one."
    inside = by_title["Inside the comment"]
    assert inside.in_comment and inside.text == "## [2026-01-01-000000] Inside the comment"


def test_locator_finds_every_key_however_the_side_is_laid_out() -> None:
    ctx_entries = [
        Entry("decision", f"t{i}", "", None, f"text {i}", 0, line, i, source=source)
        for i, (source, line) in enumerate(
            [("a.md", 3), ("a.md", 9), ("b.md", 1), ("b.md", 4), ("c.md", 2)]
        )
    ]
    shuffled = [ctx_entries[3], ctx_entries[0], ctx_entries[4], ctx_entries[1]]
    for entries in (ctx_entries, shuffled):
        at = Locator(entries)
        for i, e in enumerate(entries):
            assert at.get(e.key) == i
        assert at.get(("a.md", 4)) is None and at.get(("z.md", 3)) is None
