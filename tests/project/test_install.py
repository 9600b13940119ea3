"""The installed package brings its JupyterLab and server extensions (no Node step by the user)."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from paths import REPO

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


ANSI = re.compile(r"\x1b\[[0-9;]*m")
EXTENSION_LINE = re.compile(r"^ {4}(?P<name>[A-Za-z_][\w.]*) (?P<state>enabled|disabled)$")


def extension_states(listing: str) -> dict[str, dict[str, bool]]:
    """``jupyter server extension list`` by its structure: for each ``Config dir:`` block, the
    extensions it names and whether each is enabled (a path is never read as a name)."""
    states: dict[str, dict[str, bool]] = {}
    block: dict[str, bool] | None = None
    for raw in listing.splitlines():
        line = ANSI.sub("", raw).rstrip()
        if line.startswith("Config dir: "):
            block = states.setdefault(line.removeprefix("Config dir: "), {})
        elif block is not None and (found := EXTENSION_LINE.match(line)):
            block[found["name"]] = found["state"] == "enabled"
    return states


def test_the_listing_is_read_by_structure_not_by_a_name_in_a_path() -> None:
    """A checkout in a folder named ctx_lab puts the name in the config dir's path."""
    listing = (
        "Config dir: /root/.jupyter\n\n"
        "Config dir: /home/me/ctx_lab/.venv-test/etc/jupyter\n"
        "    ctx_lab \x1b[32menabled\x1b[0m\n"
        "    - Validating ctx_lab...\n"
        "      ctx_lab 0.1.0 \x1b[32mOK\x1b[0m\n"
        "    jupyterlab disabled\n\n"
        "Config dir: /usr/local/etc/jupyter\n"
    )
    assert extension_states(listing) == {
        "/root/.jupyter": {},
        "/home/me/ctx_lab/.venv-test/etc/jupyter": {"ctx_lab": True, "jupyterlab": False},
        "/usr/local/etc/jupyter": {},
    }


def test_server_extension_is_enabled() -> None:
    from jupyter_core.paths import jupyter_config_path
    from jupyter_server.extension.config import ExtensionConfigManager
    from jupyter_server.extension.manager import ExtensionPackage

    manager = ExtensionConfigManager(read_config_path=jupyter_config_path())
    assert manager.get_jpserver_extensions().get("ctx_lab") is True
    assert ExtensionPackage(name="ctx_lab", enabled=True).validate()
    listed = extension_states(run("server", "extension", "list"))
    assert any(block.get("ctx_lab") for block in listed.values()), listed


def test_extension_points() -> None:
    assert ctx_lab._jupyter_labextension_paths() == [{"src": "labextension", "dest": "ctx-lab"}]
    assert ctx_lab._jupyter_server_extension_points() == [{"module": "ctx_lab.server"}]
    config = REPO / "jupyter-config" / "jupyter_server_config.d" / "ctx_lab.json"
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
