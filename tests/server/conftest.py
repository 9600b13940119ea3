"""pytest-jupyter's server fixtures, for this directory only (they include autouse fixtures
that the rest of the suite does not want)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pytest_jupyter.jupyter_server import *  # noqa: F403

from ctx_lab.examples import EXAMPLE_DIR


@pytest.fixture
def jp_server_config():
    """Enable the ctx_lab server extension."""
    return {"ServerApp": {"jpserver_extensions": {"ctx_lab": True}}}


@pytest.fixture
def project(jp_root_dir: Path) -> Path:
    """The example project and a few files under the server's root directory."""
    shutil.copytree(EXAMPLE_DIR / ".context", jp_root_dir / "proj" / ".context")
    (jp_root_dir / "proj" / "src").mkdir()
    (jp_root_dir / "proj" / "src" / "app.py").write_text(
        "import os\n\n\ndef main():\n    return os.getcwd()\n"
        + "".join(f"# line {i}\n" for i in range(100))
    )
    (jp_root_dir / "notes.md").write_text("# Notes\n\nFirst paragraph.\n")
    return jp_root_dir
