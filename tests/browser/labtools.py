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
