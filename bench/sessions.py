"""The world's shapes (issue 67): the session commands on the real long recordings, each in a
fresh process — its CPU time (user + system) and peak RSS — with the baseline beside:
``kvleak audit`` (the nearest peer, PyPI 0.12.0, in the bench's own environment) for
``ctx-lab cache``; the issue's own targets for ``anatomy --session``, ``check`` and the OTLP
export. Real files only: ``../shared/real-data`` (developers have it) and the held-back
sessions shipped in ``ctx_lab/examples/recorded`` (everyone has them)."""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ctx_lab.examples import RECORDED_DIR

REPO = Path(__file__).resolve().parents[1]
REAL = REPO.parent / "shared" / "real-data" / "transcripts"
LONG = REAL / "marot__spotter" / "long"
CODEX = (
    REAL / "codemie-ai__codemie-code"
    / "rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"
)  # fmt: skip
HELD = sorted((RECORDED_DIR / "marot__spotter").glob("*.jsonl.gz"))
RUNS = 3  # fresh processes per figure: the median is reported


@dataclass(frozen=True)
class Run:
    """One fresh process: CPU seconds (user + system) and peak RSS in MB."""

    cpu: float
    rss_mb: float


def run(argv: Sequence[str], out: Path | None = None) -> Run:
    """``argv`` in a fresh process (stdout to ``out`` or nowhere): its own CPU time and peak
    RSS, from ``wait4``'s resource usage of that child alone."""
    with open(out or os.devnull, "wb") as sink:
        child = subprocess.Popen(list(argv), stdout=sink, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode not in (0, 1):  # check exits 1 on findings
        raise RuntimeError(f"{' '.join(argv)} exited {child.returncode}")
    return Run(usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def median_run(argv: Sequence[str], out: Path | None = None, runs: int = RUNS) -> Run:
    made = [run(argv, out) for _ in range(runs)]
    return Run(statistics.median(r.cpu for r in made), statistics.median(r.rss_mb for r in made))


def compile_bytecode() -> None:
    """Compile the package's bytecode before a process is timed, as an installed package's is
    (pip compiles a wheel's modules at install; ``PYTHONDONTWRITEBYTECODE``, set on this machine
    and in CI, would otherwise have every fresh process recompile each edited module from
    source: 15–20 ms of a session command's CPU measured on 2026-12-08)."""
    import compileall

    import ctx_lab

    compileall.compile_dir(Path(ctx_lab.__file__).parent, quiet=1)


def ctx_lab(*args: str) -> list[str]:
    return [sys.executable, "-m", "ctx_lab", *args]


def kvleak() -> str | None:
    """The ``kvleak`` beside this Python (the test extra installs it), else on PATH."""
    beside = Path(sys.executable).parent / "kvleak"
    return str(beside) if beside.exists() else shutil.which("kvleak")


Add = Callable[..., None]  # Bench.session_row: name, seconds, target, passed, note, baseline


def cache_rows(add: Add, files: Sequence[Path], label: str) -> None:
    """``ctx-lab cache`` against ``kvleak audit`` of the same file, CPU time."""
    peer = kvleak()
    for path in files:
        ours = median_run(ctx_lab("cache", str(path)))
        theirs = median_run([peer, "audit", "--path", str(path), "--no-color"]) if peer else None
        add(
            f"sessions: cache of {label} {path.name[:8]} (CPU s, kvleak audit beside)",
            ours.cpu,
            "≤ kvleak audit's CPU",
            theirs is not None and ours.cpu <= theirs.cpu,
            f"{ours.rss_mb:.0f} MB peak; kvleak "
            + (f"{theirs.cpu:.2f} s, {theirs.rss_mb:.0f} MB" if theirs else "not installed"),
            theirs.cpu if theirs else None,
        )


def anatomy_rows(add: Add, files: Sequence[tuple[Path, float]], label: str) -> None:
    """``anatomy --session`` and ``check`` of each file: CPU time against its target, peak
    RSS beside."""
    for path, target in files:
        made = median_run(ctx_lab("anatomy", str(path), "--session"))
        add(
            f"sessions: anatomy --session of {label} {path.name[:8]} (CPU s)",
            made.cpu,
            f"≤ {target:g} s CPU, ≤ 120 MB",
            made.cpu <= target and made.rss_mb <= 120,
            f"{made.rss_mb:.0f} MB peak",
        )
        checked = median_run(ctx_lab("check", str(path)))
        add(
            f"sessions: check of {label} {path.name[:8]} (CPU s)",
            checked.cpu,
            "≤ 0.5 s CPU",
            checked.cpu <= 0.5,
            f"{checked.rss_mb:.0f} MB peak",
        )


def otlp_rows(add: Add, files: Sequence[Path], floor_mb: float, label: str) -> None:
    """The OTLP export (default content) of each file: CPU, peak RSS over the CLI's floor
    against 3× the file, and the output's size."""
    with tempfile.TemporaryDirectory(prefix="ctx-otlp-") as tmp:
        for path in files:
            out = Path(tmp) / f"{path.name}.otlp.json"
            made = median_run(ctx_lab("anatomy", str(path), "--session", "--format", "otlp"), out)
            size = _unpacked(path) / 2**20
            written = out.stat().st_size / 2**20
            over = made.rss_mb - floor_mb
            add(
                f"sessions: OTLP export of {label}{path.name[:8]} (CPU s)",
                made.cpu,
                "≤ 1 s CPU, peak RSS ≤ 3× the file over the floor, ≤ 8 MB out",
                made.cpu <= 1 and over <= 3 * size and written <= 8,
                f"{made.rss_mb:.0f} MB peak ({over:.0f} MB over the {floor_mb:.0f} MB floor; "
                f"file {size:.1f} MB); {written:.1f} MB written",
            )


def _unpacked(path: Path) -> int:
    """The session's size as read (a ``.gz`` unpacked)."""
    if path.suffix == ".gz":
        import gzip

        return len(gzip.decompress(path.read_bytes()))
    return path.stat().st_size


def floor_mb() -> float:
    """The CLI's floor for a session command: the OTLP export of a 10 KB session."""
    tiny = REAL / "marot__spotter" / "short.jsonl"
    if not tiny.exists():
        tiny = RECORDED_DIR / "codemie-ai__codemie-code" / "incremental-simple-turn-2.jsonl.gz"
    return median_run(ctx_lab("anatomy", str(tiny), "--session", "--format", "otlp")).rss_mb


def all_rows(add: Add, quick: bool) -> None:
    """Every row this machine has the files for (the shared ones only where ../shared is)."""
    compile_bytecode()
    floor = floor_mb()
    shared = sorted(LONG.glob("*.jsonl")) if LONG.is_dir() else []
    held = HELD[:1] if quick else HELD
    cache_rows(add, shared, "shared")
    cache_rows(add, held, "held-back")
    targets = [(p, 0.5) for p in shared if p.name.startswith("ae4a77f8")]
    targets += [(CODEX, 0.3)] if CODEX.exists() else []
    anatomy_rows(add, targets, "shared")
    anatomy_rows(add, [(p, 0.5) for p in held], "held-back")
    otlp_rows(add, [p for p, _ in targets[:1]], floor, "shared ")
    otlp_rows(add, held, floor, "held-back ")
