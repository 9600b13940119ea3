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
# [lab]: JupyterLab, the server extension, reading and skeletons; [notebook]: pandas, matplotlib,
# widgets; [dask]: notebook 07's LocalCluster and Parquet output;
# [capture]: notebook 08's recording proxy; [mcp]: ctx-lab mcp serve, for an agent beside the lab
echo "==> installing ctx-lab with the lab, notebook, dask, capture and mcp extras"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -c scripts/constraints.txt -e ".[lab,notebook,dask,capture,mcp]"

# scripts/lab.sh [DIR]: serve DIR (default: this repository, where the notebooks and the example
# project are). Hidden files are served and shown so .context/ is visible; the clutter a checkout
# holds (.git, virtualenvs, caches, node_modules) is hidden by the server for this venv only.
ROOT="$PWD"
if [ $# -gt 0 ] && [ -d "$1" ]; then ROOT="$(cd "$1" && pwd)"; shift; fi

# The committed notebooks/ are the test suite's fixtures (nbval compares their stored outputs), so
# the lab never opens them: it works on copies in my-notebooks/ (git ignores it), made from
# notebooks/ when absent. A notebook missing there (deleted, or new in notebooks/) is copied
# again; one that is there is yours and never overwritten. Delete my-notebooks/ to start over.
WORK="my-notebooks"
HIDE_ORIGINALS=""
if [ "$ROOT" = "$PWD" ] && [ -d notebooks ]; then
  mkdir -p "$WORK"
  copied=()
  for source in notebooks/*.ipynb; do
    name="$(basename "$source")"
    if [ ! -e "$WORK/$name" ]; then cp "$source" "$WORK/$name"; copied+=("$name"); fi
  done
  if [ -d notebooks/data ]; then
    mkdir -p "$WORK/data"
    for source in notebooks/data/*; do
      [ -e "$WORK/data/$(basename "$source")" ] || cp -R "$source" "$WORK/data/"
    done
  fi
  if [ "${#copied[@]}" -gt 0 ]; then
    echo "==> working copies of the notebooks in $WORK/: ${copied[*]}"
  else
    echo "==> your notebooks are in $WORK/ (delete one to get a fresh copy from notebooks/)"
  fi
  HIDE_ORIGINALS='"notebooks", '
fi
settings="$VENV/share/jupyter/lab/settings"
mkdir -p "$settings"
cat > "$settings/overrides.json" <<'JSON'
{"@jupyterlab/filebrowser-extension:browser": {"showHiddenFiles": true}}
JSON
server_config="$VENV/etc/ctx-lab-lab.py"
cat > "$server_config" <<PY
# written by scripts/lab.sh: hidden files are served (so .context/ shows), a checkout's clutter not
# (nor, when this repository is served, the notebooks/ fixtures: the lab works in $WORK/)
c.ContentsManager.allow_hidden = True
c.ContentsManager.hide_globs = [
    ${HIDE_ORIGINALS}"__pycache__", "*.pyc", "*.pyo", ".DS_Store", "*~", ".git", ".hg", ".svn", ".venv*", "venv",
    "node_modules", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".tox", ".ipynb_checkpoints",
    ".cache", ".ci", ".hypothesis",
]
PY

PORT="${CTX_LAB_PORT:-$("$VENV/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}"
TOKEN="${CTX_LAB_TOKEN:-$("$VENV/bin/python" -c 'import secrets; print(secrets.token_hex(24))')}"
start="lab"
if [ -n "$HIDE_ORIGINALS" ] && [ -f "$ROOT/$WORK/01_quickstart.ipynb" ]; then
  start="lab/tree/$WORK/01_quickstart.ipynb"
fi
args=(--ServerApp.ip=127.0.0.1 --ServerApp.port="$PORT" --ServerApp.port_retries=0
      --ServerApp.root_dir="$ROOT" --IdentityProvider.token="$TOKEN"
      --ServerApp.default_url="/$start" --config="$server_config")
if [ "$(id -u)" = 0 ]; then args+=(--allow-root); fi
echo "==> opening JupyterLab on $ROOT (Ctrl-C to stop)"
echo
echo "    Open the quickstart:  http://127.0.0.1:$PORT/$start?token=$TOKEN"
echo
exec "$VENV/bin/jupyter" lab "${args[@]}" "$@"
