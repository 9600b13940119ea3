"""ctx-lab in the lab's shell: a load that logs no warnings, a shortcut that collides with
nothing JupyterLab ships, and %ctx completion that offers only commands, flags and values."""

from __future__ import annotations

import pytest
from labtools import ARTIFACTS, Lab, open_lab, run_all

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PYTHON_NAMES = {"and", "if", "in", "is", "not", "or", "abs", "ArithmeticError", "compile"}


def test_a_load_logs_no_warnings_and_the_shortcut_opens_the_sidebar(page, lab: Lab) -> None:
    logged: list[tuple[str, str]] = []
    page.on("console", lambda m: logged.append((m.type, m.text)))
    page.on("pageerror", lambda e: logged.append(("pageerror", str(e))))
    lab.notebook("quiet.ipynb", ["%load_ext ctx_lab", "%ctx models gpt-4o"])
    open_lab(page, lab, "quiet.ipynb")
    run_all(page, "[data-ctx-kind='model']")
    page.wait_for_timeout(1500)  # late warnings (settings, shortcuts) come after the restore
    bad = [(kind, text) for kind, text in logged if kind in ("warning", "error", "pageerror")]
    assert bad == [], bad
    panel = page.locator("#ctx-lab-context-panel")
    assert not panel.is_visible()
    page.locator("#jp-main-dock-panel").click()
    page.keyboard.press("Control+Shift+Alt+X")
    panel.wait_for(state="visible")


def completions(page, line: str) -> list[str]:  # type: ignore[no-untyped-def]
    """What the completer offers at the end of ``line`` in the notebook's first cell."""
    editor = page.locator(".jp-NotebookPanel .jp-Cell .cm-content").first
    editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.type(line)
    page.keyboard.press("Tab")
    items = page.locator(".jp-Completer-item .jp-Completer-match")
    items.first.wait_for(timeout=20_000)
    names = [items.nth(i).inner_text() for i in range(items.count())]
    page.keyboard.press("Escape")
    return names


def test_ctx_completion_offers_only_commands_flags_and_values(page, lab: Lab) -> None:
    lab.notebook("complete.ipynb", ["x = 1", "%load_ext ctx_lab"])
    open_lab(page, lab, "complete.ipynb")
    run_all(page, ".jp-InputPrompt:has-text('[2]')")
    commands = completions(page, "%ctx ")
    assert {"packet", "read", "page", "tokens", "check"} <= set(commands)
    assert not PYTHON_NAMES & set(commands), commands
    page.screenshot(path=str(ARTIFACTS / "completion-commands.png"))
    flags = completions(page, "%ctx packet --")
    assert "--budget" in flags and "--focus" in flags
    assert all(f.startswith("--") for f in flags), flags
    assert not {"--abs", "--ArithmeticError", "--compile"} & set(flags)
    narrowed = completions(page, "%ctx packet --co")
    assert set(narrowed) == {"--compare", "--counter"}, narrowed
    line = "%ctx packet --relevance "
    values = completions(page, line)
    # the kernel's values first; after them JupyterLab's own context completer may add the
    # cell's words (its document-word provider, not Python names)
    assert set(values[:3]) == {"auto", "keywords", "bm25"}, values
    assert set(values[3:]) <= {"%", "ctx", "packet", "-", "--", "relevance"}, values
