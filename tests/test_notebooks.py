"""The tutorial notebooks: their checked outputs really are checked.

The notebooks themselves run under nbval in the main test command (``--nbval-lax``: cells
tagged ``nbval-check-output`` must reproduce their committed outputs). This test proves the
check bites: an altered key output makes nbval fail, the untouched copy passes.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
CHECK_TAG = "nbval-check-output"


def _nbval(notebook: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--nbval-lax",
            "-q",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(notebook.parent),
            "--nbval-sanitize-with",
            str(NOTEBOOKS / "sanitize.cfg"),
            str(notebook),
        ],
        capture_output=True,
        text=True,
        cwd=notebook.parent,
        check=False,
        timeout=600,
    )


def _copy(tmp_path: Path, name: str) -> Path:
    tmp_path.mkdir()
    shutil.copytree(NOTEBOOKS / "data", tmp_path / "data")
    target = tmp_path / name
    shutil.copy(NOTEBOOKS / name, target)
    return target


def test_every_notebook_has_checked_cells_with_outputs() -> None:
    notebooks = sorted(NOTEBOOKS.glob("*.ipynb"))
    assert notebooks
    for path in notebooks:
        nb = nbformat.read(path, as_version=4)
        checked = [c for c in nb.cells if CHECK_TAG in c.metadata.get("tags", [])]
        assert checked, f"{path.name} has no checked cells"
        assert all(c.outputs for c in checked), f"{path.name} was committed without outputs"


@pytest.mark.kernel
@pytest.mark.slow
def test_nbval_catches_an_altered_key_output(tmp_path: Path) -> None:
    name = "00_tokens_and_models.ipynb"
    untouched = _copy(tmp_path / "untouched", name)
    result = _nbval(untouched)
    assert result.returncode == 0, result.stdout + result.stderr

    altered = _copy(tmp_path / "altered", name)
    nb = nbformat.read(altered, as_version=4)
    changed = False
    for cell in nb.cells:
        if CHECK_TAG not in cell.metadata.get("tags", []):
            continue
        for output in cell.outputs:
            text = output.get("data", {}).get("text/plain", "")
            if "186109" in text:
                output["data"]["text/plain"] = text.replace("186109", "186110")
                changed = True
    assert changed, "the key output (claude budget with 4096 reserved) is in the notebook"
    nbformat.write(nb, altered)
    result = _nbval(altered)
    assert result.returncode == 1, result.stdout
    assert "186110" in result.stdout or "mismatch" in result.stdout.lower()
