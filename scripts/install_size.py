"""How big an install of ctx-lab is: packages and megabytes, from fresh virtual environments.

    python scripts/install_size.py              # builds two venvs under a temporary folder
    python scripts/install_size.py --keep DIR   # ... under DIR, kept for inspection

Each venv gets one ``pip install`` of this checkout (``.`` for the core, ``.[lab]`` for the
lab; the JavaScript build skipped: the prebuilt extension adds about 1 MB to a wheel), at the
versions of ``scripts/constraints.txt``. Counted: the distributions installed beside pip
(ctx-lab included) and the bytes of the files their RECORDs list. docs/install.md quotes what
this prints; it needs the network (PyPI) and takes a few minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TARGETS = {"core": ".", "lab": ".[lab]"}
BASE = {"pip", "setuptools", "wheel"}

COUNT = r"""
import json, os
from importlib.metadata import distributions
rows = []
for dist in distributions():
    name = dist.metadata["Name"]
    size = 0
    for f in dist.files or []:
        try:
            size += os.path.getsize(dist.locate_file(f))
        except OSError:
            pass
    rows.append((name, size))
print(json.dumps(rows))
"""


def measure(venv: Path, target: str) -> dict[str, object]:
    """Install ``target`` into a new venv at ``venv``; its package count and size."""
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    env = {**os.environ, "SKIP_JUPYTER_BUILDER": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    subprocess.run(
        [python, "-m", "pip", "install", "-q", "-c", "scripts/constraints.txt", target],
        check=True,
        cwd=REPO,
        env=env,
    )
    out = subprocess.run([python, "-c", COUNT], check=True, capture_output=True, text=True)
    rows = [(n, s) for n, s in json.loads(out.stdout) if n.lower() not in BASE]
    biggest = sorted(rows, key=lambda r: -r[1])[:8]
    return {
        "packages": len(rows),
        "megabytes": round(sum(s for _, s in rows) / 1e6, 1),
        "biggest": [f"{n} {s / 1e6:.1f} MB" for n, s in biggest],
    }


def main(argv: list[str] | None = None) -> int:
    """Measure the core and the lab installs and print them as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="make the venvs under this folder, kept")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        result = {name: measure(root / name, target) for name, target in TARGETS.items()}
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
