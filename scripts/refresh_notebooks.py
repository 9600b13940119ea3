"""Re-execute tutorial notebooks in place so their committed outputs are current.

Usage: python scripts/refresh_notebooks.py [notebooks/NN_name.ipynb ...]   (default: all)
Run it after changing what a notebook shows; nbval then checks the new outputs.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent


def refresh(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    nb.metadata.pop("widgets", None)
    nbformat.write(nb, path)
    print(f"refreshed {path.relative_to(ROOT)}")


if __name__ == "__main__":
    targets = [Path(p).resolve() for p in sys.argv[1:]] or sorted(
        (ROOT / "notebooks").glob("*.ipynb")
    )
    for target in targets:
        refresh(target)
