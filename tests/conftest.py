"""Shared test set-up: bounded hypothesis profiles and small helpers."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=200, deadline=None)
# the long fuzzing run: HYPOTHESIS_PROFILE=long bash scripts/test.sh -k "fuzz or property"
settings.register_profile(
    "long", max_examples=5000, deadline=None, suppress_health_check=list(HealthCheck)
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

REPO = Path(__file__).resolve().parent.parent

# Calibrations of the person running the tests never change what tests count, and tests never
# write to the real user config directory: set before any fixture (module-scoped ones too) runs;
# kernels that nbval starts inherit it. Tests that store calibrations use their own directory.
os.environ["CTX_LAB_CONFIG_DIR"] = tempfile.mkdtemp(prefix="ctx-lab-test-config-")


@pytest.fixture
def repo() -> Path:
    """The repository root."""
    return REPO


@pytest.fixture
def run_cli(capsys: pytest.CaptureFixture[str]):
    """Run ``ctx-lab`` in-process: returns (exit code, stdout, stderr)."""
    from ctx_lab.cli import main

    def run(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run


@pytest.fixture(autouse=True)
def _private_cache_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Keep the CLI's cursor key out of the real home directory."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "cache-home"))


@pytest.fixture(scope="session")
def ip():
    """An in-process IPython shell with ``%load_ext ctx_lab`` done."""
    from IPython.testing import globalipapp

    shell = globalipapp.start_ipython() or globalipapp.get_ipython()
    shell.run_line_magic("load_ext", "ctx_lab")
    return shell


@pytest.fixture
def counter_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A ``ctx_lab.counters`` plugin installed for this test (on sys.path and PYTHONPATH);
    the registry forgets it afterwards."""
    import sys

    from plugin_helpers import install_counter_plugin

    from ctx_lab.tokens import discover_counters

    site = install_counter_plugin(tmp_path / "site")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))
    )
    discover_counters(refresh=True)
    yield site
    monkeypatch.undo()
    sys.modules.pop("ctx_lab_words_plugin", None)
    discover_counters(refresh=True)
