"""PagerWidget and ReaderWidget without a browser: buttons drive pages and chunks."""

from __future__ import annotations

from pathlib import Path

from ctx_lab.notebook import PagerWidget, ReaderWidget
from ctx_lab.notebook._paging_widgets import meter_level
from ctx_lab.paging import MemoryStore, Pager, PagingBudget
from ctx_lab.read import Reader


def test_meter_levels() -> None:
    assert [meter_level(u, 100) for u in (0, 69, 70, 89, 90, 100)] == [
        "ok",
        "ok",
        "warn",
        "warn",
        "bad",
        "bad",
    ]


def test_pager_widget_pages_until_exhausted() -> None:
    text = "\n".join(f"line {i:03d}" for i in range(1, 101))
    pager = Pager(MemoryStore({"log": text}), PagingBudget(max_pages=3, max_tokens=10_000))
    w = PagerWidget(pager, "log", lines_per_page=10)
    assert w.result.start_line == 1 and w.result.end_line == 10 and w.previous.disabled
    w.next.click()
    assert w.result.start_line == 11 and pager.budget.pages_used == 2
    assert w.meter.bar_style == "success"
    w.jump_to.value = 50
    w.jump.click()
    assert w.result.start_line == 50 and pager.budget.pages_used == 3
    assert "exhausted" in w.status.value and w.next.disabled
    assert w.meter.bar_style == "danger"
    w.go(60)
    assert "exhausted" in w.status.value and pager.budget.pages_used == 3


def test_pager_widget_amber_then_red() -> None:
    text = "\n".join("x" * 40 for _ in range(100))
    pager = Pager(MemoryStore({"a": text}), PagingBudget(max_pages=100, max_tokens=100))
    w = PagerWidget(pager, "a", lines_per_page=7)  # ~72 tokens: amber
    assert w.meter.bar_style == "warning"
    w.next.click()  # cut short by the quota, then red
    assert w.result.truncated and w.meter.bar_style == "danger"


def test_reader_widget_next_previous(tmp_path: Path) -> None:
    (tmp_path / "t.txt").write_text("".join(f"row {i}\n" for i in range(300)))
    w = ReaderWidget("t.txt", Reader([tmp_path]), max_chars=200)
    first = w.chunks[0].content
    w.next.click()
    w.next.click()
    assert len(w.chunks) == 3 and w.index == 2 and w.chunks[2].cache_hit
    w.previous.click()
    assert w.index == 1
    w.previous.click()
    assert w.index == 0 and first in w.view.value and w.previous.disabled
    assert 0 < w.position.value < 1
