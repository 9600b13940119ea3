#!/usr/bin/env bash
# README command 1: install ctx-lab into .venv and open JupyterLab on the tutorial notebooks.
# Needs: Debian/Ubuntu (or any Linux) with Python >= 3.11 and its venv module. Run from anywhere.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
VENV="${CTX_LAB_VENV:-.venv}"

"$PYTHON" - <<'PY' || { echo "ctx-lab needs Python >= 3.11 (set PYTHON=/path/to/python3.11)" >&2; exit 1; }
import sys, venv  # noqa: F401
sys.exit(0 if sys.version_info >= (3, 11) else 1)
PY

if [ ! -x "$VENV/bin/python" ]; then
  echo "==> creating $VENV"
  "$PYTHON" -m venv "$VENV"
fi
echo "==> installing ctx-lab with the notebook extras"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -c scripts/constraints.txt -e ".[notebook]"

args=(--ServerApp.ip=127.0.0.1 --ServerApp.root_dir="$PWD/notebooks")
if [ "$(id -u)" = 0 ]; then args+=(--allow-root); fi
echo "==> opening JupyterLab on notebooks/ (Ctrl-C to stop)"
exec "$VENV/bin/jupyter" lab "${args[@]}" "$PWD/notebooks/01_quickstart.ipynb" "$@"
