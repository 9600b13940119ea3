#!/usr/bin/env bash
# README command 1: install ctx-lab into .venv and open JupyterLab (on DIR, default this repository).
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

# scripts/lab.sh [DIR]: serve DIR (default: this repository, where the notebooks and the example
# project are) with hidden files allowed and shown, so .context/ is visible in the file browser.
ROOT="$PWD"
if [ $# -gt 0 ] && [ -d "$1" ]; then ROOT="$(cd "$1" && pwd)"; shift; fi
settings="$VENV/share/jupyter/lab/settings"
mkdir -p "$settings"
cat > "$settings/overrides.json" <<'JSON'
{"@jupyterlab/filebrowser-extension:browser": {"showHiddenFiles": true}}
JSON
args=(--ServerApp.ip=127.0.0.1 --ServerApp.root_dir="$ROOT" --ContentsManager.allow_hidden=True)
if [ "$(id -u)" = 0 ]; then args+=(--allow-root); fi
open_first=()
if [ -f "$ROOT/notebooks/01_quickstart.ipynb" ]; then open_first=("$ROOT/notebooks/01_quickstart.ipynb"); fi
echo "==> opening JupyterLab on $ROOT (Ctrl-C to stop)"
exec "$VENV/bin/jupyter" lab "${args[@]}" "${open_first[@]}" "$@"
