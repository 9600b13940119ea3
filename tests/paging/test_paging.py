"""Paging: budgets, requests, the never-overshoot rule, stores and the line index."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctx_lab.errors import ArtifactNotFound, BudgetExhausted, InvalidPageRequest
from ctx_lab.paging import (
    DirectoryStore,
    LineIndex,
    MemoryStore,
    Pager,
    PageRequest,
    PagingBudget,
    ReaderStore,
    format_budget,
    format_page_result,
)
from ctx_lab.read import Reader

FIVE = "line1\nline2\nline3\nline4\nline5"


def pager(text: str = FIVE, **budget: int) -> Pager:
    return Pager(MemoryStore({"a": text}), PagingBudget(**budget))


def test_budget_defaults_and_accounting() -> None:
    b = PagingBudget()
    assert (b.max_pages, b.max_tokens, b.pages_used, b.tokens_used) == (10, 8000, 0, 0)
    assert b.can_page() and b.remaining() == (10, 8000)
    b.record(100)
    assert (b.pages_used, b.tokens_used, b.remaining()) == (1, 100, (9, 7900))
    assert PagingBudget(max_pages=1, pages_used=1).can_page() is False
    assert PagingBudget(max_tokens=5, tokens_used=5).can_page() is False
    assert PagingBudget.from_dict(b.to_dict()) == b
    assert json.loads(json.dumps(b.to_dict()))["tokens_remaining"] == 7900


def test_design_examples() -> None:
    p = pager()
    r = p.page(PageRequest("a", 2, 4))
    assert (r.content, r.lines) == ("line2\nline3\nline4", 3)
    r = p.page(PageRequest("a", 4, 99))
    assert (r.content, r.lines, r.end_line) == ("line4\nline5", 2, 5)
    one = pager(max_pages=1)
    one.page(PageRequest("a"))
    with pytest.raises(BudgetExhausted):
        one.page(PageRequest("a"))


def test_not_found_costs_nothing() -> None:
    p = pager()
    with pytest.raises(ArtifactNotFound):
        p.page(PageRequest("missing"))
    assert p.budget.pages_used == 0 and p.budget.tokens_used == 0


@pytest.mark.parametrize(("start", "end"), [(0, 3), (-1, 0), (5, 3)])
def test_invalid_requests_raise_value_error(start: int, end: int) -> None:
    with pytest.raises(ValueError):
        PageRequest("a", start, end)
    assert issubclass(InvalidPageRequest, ValueError)


def test_start_past_end_is_empty_and_free() -> None:
    p = pager()
    r = p.page(PageRequest("a", 9))
    assert (r.content, r.lines, r.tokens, r.total_lines) == ("", 0, 0, 5)
    assert p.budget.pages_used == 0


def test_trailing_newline_is_not_a_line() -> None:
    p = pager(FIVE + "\n")
    r = p.page(PageRequest("a"))
    assert r.total_lines == 5 and r.content == FIVE
    assert pager("").page(PageRequest("a")).total_lines == 0


def test_quota_never_overshot_longest_whole_lines() -> None:
    text = "\n".join(f"{i:04d}" for i in range(1, 101))  # 5 bytes per line with its newline
    p = Pager(MemoryStore({"a": text}), PagingBudget(max_tokens=20))
    r = p.page(PageRequest("a"))
    assert r.truncated and r.tokens <= 20 and r.next_start_line == r.end_line + 1
    assert r.content == "\n".join(f"{i:04d}" for i in range(1, r.end_line + 1))
    assert p.budget.tokens_used == r.tokens <= 20
    assert r.tokens == 20  # it used the quota up to the last whole line that fits
    with pytest.raises(BudgetExhausted, match="20 of 20 tokens"):
        p.page(PageRequest("a", r.next_start_line))
    assert p.budget.pages_used == 1


def test_not_even_one_line_fits_charges_nothing() -> None:
    p = Pager(MemoryStore({"a": "x" * 100 + "\nshort"}), PagingBudget(max_tokens=5))
    with pytest.raises(BudgetExhausted, match="line 1 alone"):
        p.page(PageRequest("a"))
    assert p.budget.pages_used == 0 and p.budget.tokens_used == 0


def test_untruncated_has_no_next_start_line() -> None:
    assert pager().page(PageRequest("a")).next_start_line is None


def test_index_built_once_and_rebuilt_on_change() -> None:
    store = MemoryStore({"a": FIVE})
    p = Pager(store, PagingBudget(max_pages=100))
    for start in (1, 2, 3, 4):
        p.page(PageRequest("a", start, start))
    assert p.index_builds == 1
    store.artifacts["a"] = FIVE + "\nline6"
    assert p.page(PageRequest("a", 6, 6)).content == "line6"
    assert p.index_builds == 2


def test_directory_store_refuses_escapes(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "f.txt").write_text("hello\n")
    (tmp_path / "secret.txt").write_text("secret\n")
    os.symlink(tmp_path / "secret.txt", root / "link.txt")
    store = DirectoryStore(root)
    assert store.get_content("sub/f.txt") == "hello\n"
    for bad in (
        "../secret.txt",
        str(tmp_path / "secret.txt"),
        "link.txt",
        "sub/../../secret.txt",
        "",
    ):
        with pytest.raises(ArtifactNotFound):
            store.get_content(bad)


def test_reader_store(tmp_path: Path) -> None:
    (tmp_path / "doc.md").write_text("# Title\n\nBody\n")
    p = Pager(ReaderStore(Reader([tmp_path])))
    assert p.page(PageRequest("doc.md", 3, 3)).content == "Body"
    with pytest.raises(ArtifactNotFound):
        p.page(PageRequest("nope.md"))


def test_formatting_and_json() -> None:
    p = pager()
    r = p.page(PageRequest("a", 2, 3))
    assert "lines 2-3 of 5" in format_page_result(r)
    assert "remaining" in format_budget(p.budget)
    data = json.loads(r.to_json())
    assert data["budget"]["pages_used"] == 1 and data["content"] == "line2\nline3"
    html = r.to_html()
    assert "data-ctx-lines" in html and "data-ctx-meter" in html


@given(st.text(alphabet="ab \n→", max_size=200), st.integers(1, 30), st.integers(0, 30))
def test_slices_match_splitlines(text: str, start: int, length: int) -> None:
    index = LineIndex.build(text)
    lines = text.split("\n")
    if text.endswith("\n"):
        lines = lines[:-1]
    if not text:
        lines = []
    assert index.total == len(lines)
    if start <= index.total:
        end = min(start + length, index.total)
        assert index.slice(start, end) == "\n".join(lines[start - 1 : end])


@given(st.lists(st.text(alphabet="abc→", max_size=12), min_size=1, max_size=40), st.integers(0, 60))
def test_quota_property(lines: list[str], max_tokens: int) -> None:
    p = Pager(
        MemoryStore({"a": "\n".join(lines)}), PagingBudget(max_pages=100, max_tokens=max_tokens)
    )
    start = 1
    while True:
        try:
            r = p.page(PageRequest("a", start))
        except BudgetExhausted:
            break
        assert p.budget.tokens_used <= max_tokens
        if not r.truncated:
            break
        start = r.next_start_line
    assert p.budget.tokens_used <= max_tokens
