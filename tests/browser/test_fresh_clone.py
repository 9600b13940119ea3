"""The README's two commands in the README's order, in a fresh clone named ``ctx_lab`` with no
``../shared`` beside it (as a user's clone has none): the lab (``scripts/lab.sh``) runs every
notebook with Run All and autosave on, every cell runs clean, and the fixtures the test command
compares against are untouched afterwards.

The clone's lab gets its own virtual environment from ``scripts/lab.sh`` itself, as a user's
does. Only the JupyterLab extension's JavaScript build is reused from this checkout (the test
command has just built the same sources; ``hatch_build.py`` keeps a build newer than them).
"""

from __future__ import annotations

import contextlib
import filecmp
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from labtools import ARTIFACTS, free_port

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
AUTOSAVE_WINDOW_S = 180  # JupyterLab autosaves every 120 s by default
AUTOSAVE_TICK_S = 130  # one autosave after the last cell ran (every 120 s, and a margin)
RUN_ALL_S = 1200  # every notebook's Run All, all kernels at once on two cores
WORK = "my-notebooks"


class ClonedLab:
    """``bash scripts/lab.sh`` running in a fresh clone."""

    def __init__(self, clone: Path, url: str, token: str, log: Path) -> None:
        self.clone, self.url, self.token, self.log = clone, url, token, log


def _as_a_user(venv: Path) -> dict[str, str]:
    """The environment of a user's shell with ``venv`` activated: none of this test run's
    virtual environment (on PATH, ``jupyter`` finds its ``jupyter-server`` there), Python path
    or Jupyter directories."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("VIRTUAL_ENV", "CTX_LAB_VENV", "PYTHONPATH", "IPYTHONDIR")
        and not k.startswith("JUPYTER_")
    }
    ours = str(Path(sys.prefix) / "bin")
    rest = [p for p in env.get("PATH", "").split(os.pathsep) if p and p != ours]
    env.update(PATH=os.pathsep.join([str(venv / "bin"), *rest]), VIRTUAL_ENV=str(venv))
    return env


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True, timeout=300
    ).stdout


def _wait_for(url: str, process: subprocess.Popen, log: Path, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"scripts/lab.sh did not serve:\n{log.read_text()[-4000:]}")
        time.sleep(1)


@pytest.fixture(scope="module")
def cloned_lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClonedLab]:
    base = tmp_path_factory.mktemp("fresh")
    clone = base / "ctx_lab"  # what a plain `git clone …` names the folder
    _git("clone", "--quiet", str(REPO), str(clone), cwd=base)
    built = REPO / "ctx_lab" / "labextension"
    if (built / "package.json").exists():
        shutil.copytree(built, clone / "ctx_lab" / "labextension")
    port, token = free_port(), secrets.token_hex(16)
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("VIRTUAL_ENV", "CTX_LAB_VENV", "PYTHONPATH", "IPYTHONDIR")
    }
    env.update(
        PYTHON=str(Path(sys.executable).resolve()),  # the interpreter behind this venv
        CTX_LAB_PORT=str(port),
        CTX_LAB_TOKEN=token,
        JUPYTER_CONFIG_DIR=str(base / "jupyter-config"),  # the user's own settings untouched
        PYTHONUNBUFFERED="1",
    )
    log = base / "lab.log"
    with open(log, "w") as out:
        process = subprocess.Popen(
            [
                "bash",
                "scripts/lab.sh",
                "--no-browser",
                "--LabApp.news_url=",
                "--LabServerApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            ],
            cwd=clone,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # lab.sh, jupyter and its kernels: one group to stop
        )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_for(f"{url}/api/status?token={token}", process, log, 900)
        yield ClonedLab(clone, url, token, log)
    finally:
        _stop(process)


def _stop(process: subprocess.Popen) -> None:
    """Stop lab.sh's process group (jupyter and its kernels) by its id."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


def _open_and_run_all(page, name: str) -> None:  # type: ignore[no-untyped-def]
    """Open ``name`` from the file browser (in my-notebooks/) and Run All once its kernel idles."""
    item = page.locator(".jp-DirListing-item", has_text=name).first
    item.dblclick()
    page.wait_for_function(
        "(n) => document.querySelector('.lm-TabBar-tab.jp-mod-current')?.textContent?.includes(n)",
        arg=name,
    )
    page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell").first.wait_for()
    page.wait_for_function(
        "() => /\\| Idle/.test(document.querySelector('#jp-main-statusbar')?.textContent ?? '')",
        timeout=180_000,
    )
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()


def _kernels_idle(lab: ClonedLab, seconds: float) -> None:
    """Wait until every kernel of the lab has been idle for three polls in a row."""
    deadline, calm = time.monotonic() + seconds, 0
    while calm < 3:
        with urllib.request.urlopen(f"{lab.url}/api/kernels?token={lab.token}", timeout=10) as r:
            states = [k["execution_state"] for k in json.load(r)]
        calm = calm + 1 if states and all(s == "idle" for s in states) else 0
        if time.monotonic() > deadline:
            raise AssertionError(f"kernels still busy after {seconds:.0f} s: {states}")
        time.sleep(2)


def _not_clean(path: Path) -> list[str]:
    """What did not run clean in a saved notebook: error outputs, and code cells never run."""
    found = []
    for number, cell in enumerate(json.loads(path.read_text())["cells"], 1):
        if cell["cell_type"] != "code":
            continue
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                found.append(f"cell {number}: {output.get('ename')}: {output.get('evalue')}"[:300])
        if cell.get("execution_count") is None and "".join(cell["source"]).strip():
            found.append(f"cell {number}: never ran")
    return found


def test_the_lab_never_changes_the_notebooks_the_tests_compare(
    browser, cloned_lab: ClonedLab
) -> None:
    clone = cloned_lab.clone
    assert not (clone.parent / "shared").exists()  # what only this repository's developers have
    printed = cloned_lab.log.read_text()
    assert f"/lab/tree/{WORK}/01_quickstart.ipynb?token=" in printed, printed[-2000:]
    names = sorted(p.name for p in (clone / "notebooks").glob("*.ipynb"))
    assert sorted(p.name for p in (clone / WORK).glob("*.ipynb")) == names
    assert (clone / WORK / "data" / "ingest.log").is_file()  # what the notebooks read

    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.set_default_timeout(120_000)
    try:
        # the address lab.sh prints opens the working copy of the quickstart
        page.goto(
            f"{cloned_lab.url}/lab/tree/{WORK}/01_quickstart.ipynb?reset&token={cloned_lab.token}"
        )
        page.wait_for_selector("#jp-main-statusbar")
        page.wait_for_function(
            "() => document.querySelector('.lm-TabBar-tab.jp-mod-current')"
            "?.textContent?.includes('01_quickstart')"
        )
        listing = page.locator(".jp-DirListing-content").first
        listing.wait_for()
        # the fixtures are not offered in the file browser
        page.locator(".jp-BreadCrumbs-home").first.click()
        page.locator(".jp-DirListing-item", has_text=WORK).first.wait_for()
        shown = page.locator(".jp-DirListing-itemName").all_inner_texts()
        assert "notebooks" not in [s.strip() for s in shown], shown
        page.locator(".jp-DirListing-item", has_text=WORK).first.dblclick()
        page.locator(".jp-DirListing-item", has_text="00_tokens").first.wait_for()
        started = time.monotonic()
        for name in names:
            _open_and_run_all(page, name)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "fresh-clone-run-all.png"))
        _kernels_idle(cloned_lab, RUN_ALL_S)
        page.screenshot(path=str(ARTIFACTS / "fresh-clone-all-idle.png"))
        waited = max(AUTOSAVE_TICK_S, AUTOSAVE_WINDOW_S - (time.monotonic() - started))
        page.wait_for_timeout(waited * 1000)
        page.screenshot(path=str(ARTIFACTS / "fresh-clone-after-autosave.png"))
    finally:
        context.close()

    # the lab saved its work: into the working copies, never into notebooks/
    changed = [
        n for n in names if not filecmp.cmp(clone / "notebooks" / n, clone / WORK / n, False)
    ]
    assert changed, "nothing was autosaved: the test did not exercise the lab"
    # every notebook ran clean without ../shared: what the lab saved has no error and no cell unrun
    broken = {n: _not_clean(clone / WORK / n) for n in names}
    assert not {n: v for n, v in broken.items() if v}, broken
    assert _git("status", "--porcelain", cwd=clone) == ""
    assert _git("status", "--porcelain", "--ignored", "notebooks", cwd=clone) == ""

    # the install check holds in a venv under a folder named ctx_lab
    from test_install import extension_states

    user = _as_a_user(clone / ".venv")
    listing_text = subprocess.run(
        [str(clone / ".venv" / "bin" / "python"), "-m", "jupyter", "server", "extension", "list"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=user,  # not this test run's venv or Jupyter paths
    )
    listed = listing_text.stdout + listing_text.stderr
    states = extension_states(listed)
    found = [d for d in states if d.startswith(str(clone / ".venv"))]
    assert len(found) == 1, listed[-3000:]
    [venv_config] = found
    assert "/ctx_lab/.venv/" in venv_config and states[venv_config]["ctx_lab"] is True

    # the lab's venv has what README says it has: the proxy and the MCP server beside the lab
    for words in (["mcp", "serve", "--help"], ["capture", "--help"]):
        served = subprocess.run(
            [str(clone / ".venv" / "bin" / "ctx-lab"), *words],
            capture_output=True, text=True, timeout=120, check=False, env=user,
        )  # fmt: skip
        assert served.returncode == 0, served.stderr[-2000:]
    imports = subprocess.run(
        [str(clone / ".venv" / "bin" / "python"), "-c", "import mcp, aiohttp"],
        capture_output=True, text=True, timeout=120, check=False, env=user,
    )  # fmt: skip
    assert imports.returncode == 0, imports.stderr[-2000:]

    # and the test command's checks of the fixtures pass on the clone's notebooks
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/adapters/notebook/test_notebooks.py",
            "tests/project/test_install.py",
        ],
        cwd=clone,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
