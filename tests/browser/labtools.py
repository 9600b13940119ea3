"""Helpers for the browser tests: the lab process, its REST calls, Chromium flags."""

from __future__ import annotations

import json
import shutil
import socket
import urllib.request
from pathlib import Path

from ctx_lab.examples import BUSY_DIR, EXAMPLE_DIR

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
CHROMIUM_FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
HOSTILE_TITLE = "<img src=x onerror=alert(1)>"


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Lab:
    """A running JupyterLab: its URL, token and root directory."""

    def __init__(self, url: str, token: str, root: Path) -> None:
        self.url, self.token, self.root = url, token, root

    def api(self, method: str, path: str, body: dict | None = None) -> dict:
        request = urllib.request.Request(
            f"{self.url}{path}",
            method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": f"token {self.token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            data = response.read()
        return json.loads(data) if data else {}

    def notebook(self, name: str, sources: list[str]) -> None:
        cells = [
            {
                "cell_type": "code",
                "source": s,
                "metadata": {},
                "outputs": [],
                "execution_count": None,
            }
            for s in sources
        ]
        content = {
            "cells": cells,
            "metadata": {
                "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}
            },
            "nbformat": 4,
            "nbformat_minor": 5,
        }
        self.api("PUT", f"/api/contents/{name}", {"type": "notebook", "content": content})


def _project(root: Path) -> None:
    shutil.copytree(EXAMPLE_DIR / ".context", root / "proj" / ".context")
    shutil.copytree(BUSY_DIR / ".context", root / "busy" / ".context")
    (root / "files").mkdir()
    (root / "files" / "big.log").write_text(
        "".join(f"2026-06-15T12:00:00Z line {i} of the big log\n" for i in range(1, 6001))
    )
    shutil.copytree(EXAMPLE_DIR / ".context", root / "work" / ".context")
    (root / "work" / "notes").mkdir()
    shutil.copytree(EXAMPLE_DIR / ".context", root / "{x} -o y" / ".context")
    from read_helpers import make_pdf

    make_pdf(
        root / "files" / "report.pdf", ["First page of the report", "Second page of the report"]
    )
    make_pdf(
        root / "files" / "manual.pdf",
        [
            f"Manual page {n}.\n"
            + "".join(
                f"Section {n}.{i:02d}: the reader keeps whole pages together in one chunk.\n"
                for i in range(35)
            )
            for n in range(1, 18)
        ],
    )
    (root / "files" / "medium.txt").write_text(
        "".join(f"medium line {i:03d} read chunk by chunk\n" for i in range(1, 121))
    )
    (root / "files" / "wide.log").write_text(
        "short line\n" + " ".join(f"word{i}" for i in range(600)) + "\nlast line\n"
    )
    (root / "proj" / "notes.md").write_text(
        "".join(f"Line {i}: the pager shows whole lines under a budget.\n" for i in range(1, 121))
    )
    hostile = root / "hostile" / ".context"
    hostile.mkdir(parents=True)
    (hostile / "DECISIONS.md").write_text(
        f"# Decisions\n\n## [2026-06-10-120000] {HOSTILE_TITLE}\n\n**Status**: Accepted\n\n"
        "**Decision**: render <b>markup</b> as text\n"
    )
    (hostile / "TASKS.md").write_text("# Tasks\n\n- [ ] Check that titles render as text\n")


def open_lab(page, lab: Lab, path: str = "") -> None:
    """Open JupyterLab on ``path`` with a fresh workspace and the file browser showing."""
    page.goto(f"{lab.url}/lab/tree/{path}?reset&token={lab.token}")
    page.wait_for_selector("#jp-main-dock-panel")
    page.wait_for_selector("#jp-main-statusbar")  # the shell has been restored
    tab = page.locator("li[data-id='filebrowser']")
    tab.wait_for()
    if "lm-mod-current" not in (tab.get_attribute("class") or ""):
        tab.click()
    page.locator(".jp-DirListing-content").first.wait_for()


def run_all(page, until: str, count: int = 1) -> None:
    """Run all cells once the kernel is idle, until ``count`` elements match ``until``
    (runs again if the first attempt raced the kernel start)."""
    page.wait_for_selector(".jp-NotebookPanel .jp-Cell")
    page.wait_for_function(
        "() => /\\| Idle/.test(document.querySelector('#jp-main-statusbar')?.textContent ?? '')",
        timeout=120_000,
    )
    for _ in range(3):
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
        try:
            page.locator(until).nth(count - 1).wait_for(timeout=45_000)
            return
        except Exception:  # the kernel was not ready: run again
            page.keyboard.press("Escape")
    page.locator(until).nth(count - 1).wait_for(timeout=45_000)


def open_pager(page, lab: Lab, folder: str, name: str):  # type: ignore[no-untyped-def]
    open_lab(page, lab, folder)
    item = page.locator(".jp-DirListing-item", has_text=name).first
    item.click(button="right")
    page.locator(".lm-Menu-itemLabel", has_text="Page with ctx-lab").first.click()
    path = f"{folder}/{name}" if folder else name
    pager = page.locator(f"[data-ctx-pager='{path}']")
    pager.locator("[data-ctx-pager-info]").wait_for()
    return pager


def info_is(page, text: str) -> None:  # type: ignore[no-untyped-def]
    page.wait_for_function(
        "(t) => document.querySelector('[data-ctx-pager-info]')?.textContent?.includes(t)",
        arg=text,
        timeout=15_000,
    )


def open_monitor(page, lab: Lab, folder: str, calls: int):  # type: ignore[no-untyped-def]
    """Open ``folder`` in the file browser, start the Context monitor on its ``calls.db`` from
    the context menu, and wait until it shows ``calls`` calls; returns the monitor."""
    open_lab(page, lab, folder)
    page.locator(".jp-DirListing-item", has_text="calls.db").first.click(button="right")
    page.locator(".lm-Menu-itemLabel", has_text="Monitor Context with ctx-lab").first.click()
    wait_for_calls(page, folder, calls, 15_000)
    return page.locator(f"[data-ctx-monitor='{folder}/calls.db']")


def wait_for_calls(page, folder: str, calls: int, timeout: int) -> None:  # type: ignore[no-untyped-def]
    """Wait until the monitor of ``folder/calls.db`` shows ``calls`` calls."""
    page.wait_for_function(
        "([path, n]) => document.querySelector(`[data-ctx-monitor='${path}']`)"
        "?.dataset.ctxMonitorCalls === n",
        arg=[f"{folder}/calls.db", str(calls)],
        timeout=timeout,
    )
