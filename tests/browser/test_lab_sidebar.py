"""The Context sidebar at a narrow width: the searchable model picker, a typed budget, counts
that follow the filter, the example project where there is no .context/, and the counter
setting as a list of the server's counters. Screenshots go to test-artifacts/."""

from __future__ import annotations

import re

import pytest
from labtools import ARTIFACTS, Lab, open_lab
from plugin_helpers import PLUGIN_COUNTER

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def open_panel(page, lab: Lab, folder: str):  # type: ignore[no-untyped-def]
    open_lab(page, lab, folder)
    page.locator("li[data-id='ctx-lab-context-panel']").click()
    panel = page.locator("#ctx-lab-context-panel")
    panel.wait_for()
    return panel


def set_sidebar_width(page, width: int) -> None:  # type: ignore[no-untyped-def]
    """Drag the handle between the left sidebar and the main area until the sidebar is
    ``width`` pixels wide."""
    panel = page.locator("#ctx-lab-context-panel")
    handle = page.locator("#jp-main-split-panel > .lm-SplitPanel-handle").first
    for _ in range(3):
        box = panel.bounding_box()
        grip = handle.bounding_box()
        assert box and grip
        x = grip["x"] + grip["width"] / 2
        y = grip["y"] + grip["height"] / 2
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(x + (width - box["width"]), y, steps=5)
        page.mouse.up()
        if abs((panel.bounding_box() or {"width": 0})["width"] - width) <= 2:
            return
    raise AssertionError(f"the sidebar is {panel.bounding_box()} wide, not {width}")


def wait_for_models(page) -> None:  # type: ignore[no-untyped-def]
    """Wait until the model picker holds the models.dev list (over a thousand models)."""
    page.wait_for_function(
        "() => Number(document.querySelector('[data-ctx-model-picker]')?.dataset.ctxModelCount)"
        " > 1000",
        timeout=20_000,
    )


def test_model_picker_fits_the_panel_at_250px(page, lab: Lab) -> None:
    panel = open_panel(page, lab, "proj")
    panel.locator("[data-ctx-panel-total]").wait_for()
    set_sidebar_width(page, 250)
    wait_for_models(page)
    search = panel.locator("[data-ctx-model-search]")
    search.click()
    listing = panel.locator("[data-ctx-model-list]")
    listing.wait_for()
    right = panel.evaluate("p => p.getBoundingClientRect().right")
    for part in (search, listing, panel.locator("[data-ctx-budget-control]")):
        assert part.evaluate("e => e.getBoundingClientRect().right") <= right + 0.5
    # nothing in the panel is wider than the panel
    assert panel.evaluate("p => p.scrollWidth <= p.clientWidth + 1")
    # thousands of models: the first matches, and how many more
    assert int(listing.locator("[data-ctx-model-more]").get_attribute("data-ctx-model-more")) > 0
    search.fill("sonnet 4-5")  # words in any order, provider included
    names = listing.locator("[data-ctx-model-option]")
    names.first.wait_for()
    found = [names.nth(i).get_attribute("data-ctx-model-option") for i in range(names.count())]
    spelled = [re.sub(r"[._/\s-]+", "-", n or "") for n in found]  # any separator matches
    assert spelled and all("sonnet" in n and "4-5" in n for n in spelled)
    groups = listing.locator("[data-ctx-model-group]")
    assert groups.count() >= 1
    page.screenshot(path=str(ARTIFACTS / "sidebar-model-picker-250px.png"))
    search.press("ArrowDown")
    with page.expect_response(lambda r: "/ctx-lab/api/packet" in r.url and "model=" in r.url):
        search.press("Enter")
    assert (
        panel.locator("[data-ctx-model-picker]").get_attribute("data-ctx-model-chosen")
        == (found[0])
    )
    assert panel.locator("[data-ctx-budget-input]").is_disabled()
    panel.locator("[data-ctx-model-clear]").click()
    page.wait_for_function(
        "() => document.querySelector('[data-ctx-panel-total]')?.textContent === '2,000'"
    )
    assert not panel.locator("[data-ctx-budget-input]").is_disabled()


def test_the_picker_finds_models_the_way_people_type_them(page, lab: Lab) -> None:
    """Words in any order and any separator ("sonnet claude 4.5" finds claude-sonnet-4-5), the
    family's own provider before resellers; "gpt4o" finds gpt-4o; a near-miss with nothing
    matching gets "did you mean"."""
    from ctx_lab.models import MODEL_OWNERS

    panel = open_panel(page, lab, "proj")
    panel.locator("[data-ctx-panel-total]").wait_for()
    wait_for_models(page)
    search = panel.locator("[data-ctx-model-search]")
    listing = panel.locator("[data-ctx-model-list]")
    search.click()
    search.fill("sonnet claude 4.5")
    names = listing.locator("[data-ctx-model-option]")
    names.first.wait_for()
    found = [
        names.nth(i).get_attribute("data-ctx-model-option") or "" for i in range(names.count())
    ]
    assert any(n.split("/")[-1] == "claude-sonnet-4-5" for n in found), found
    groups = listing.locator("[data-ctx-model-group]")
    order = [groups.nth(i).get_attribute("data-ctx-model-group") for i in range(groups.count())]
    owned = [i for i, g in enumerate(order) if g in MODEL_OWNERS]
    resold = [i for i, g in enumerate(order) if g not in MODEL_OWNERS and "built in" not in g]
    assert "anthropic" in order and (not resold or max(owned) < min(resold)), order
    page.screenshot(path=str(ARTIFACTS / "picker-sonnet-claude-4.5.png"))
    search.fill("gpt4o")
    listing.locator("[data-ctx-model-option='gpt-4o']").first.wait_for()
    page.screenshot(path=str(ARTIFACTS / "picker-gpt4o.png"))
    search.fill("gtp-4o-minni")
    listing.locator("[data-ctx-model-none]").wait_for()
    assert "did you mean" in listing.locator("[data-ctx-model-none]").inner_text()
    suggested = listing.locator("[data-ctx-model-suggestion]")
    values = [
        suggested.nth(i).get_attribute("data-ctx-model-suggestion")
        for i in range(suggested.count())
    ]
    assert any((v or "").endswith("gpt-4o-mini") for v in values), values
    page.screenshot(path=str(ARTIFACTS / "picker-did-you-mean.png"))


def test_typing_a_budget(page, lab: Lab) -> None:
    panel = open_panel(page, lab, "proj")
    panel.locator("[data-ctx-panel-total]").wait_for()
    field = panel.locator("[data-ctx-budget-input]")
    assert field.input_value() == "2000"
    assert field.get_attribute("step") == "100"  # steps scale with the budget
    field.fill("12345")
    field.press("Enter")
    page.wait_for_function(
        "() => document.querySelector('[data-ctx-panel-total]')?.textContent === '12,345'"
    )
    assert field.get_attribute("step") == "1000"
    field.fill("0")  # below the minimum: the minimum, and a word why
    field.press("Enter")
    page.wait_for_function(
        "() => document.querySelector('[data-ctx-panel-total]')?.textContent === '100'"
    )
    assert "at least 100" in panel.locator("[data-ctx-budget-note]").inner_text()
    # a click at the slider's far left is the minimum, never 0
    slider = panel.locator("[data-ctx-budget-slider]")
    box = slider.bounding_box()
    assert box
    page.mouse.click(box["x"] + 1, box["y"] + box["height"] / 2)
    assert field.input_value() == "100"
    page.mouse.click(box["x"] + box["width"] * 0.5, box["y"] + box["height"] / 2)
    page.wait_for_function(
        "() => Number(document.querySelector('[data-ctx-budget-input]').value) > 5000"
    )
    panel.screenshot(path=str(ARTIFACTS / "sidebar-typed-budget.png"))


def test_section_counts_follow_the_filter(page, lab: Lab) -> None:
    panel = open_panel(page, lab, "proj")
    section = panel.locator("[data-ctx-panel-section='decisions']")
    section.wait_for()
    count = section.locator("[data-ctx-section-count]")
    total = section.locator("[data-ctx-entry]").count()
    assert f"of {total} included" in count.inner_text()
    panel.locator("[data-ctx-panel-filter]").fill("clock")
    shown = section.locator("[data-ctx-entry]:visible").count()
    assert 0 < shown < total
    assert count.get_attribute("data-ctx-shown") == str(shown)
    assert count.inner_text().startswith(f"({shown} match")
    included = section.locator("[data-ctx-entry]:visible[data-ctx-included='true']").count()
    assert count.get_attribute("data-ctx-included") == str(included)


def test_a_folder_without_context_offers_the_example_project(page, lab: Lab) -> None:
    panel = open_panel(page, lab, "files")
    status = panel.locator("[data-ctx-panel-status]")
    link = status.locator("[data-ctx-open-example]")
    link.wait_for()
    assert "No .context/ directory here or above" in status.inner_text()
    panel.screenshot(path=str(ARTIFACTS / "sidebar-no-context.png"))
    with page.expect_response(lambda r: "/ctx-lab/api/packet" in r.url and "example=" in r.url):
        link.click()
    panel.locator("[data-ctx-panel-project='example']").wait_for()
    assert panel.locator("[data-ctx-entry]").count() > 5


def test_the_counter_setting_lists_the_servers_counters(page, lab: Lab) -> None:
    open_lab(page, lab, "proj")
    page.locator(".lm-MenuBar-itemLabel", has_text="Settings").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Settings Editor").first.click()
    page.locator(".jp-PluginList-entry", has_text="ctx-lab").first.click()
    field = page.locator("select[id$='counter']").first
    field.wait_for()
    # the server's counters arrive with the settings' fetch transform: wait for them, not for
    # the first paint of the field (which may still hold only the schema's default)
    field.locator("option", has_text="cl100k").first.wait_for(state="attached")
    options = field.locator("option")
    values = [options.nth(i).inner_text() for i in range(options.count())]
    assert any(v.startswith("default") for v in values)
    assert any(v.startswith("cl100k") for v in values)
    assert any(v.startswith(PLUGIN_COUNTER) for v in values)  # a plugin installed on the server
    page.screenshot(path=str(ARTIFACTS / "settings-counter.png"))
