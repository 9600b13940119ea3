"""The sidebar's details at 250 px — warnings that wrap instead of being clipped, a focus
placeholder that fits, a model picker that lists the families' own providers before resellers
and each model once — and exercise mode (fates hidden until revealed) in the sidebar and the
packet renderer. Screenshots go to test-artifacts/."""

from __future__ import annotations

import pytest
from labtools import ARTIFACTS, Lab, open_lab, run_all
from test_lab_sidebar import open_panel, set_sidebar_width, wait_for_models

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_warnings_wrap_and_the_focus_placeholder_fits_at_250px(page, lab: Lab) -> None:
    panel = open_panel(page, lab, "busy")
    warnings = panel.locator("[data-ctx-panel-warnings] [data-ctx-warnings]")
    warnings.wait_for()
    set_sidebar_width(page, 250)
    right = panel.evaluate("p => p.getBoundingClientRect().right")
    for item in warnings.locator("[data-ctx-warning]").all():
        assert item.evaluate("e => e.scrollWidth <= e.clientWidth + 1")  # nothing cut off
        assert item.evaluate("e => e.getBoundingClientRect().right") <= right + 0.5
    focus = panel.locator("[data-ctx-focus-input]")
    fits = focus.evaluate(
        """e => {
            const style = getComputedStyle(e);
            const ctx = document.createElement('canvas').getContext('2d');
            ctx.font = `${style.fontSize} ${style.fontFamily}`;
            const room = e.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
            return ctx.measureText(e.placeholder).width <= room;
        }"""
    )
    assert fits, focus.get_attribute("placeholder")
    assert "rank entries" in focus.get_attribute("title")  # the whole wording, on hover
    panel.screenshot(path=str(ARTIFACTS / "sidebar-details-250px.png"))


def test_the_model_picker_lists_owners_first_and_each_model_once(page, lab: Lab) -> None:
    panel = open_panel(page, lab, "proj")
    panel.locator("[data-ctx-panel-total]").wait_for()
    wait_for_models(page)
    search = panel.locator("[data-ctx-model-search]")
    search.click()
    search.fill("gpt-4o")
    listing = panel.locator("[data-ctx-model-list]")
    listing.locator("[data-ctx-model-option]").first.wait_for()
    groups = listing.locator("[data-ctx-model-group]").all_inner_texts()
    # the built-in table names every gpt-4o of OpenAI's: its own copies are left out as copies
    assert groups[0] == "families (built in)" and "openai" not in groups
    rows = listing.locator("[data-ctx-model-option]").all_inner_texts()[:8]
    assert sum(1 for r in rows if r.replace("\n", " ").split()[0] == "gpt-4o") == 1
    assert (
        int(listing.locator("[data-ctx-model-copies]").get_attribute("data-ctx-model-copies")) > 0
    )
    search.fill("text-embedding-3")  # a model the table leaves out: its owner before resellers
    listing.locator("[data-ctx-model-group='openai']").wait_for()
    assert listing.locator("[data-ctx-model-group]").all_inner_texts()[0] == "openai"
    search.fill("302ai gpt-4o")  # a reseller's own copy, when asked for by name
    listing.locator("[data-ctx-model-group='302ai']").wait_for()
    page.screenshot(path=str(ARTIFACTS / "sidebar-model-picker-owners-first.png"))


def test_exercise_mode_hides_fates_until_revealed(page, lab: Lab) -> None:
    lab.notebook("exercise.ipynb", ["%load_ext ctx_lab", "%ctx packet proj --budget 2000"])
    panel = open_panel(page, lab, "proj")
    decisions = panel.locator("[data-ctx-panel-section='decisions']")
    decisions.locator("[data-ctx-entry]").first.wait_for()
    # the sidebar: a chip per entry, hidden until clicked
    panel.locator("[data-ctx-panel-exercise] [data-ctx-exercise-toggle]").click()
    chips = decisions.locator("[data-ctx-entry] [data-ctx-fate]")
    first = chips.first
    assert first.evaluate("e => getComputedStyle(e).color") == "rgba(0, 0, 0, 0)"
    first.click()
    assert "ctx-revealed" in first.get_attribute("class")
    assert panel.locator("[data-ctx-entry] [data-ctx-fate].ctx-revealed").count() == 1
    panel.screenshot(path=str(ARTIFACTS / "exercise-sidebar.png"))
    # a packet rendered while exercise mode is on starts with its fates hidden
    open_lab(page, lab, "exercise.ipynb")
    run_all(page, "[data-ctx-kind='packet']")
    packet = page.locator("[data-ctx-kind='packet']").first
    root = packet.locator("[data-ctx-exercise-root]")
    assert "ctx-exercise" in (root.get_attribute("class") or "")
    assert not packet.locator(".ctx-sections").is_visible()
    packet.locator("details", has_text="Ledger").first.locator("summary").first.click()
    fates = packet.locator("[data-ctx-ledger] td[data-ctx-fate]")
    assert fates.count() >= 10
    assert fates.nth(0).evaluate("e => getComputedStyle(e).color") == "rgba(0, 0, 0, 0)"
    fates.nth(0).click()  # reveals that row's action and reason
    assert packet.locator("[data-ctx-ledger] td[data-ctx-fate].ctx-revealed").count() == 2
    packet.screenshot(path=str(ARTIFACTS / "exercise-packet.png"))
    packet.locator("[data-ctx-reveal-all]").click()
    assert "ctx-exercise" not in (root.get_attribute("class") or "")
    assert packet.locator(".ctx-sections").is_visible()
    # the sidebar turns it off everywhere again (it is remembered across reloads)
    page.locator("li[data-id='ctx-lab-context-panel']").click()
    panel = page.locator("#ctx-lab-context-panel")
    toggle = panel.locator("[data-ctx-panel-exercise] [data-ctx-exercise-toggle]")
    assert toggle.inner_text() == "exercise: on"
    toggle.click()
    assert page.evaluate("() => localStorage.getItem('ctx-lab:exercise-mode')") is None
