"""``import ctx_lab`` stays light: no Jupyter, IPython, pandas, matplotlib or ipywidgets."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("pandas", "matplotlib", "ipywidgets", "IPython", "jupyter_server", "jupyter_client")
HEAVY += ("dask", "distributed", "pyarrow", "tqdm", "mcp")  # imported on use only


@pytest.mark.parametrize(
    "statement",
    [
        "import ctx_lab",
        "import ctx_lab.tokens, ctx_lab.models, ctx_lab.display, ctx_lab.commands, ctx_lab.cli",
        "import ctx_lab.analysis",
        "import ctx_lab.cli as c; c.main(['models', 'gpt-4o', '--format', 'json'])",
    ],
)
def test_core_imports_without_heavy_modules(statement: str) -> None:
    check = f"{statement}\nimport sys\nheavy = [m for m in {HEAVY!r} if m in sys.modules]\n"
    check += "assert not heavy, heavy\n"
    done = subprocess.run(
        [sys.executable, "-c", check], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr


def test_a_packet_of_a_plain_context_reads_no_yaml_and_no_plugins() -> None:
    """``ctx-lab packet`` on a folder without front matter or plugin counters imports neither
    PyYAML (10 ms) nor ``importlib.metadata`` (13 ms): both were a tenth of its start."""
    from ctx_lab.examples import EXAMPLE_DIR

    check = (
        "import sys, ctx_lab.cli as c\n"
        f"c.main(['packet', {str(EXAMPLE_DIR)!r}, '--budget', '2000', '-o', '/dev/null'])\n"
        "late = [m for m in ('yaml', 'importlib.metadata') if m in sys.modules]\n"
        "assert not late, late\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", check], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr


# what `ctx-lab packet` on a plain .context/ must not import: the other commands, the model
# registry, calibrations, the ctx-0.8 profile, plots, profile comparisons, the HTML entities and
# shutil (argparse imports it, with bz2 and lzma, for the help's width)
NOT_FOR_A_PACKET = (
    "ctx_lab.commands._builder",
    "ctx_lab.commands._conversation",
    "ctx_lab.commands._paging",
    "ctx_lab.commands._servers",
    "ctx_lab.commands._tokens",
    "ctx_lab.models",
    "ctx_lab.tokens._calibration",
    "ctx_lab.tokens._report",
    "ctx_lab.packet._ctx08",
    "ctx_lab.packet._analysis",
    "ctx_lab.packet._plots",
    "ctx_lab.packet._locate",
    "html",
    "hashlib",
    "tempfile",
    "tomllib",
    "difflib",
    "shutil",
)


def test_a_packet_imports_only_what_a_packet_uses() -> None:
    """Start-up is import time: a command imports its own module and the engine it runs, not
    the registry's every command (``ctx-lab packet`` took 0.15 s, two thirds of it imports)."""
    from ctx_lab.examples import EXAMPLE_DIR

    check = (
        "import sys, ctx_lab.cli as c\n"
        f"code = c.main(['packet', {str(EXAMPLE_DIR)!r}, '--budget', '2000'])\n"
        "assert code == 0, code\n"
        f"late = [m for m in {NOT_FOR_A_PACKET!r} if m in sys.modules]\n"
        "assert not late, late\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", check], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "# Context Packet" in done.stdout
