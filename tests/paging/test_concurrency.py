"""Many threads, one quota: the paging budget is never overshot, nothing is lost or crossed."""

from __future__ import annotations

import contextlib
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from ctx_lab.errors import BudgetExhausted
from ctx_lab.paging import BudgetTable, MemoryStore, Pager, PageRequest, PagingBudget
from ctx_lab.read import Reader

LINES = "".join(f"line {i}: " + "word " * 20 + "\n" for i in range(2000))


def _hammer(pager: Pager, threads: int = 8, calls: int = 40) -> list:
    barrier = threading.Barrier(threads)
    results: list = []
    lock = threading.Lock()

    def work(offset: int) -> None:
        barrier.wait()
        for i in range(calls):
            start = 1 + ((offset * calls + i) * 7) % 1900
            try:
                page = pager.page(PageRequest("log", start, start + 40))
            except BudgetExhausted:
                continue
            with lock:
                results.append(page)

    workers = [threading.Thread(target=work, args=(n,)) for n in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return results


def test_eight_threads_never_overshoot_one_budget() -> None:
    budget = PagingBudget(max_pages=1000, max_tokens=8000)
    results = _hammer(Pager(MemoryStore({"log": LINES}), budget))
    assert budget.tokens_used <= 8000
    assert budget.tokens_used == sum(r.tokens for r in results)
    assert budget.pages_used == len(results)


def test_eight_pagers_sharing_a_budget_never_overshoot() -> None:
    budget = PagingBudget(max_pages=60, max_tokens=50_000)
    store = MemoryStore({"log": LINES})
    barrier = threading.Barrier(8)
    spent = []

    def work() -> None:
        pager = Pager(store, budget)
        barrier.wait()
        for _ in range(20):
            with contextlib.suppress(BudgetExhausted):
                spent.append(pager.page(PageRequest("log", 1, 5)).tokens)

    with ThreadPoolExecutor(8) as pool:
        for _ in range(8):
            pool.submit(work)
    assert budget.pages_used == len(spent) == 60
    assert budget.tokens_used == sum(spent) <= 50_000


def test_the_budget_table_never_loses_a_budget_in_use() -> None:
    table = BudgetTable(limit=4)

    def churn(n: int) -> None:
        for i in range(300):
            budget = table.get(f"b{(n * 300 + i) % 9}", 5, 100)
            if budget.can_page():
                budget.record(0)
            try:
                table.find(f"b{i % 9}")
            except Exception as exc:  # only "not found" is allowed, never a KeyError
                assert type(exc).__name__ == "ArtifactNotFound"

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(churn, range(8)))
    assert len(table.budgets) <= 4


def test_eight_threads_on_one_reader(tmp_path: Path) -> None:
    for i in range(4):
        (tmp_path / f"{i}.txt").write_text(f"file {i} " * 2000)
    reader = Reader([tmp_path], cache_entries=2)

    def follow(i: int) -> str:
        name = f"{i % 4}.txt"
        chunks, cursor = [], None
        while True:
            result = reader.read(name, cursor, 700)
            assert not result.cursor_reset
            chunks.append(result.content)
            if not result.truncated:
                return "".join(chunks)
            cursor = result.next_cursor

    with ThreadPoolExecutor(8) as pool:
        texts = list(pool.map(follow, range(16)))
    for i, text in enumerate(texts):
        assert text == (tmp_path / f"{i % 4}.txt").read_text()


@pytest.mark.parametrize("threads", [8])
def test_a_budget_records_atomically(threads: int) -> None:
    budget = PagingBudget(max_pages=10**6, max_tokens=10**9)

    def charge() -> None:
        for _ in range(2000):
            budget.record(3)

    with ThreadPoolExecutor(threads) as pool:
        for _ in range(threads):
            pool.submit(charge)
    assert (budget.pages_used, budget.tokens_used) == (threads * 2000, threads * 6000)
