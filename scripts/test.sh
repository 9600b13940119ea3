#!/usr/bin/env bash
# README command 2: the whole test suite in its own virtual environment.
# Needs: Debian/Ubuntu (or any Linux) with Python >= 3.11 and its venv module. Run from anywhere.
#   bash scripts/test.sh            everything: lint, types, unit, server, kernel, browser, notebooks
#   bash scripts/test.sh --fast     the fast tier: lint, types and the tests not marked kernel,
#                                   slow or browser (no Chromium, no JS build, no notebooks)
# Further arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."

FAST=0
if [ "${1:-}" = "--fast" ]; then
  FAST=1
  shift
  export SKIP_JUPYTER_BUILDER="${SKIP_JUPYTER_BUILDER:-1}"
fi

PYTHON="${PYTHON:-python3}"
VENV="${CTX_LAB_TEST_VENV:-.venv-test}"

"$PYTHON" - <<'PY' || { echo "ctx-lab tests need Python >= 3.11 (set PYTHON=/path/to/python3.11)" >&2; exit 1; }
import sys, venv  # noqa: F401  (venv must exist too)
sys.exit(0 if sys.version_info >= (3, 11) else 1)
PY

if [ "${CTX_LAB_FRESH:-0}" = 1 ]; then rm -rf "$VENV"; fi
if [ ! -x "$VENV/bin/python" ]; then
  echo "==> creating $VENV"
  "$PYTHON" -m venv "$VENV"
fi
PY="$VENV/bin/python"

# The browser tests drive Debian's Chromium (never a downloaded browser).
if [ "$FAST" = 0 ] && ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    echo "==> installing chromium with apt-get"
    SUDO=""
    if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
  else
    echo "warning: no apt-get; install Chromium yourself for the browser tests" >&2
  fi
fi
echo "==> installing ctx-lab with its test extras"
"$PY" -m pip install --quiet --disable-pip-version-check --upgrade pip
"$PY" -m pip install --quiet --disable-pip-version-check -c scripts/constraints.txt -e ".[test]"

echo "==> ruff lint"
"$PY" -m ruff check ctx_lab tests bench
echo "==> ruff format check"
"$PY" -m ruff format --check ctx_lab tests bench
echo "==> mypy (core)"
"$PY" -m mypy

if [ "$FAST" = 1 ]; then
  echo "==> pytest, fast tier (not kernel, slow or browser)"
  export HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}"
  set +e
  "$PY" -m pytest tests -q -m "not kernel and not slow and not browser" "$@"
  status=$?
  set -e
  if [ "$status" -eq 5 ]; then
    echo "pytest collected no tests: the suite is missing, which is a failure" >&2
    exit 1
  fi
  exit "$status"
fi

echo "==> stylelint, prettier and eslint (labextension)"
JLPM="$(cd "$(dirname "$VENV/bin/jlpm")" && pwd)/jlpm"
(
  cd labextension
  [ -d node_modules ] || "$JLPM" install
  "$JLPM" run lint:check
)

echo "==> pytest (unit, server, kernel, browser and nbval notebook tests)"
export HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}"
set +e
"$PY" -m pytest tests notebooks --nbval-lax --nbval-sanitize-with notebooks/sanitize.cfg "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: the suite is missing, which is a failure" >&2
  exit 1
fi

# Stored notebook outputs may not depend on the day they were produced: run the notebooks again
# with every kernel's wall clock three years ahead (time-machine, from an IPython startup file).
SHIFT_DAYS="${CTX_LAB_CLOCK_SHIFT_DAYS:-1096}"
echo "==> nbval notebooks again with the clock ${SHIFT_DAYS} days ahead"
shifted="$("$PY" tests/clock/ipython_dir.py)"
set +e
IPYTHONDIR="$shifted" CTX_LAB_CLOCK_SHIFT_DAYS="$SHIFT_DAYS" "$PY" -m pytest notebooks -q \
  --nbval-lax --nbval-sanitize-with notebooks/sanitize.cfg
shifted_status=$?
set -e
rm -rf "$shifted"
if [ "$shifted_status" -ne 0 ]; then
  echo "notebooks fail with the clock ${SHIFT_DAYS} days ahead: a stored output depends on the day" >&2
  [ "$status" -ne 0 ] || status=1
fi
exit "$status"
