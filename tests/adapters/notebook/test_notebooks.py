"""The tutorial notebooks: their checked outputs really are checked.

The notebooks themselves run under nbval in the main test command (``--nbval-lax``: cells
tagged ``nbval-check-output`` must reproduce their committed outputs). This test proves the
check bites: an altered key output makes nbval fail, the untouched copy passes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from paths import REPO, TESTS

NOTEBOOKS = REPO / "notebooks"
CHECK_TAG = "nbval-check-output"


def _nbval(notebook: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
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
        env=env,
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


def test_every_notebook_carries_the_kernelspec_the_lab_writes() -> None:
    """JupyterLab rewrites any other display name on opening, which marks the file changed."""
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        kernelspec = nbformat.read(path, as_version=4).metadata.kernelspec
        assert dict(kernelspec) == {
            "display_name": "Python 3 (ipykernel)",
            "language": "python",
            "name": "python3",
        }, path.name


def _outputs(cell: nbformat.NotebookNode) -> list[dict]:
    return [o for o in cell.get("outputs", []) if o.get("output_type") != "error"]


def test_the_quickstart_shows_its_results_through_their_renderers() -> None:
    """Each packet the quickstart makes is displayed as itself (its committed output holds
    the native payload), the first one before its Markdown is printed."""
    nb = nbformat.read(NOTEBOOKS / "01_quickstart.ipynb", as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    kinds = [
        [
            k
            for o in _outputs(c)
            for k in o.get("data", {})
            if k.startswith("application/vnd.ctx-lab")
        ]
        for c in code
    ]
    packets = [i for i, k in enumerate(kinds) if "application/vnd.ctx-lab.packet+json" in k]
    assert len(packets) >= 3  # assemble_packet, %ctx packet, a model's packet
    printed = next(i for i, c in enumerate(code) if "to_markdown()" in c.source)
    assert packets[0] < printed
    assert any("application/vnd.ctx-lab.entries+json" in k for k in kinds)


def test_the_refill_demo_shows_a_block_climbing_back_up() -> None:
    nb = nbformat.read(NOTEBOOKS / "04_compression.ipynb", as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "code" and "refilled" in c.source)
    assert CHECK_TAG in cell.metadata.get("tags", [])  # the same output on every run
    text = "".join(o.get("text", "") for o in _outputs(cell))
    climbed = int(text.split(" block(s) climbed back up")[0].rsplit(" ", 1)[-1])
    assert climbed >= 1 and "refilled:" in text


def test_every_path_a_notebook_names_in_the_repository_exists() -> None:
    """Notebooks that read this repository's own files (``../ctx_lab/...``) name files that
    are still there (a renamed module would leave an error message as a committed output)."""
    import re

    named = re.compile(r"\.\./ctx_lab/[\w./-]+")
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            for found in named.findall(cell.source):
                assert (NOTEBOOKS / found).exists(), f"{path.name} names {found}, which is gone"
        for cell in nb.cells:
            for o in cell.get("outputs", []):
                text = "".join(o.get("text", ""))
                assert "no such file" not in text, path.name
                # a committed %ctx error is a cell that stopped working (or one that names a
                # path of the machine it ran on)
                assert "%ctx: error" not in text, (path.name, cell.source)


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


@pytest.mark.kernel
@pytest.mark.slow
def test_the_shifted_clock_run_catches_an_output_that_carries_the_day(tmp_path: Path) -> None:
    """scripts/test.sh runs the notebooks again with the kernels' clock years ahead; a stored
    output that carries the day it was made fails there (and passes on the day itself)."""
    from nbclient import NotebookClient

    sys.path.insert(0, str(TESTS / "clock"))
    from ipython_dir import make_ipython_dir

    dated = tmp_path / "dated.ipynb"
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(
            "import datetime\nprint(datetime.date.today().isoformat())",
            metadata={"tags": [CHECK_TAG]},
        )
    ]
    NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    nbformat.write(nb, dated)
    assert _nbval(dated).returncode == 0

    env = {
        **os.environ,
        "IPYTHONDIR": str(make_ipython_dir(str(tmp_path))),
        "CTX_LAB_CLOCK_SHIFT_DAYS": "1096",
    }
    shifted = _nbval(dated, env)
    assert shifted.returncode == 1, shifted.stdout
    assert "Cell outputs differ" in shifted.stdout


OUTSIDE = (r"\.\./\.\./", r"\bshared\b[/\"' ]*(real-data|transcripts)", r"parents\[[1-9]\]")


def test_no_notebook_reads_what_only_this_repositorys_developers_have() -> None:
    """Every notebook travels: no cell reaches beside the checkout (``../../``, ``../shared``,
    ``Path.cwd().parents[1]``), so a plain clone, Binder or a wheel's user runs it clean; the
    real sessions they teach with ship in ``ctx_lab/examples/recorded``."""
    import re

    outside = re.compile("|".join(OUTSIDE))
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        for number, cell in enumerate(nb.cells, 1):
            found = outside.search(cell.source)
            assert found is None, f"{path.name} cell {number} reads {found.group(0)!r}"
            for output in cell.get("outputs", []):
                assert output.get("output_type") != "error", (path.name, number)


def test_the_outside_check_bites() -> None:
    import re

    outside = re.compile("|".join(OUTSIDE))
    assert outside.search("%ctx cache ../../shared/real-data/transcripts/x.jsonl")
    assert outside.search('REAL = Path.cwd().resolve().parents[1] / "shared" / "real-data"')
    assert not outside.search("%ctx cache ../ctx_lab/examples/recorded/marot__spotter/a.jsonl.gz")
