"""Reading in the lab as a person does: %ctx read followed chunk by chunk from notebook cells,
and the pager at its edges (go to past the end, reader End and go-to-page, agent mode for a
document without a quota, disabled buttons, long lines). Screenshots go to test-artifacts/."""

from __future__ import annotations

import pytest
from labtools import ARTIFACTS, Lab, info_is, open_lab, open_pager, run_all

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_a_read_followed_to_its_last_chunk_from_notebook_cells(page, lab: Lab) -> None:
    """From a notebook in a subfolder: the path is taken from the kernel's folder, --root
    widens the confinement, and each next chunk is the line the previous output shows."""
    first = "%ctx read ../../files/medium.txt --root ../.. --max-chars 2000"
    follow = f"{first} --cursor @last"  # the line each output shows
    lab.notebook("work/notes/read.ipynb", ["%load_ext ctx_lab", first, follow, follow])
    open_lab(page, lab, "work/notes/read.ipynb")
    run_all(page, "[data-ctx-kind='read']", count=3)
    outputs = page.locator("[data-ctx-kind='read']")
    heads = [outputs.nth(i).locator("[data-ctx-read]").inner_text() for i in range(3)]
    assert "chunk 1 of 3" in heads[0] and "chunk 2 of 3" in heads[1] and "chunk 3 of 3" in heads[2]
    for i in range(2):
        nxt = outputs.nth(i).locator("[data-ctx-read-next]")
        # the line to run next, with a copy button, and the cursor it continues from
        assert nxt.locator("[data-ctx-next-line]").inner_text() == (
            "%ctx read ../../files/medium.txt --root ../.. --max-chars 2000 --cursor @last"
        )
        assert nxt.locator("button.ctx-copy").count() == 1
        assert len(nxt.locator("[data-ctx-cursor]").inner_text()) > 10
    assert outputs.nth(2).locator("[data-ctx-read-next]").count() == 0
    assert "end" in heads[2]
    text = "".join(outputs.nth(i).locator("pre").inner_text() for i in range(3))
    assert "medium line 001" in text and "medium line 120" in text
    assert text.count("medium line 060") == 1  # each line once: no restart, no overlap
    assert page.locator("[data-ctx-cursor-reset]").count() == 0
    outputs.nth(2).screenshot(path=str(ARTIFACTS / "read-last-chunk.png"))


def test_go_to_past_the_end_and_to_zero_clamp_with_a_message(page, lab: Lab) -> None:
    pager = open_pager(page, lab, "files", "big.log")
    info_is(page, "lines 1–40 of 6,000")
    goto = pager.locator("[data-ctx-pager-goto]")
    goto.fill("99999")
    goto.press("Enter")
    info_is(page, "lines 5961–6000 of 6,000")
    notice = pager.locator("[data-ctx-pager-notice]")
    assert "99,999 is past the end (6,000 lines)" in notice.inner_text()
    assert "line 6000 of the big log" in pager.locator("[data-ctx-lines]").inner_text()
    assert pager.locator("[data-ctx-pager-next]").is_disabled()
    # a disabled button looks disabled
    opacity = pager.locator("[data-ctx-pager-next]").evaluate("e => getComputedStyle(e).opacity")
    assert float(opacity) < 0.6
    pager.screenshot(path=str(ARTIFACTS / "pager-goto-past-end.png"))
    goto.fill("0")
    goto.press("Enter")
    info_is(page, "lines 1–40 of 6,000")
    assert "lines start at 1" in notice.inner_text()
    goto.fill("300")
    goto.press("Enter")
    info_is(page, "lines 300–339")
    assert not notice.is_visible()


def test_reader_shows_pages_and_goes_to_the_end_and_to_a_page(page, lab: Lab) -> None:
    pager = open_pager(page, lab, "files", "manual.pdf")
    info_is(page, "pages 1–3 of 17")
    assert "{" not in pager.locator("[data-ctx-pager-info]").inner_text()  # no raw JSON
    assert pager.locator("[data-ctx-pager-prev]").is_disabled()
    pager.locator("[data-ctx-pager-body]").focus()
    started = page.evaluate("() => performance.now()")
    page.keyboard.press("End")
    info_is(page, "of 17 · the end")
    assert page.evaluate("() => performance.now()") - started < 3000
    assert "Manual page 17." in pager.locator("[data-ctx-pager-chunk]").inner_text()
    assert pager.locator("[data-ctx-pager-next]").is_disabled()
    goto = pager.locator("[data-ctx-pager-goto]")
    assert goto.get_attribute("placeholder") == "page"
    goto.fill("9")
    goto.press("Enter")
    info_is(page, "pages 9–")
    assert (
        pager.locator("[data-ctx-pager-chunk]").inner_text().lstrip().startswith("[page 9 of 17]")
    )
    pager.locator("[data-ctx-pager-next]").click()  # on by the cursor
    page.wait_for_function(
        "() => !/pages 9–/.test(document.querySelector('[data-ctx-pager-info]').textContent)"
    )
    pager.locator("[data-ctx-pager-prev]").click()  # back to where the jump landed
    info_is(page, "pages 9–")
    pager.locator("[data-ctx-pager-prev]").click()  # before the jump: the page before
    info_is(page, "pages 8–")
    goto.fill("40")
    goto.press("Enter")
    info_is(page, "page 17 of 17")
    assert (
        "page 40 is past the end (17 pages)"
        in pager.locator("[data-ctx-pager-notice]").inner_text()
    )
    pager.screenshot(path=str(ARTIFACTS / "pager-reader-goto.png"))


def test_agent_mode_for_a_reader_document_shows_the_chunk_limit(page, lab: Lab) -> None:
    pager = open_pager(page, lab, "files", "manual.pdf")
    info_is(page, "pages 1–3 of 17")
    pager.locator("[data-ctx-pager-mode]").select_option("agent")
    limit = pager.locator("[data-ctx-pager-reader-limit]")
    limit.wait_for()
    assert "no paging quota" in limit.inner_text() and "8,000 characters" in limit.inner_text()
    assert pager.locator("[data-ctx-pager-quota]").get_attribute("data-ctx-binding") == "chunk"
    assert not pager.locator("[data-ctx-pager-reset]").is_visible()
    assert not pager.locator("[data-ctx-pager-raise]").is_visible()
    pager.screenshot(path=str(ARTIFACTS / "pager-reader-agent.png"))


def test_html_reader_counts_chunks_and_long_lines_wrap(page, lab: Lab) -> None:
    pager = open_pager(page, lab, "files", "wide.log")
    info_is(page, "lines 1–3 of 3")
    body = pager.locator("[data-ctx-pager-body]")
    # the 600-word line wraps inside the view instead of running past its right edge
    assert body.evaluate("e => e.scrollWidth <= e.clientWidth + 1")
    assert "word599" in body.inner_text()
    rows = pager.locator("[data-ctx-lines] tr")
    assert rows.nth(1).evaluate("e => e.getBoundingClientRect().height") > 40
    pager.screenshot(path=str(ARTIFACTS / "pager-long-lines.png"))


def test_widget_tables_are_single_spaced_and_keep_their_reasons(page, lab: Lab) -> None:
    """ipywidgets' HTML sets a 28 px line height: the explorer's ledger and the PagerWidget's
    lines read single-spaced, titles without Markdown marks, reasons wrapped, not clipped."""
    from ctx_lab.examples import BUSY_DIR

    lab.notebook(
        "widgets.ipynb",
        [
            "from ctx_lab.examples import EXAMPLE_DIR, EXAMPLE_NOW\n"
            "from ctx_lab.packet import load_context\n"
            "from ctx_lab.notebook import BudgetExplorer, PagerWidget\n"
            "from ctx_lab.paging import DirectoryStore, Pager, PagingBudget",
            f"BudgetExplorer(load_context({str(BUSY_DIR)!r}), budget=3000, now=EXAMPLE_NOW)",
            "PagerWidget(Pager(DirectoryStore('files'), PagingBudget(max_pages=8, "
            "max_tokens=1500)), 'big.log', lines_per_page=10)",
        ],
    )
    open_lab(page, lab, "widgets.ipynb")
    run_all(page, "[data-ctx-page]")
    ledger = page.locator("table.ctx-ledger[data-ctx-ledger]")
    ledger.scroll_into_view_if_needed()
    heights = ledger.locator("tbody tr").evaluate_all(
        "rows => rows.map(r => r.getBoundingClientRect().height)"
    )
    assert min(heights) < 24  # one line of 12 px text, not 28 px per line
    assert "`" not in ledger.inner_text() and "**" not in ledger.inner_text()
    clipped = ledger.locator("td").evaluate_all(
        "cells => cells.filter(c => c.scrollWidth > c.clientWidth + 1).length"
    )
    assert clipped == 0
    lines = page.locator("table[data-ctx-lines]")
    row = lines.locator("tr").first.evaluate("r => r.getBoundingClientRect().height")
    assert row < 24
    lines.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "widgets-single-spaced.png"))
