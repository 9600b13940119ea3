"""A real JupyterLab on 127.0.0.1 and Debian's Chromium driven by Python Playwright."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator

import pytest
from labtools import ARTIFACTS, CHROMIUM_FLAGS, Lab, _project, chromium_path, free_port
from plugin_helpers import install_counter_plugin


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    """JupyterLab with the ctx-lab extensions, on 127.0.0.1, stopped by its own process id."""
    root = tmp_path_factory.mktemp("lab-root")
    _project(root)
    port, token = free_port(), secrets.token_hex(16)
    # a counter plugin installed only for this server: the sidebar must list it
    site = install_counter_plugin(tmp_path_factory.mktemp("plugin-site"))
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(root / ".jupyter-config"),
        "PYTHONUNBUFFERED": "1",
        "PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")])),
    }
    log = open(root.parent / "jupyterlab.log", "w")  # noqa: SIM115
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jupyter",
            "lab",
            "--no-browser",
            "--allow-root",
            f"--ServerApp.port={port}",
            "--ServerApp.ip=127.0.0.1",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={root}",
            "--LabApp.news_url=",
            "--LabServerApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            "--ServerApp.disable_check_xsrf=False",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        cwd=root,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            with urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=5) as response:
                if response.status == 200:
                    break
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            log.close()
            raise RuntimeError((root.parent / "jupyterlab.log").read_text()[-3000:])
        time.sleep(0.5)
    lab = Lab(url, token, root)
    lab.api(  # no "get notified about news?" toast over the screenshots
        "PUT",
        "/lab/api/settings/@jupyterlab/apputils-extension:notification",
        {"raw": '{"fetchNews": "false"}'},
    )
    try:
        yield lab
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """Debian's Chromium through Playwright (never a downloaded browser). Module-scoped: the
    Playwright event loop must be gone before other tests create their own."""
    executable = chromium_path()
    if executable is None:
        if os.environ.get("CI"):
            pytest.fail("Chromium is not installed; the test command installs it with apt-get")
        pytest.skip("Chromium is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
        try:
            yield instance
        finally:
            instance.close()


@pytest.fixture
def page(browser, lab: Lab):
    """A fresh browser page with dialogs recorded (an alert would mean injected HTML ran)."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    tab = context.new_page()
    tab.dialogs = []
    tab.on("dialog", lambda dialog: (tab.dialogs.append(dialog.message), dialog.dismiss()))
    tab.set_default_timeout(60_000)
    ARTIFACTS.mkdir(exist_ok=True)
    yield tab
    context.close()
