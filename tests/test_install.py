"""The installed package brings its JupyterLab and server extensions (no Node step by the user)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import ctx_lab


def run(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "jupyter", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return done.stdout + done.stderr


def test_labextension_is_installed_and_enabled() -> None:
    out = run("labextension", "list")
    line = next(line for line in out.splitlines() if "ctx-lab" in line)
    assert "enabled" in line and "OK" in line


def test_server_extension_is_enabled() -> None:
    out = run("server", "extension", "list")
    assert "ctx_lab" in out and "enabled" in out.split("ctx_lab", 1)[1].splitlines()[0]


def test_extension_points() -> None:
    assert ctx_lab._jupyter_labextension_paths() == [{"src": "labextension", "dest": "ctx-lab"}]
    assert ctx_lab._jupyter_server_extension_points() == [{"module": "ctx_lab.server"}]
    config = (
        Path(__file__).resolve().parent.parent
        / "jupyter-config"
        / "jupyter_server_config.d"
        / "ctx_lab.json"
    )
    assert json.loads(config.read_text())["ServerApp"]["jpserver_extensions"] == {"ctx_lab": True}


def test_html_cleaning_is_a_declared_dependency() -> None:
    """trafilatura reaches lxml_html_clean only through lxml's ``html_clean`` extra, which the
    pip of a fresh Python 3.11 venv does not resolve; without it every HTML read fails."""
    from importlib.metadata import requires

    declared = {
        r.split(";")[0].split(">")[0].split("=")[0].strip().lower()
        for r in requires("ctx-lab") or []
    }
    assert "lxml_html_clean" in declared or "lxml-html-clean" in declared
    import lxml_html_clean  # noqa: F401

    from ctx_lab.read._extract import extract_html

    assert "Body" in extract_html("<html><body><p>Body</p></body></html>")
