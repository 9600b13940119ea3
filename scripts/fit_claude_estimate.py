"""Fit ctx_lab's built-in Claude estimate (``ctx_lab/tokens/claude_estimate.json``): a
calibration of bytes/4 on every shared Claude Code session with usage (``../shared/real-data``,
whose SOURCES.md names each file's repository, commit and licence), then its check on the
held-back sessions of ``ctx_lab/examples/recorded/marot__spotter`` (never fitted on).

    python scripts/fit_claude_estimate.py            # rewrites the file; --check compares

tests/core/test_claude_estimate.py refits it and fails when it differs from the file.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "ctx_lab" / "tokens" / "claude_estimate.json"
REAL = REPO.parent / "shared" / "real-data"
HELD_BACK = REPO / "ctx_lab" / "examples" / "recorded" / "marot__spotter"
FITTED = datetime(2026, 12, 7, tzinfo=UTC)  # the day it was fitted: no stored date moves
# where the shared sessions come from (../shared/real-data/SOURCES.md, read 2026-12-07)
ORIGINS = {
    "marot__spotter": ("marot/spotter", "8cc42b0bd39d04e71e509d7d58e6782ab435329f", "MIT"),
    "codemie-ai__codemie-code": (
        "codemie-ai/codemie-code",
        "8e8d4ce5ad2dfae14cb26caf5d3cddebee929990",
        "Apache-2.0",
    ),
}


def _sessions(real: Path) -> list[Path]:
    """Every shared recording whose calls are Claude's and report usage."""
    from ctx_lab.recordings.transcripts import load_transcript

    found = []
    for path in sorted((real / "transcripts").rglob("*.json*")):
        if not path.is_file() or path.name.startswith("test_"):
            continue
        transcript = load_transcript(path)
        claude = any(c.model and c.model.startswith("claude") for c in transcript.calls)
        if claude and transcript.has_usage:
            found.append(path)
    return found


def _source(path: Path, real: Path) -> dict[str, str]:
    relative = path.relative_to(real)
    repository, commit, licence = ORIGINS[relative.parts[1]]
    return {
        "file": str(relative),
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "repository": repository,
        "commit": commit,
        "licence": licence,
    }


def _held_back(fitted: Any) -> dict[str, Any]:
    """The calibration's check on the held-back sessions: calls, coverage, width, error."""
    from ctx_lab.recordings import CalibrationEvaluation, evaluate_calibration
    from ctx_lab.recordings.transcripts import load_transcript

    rows: list[Any] = []
    with tempfile.TemporaryDirectory() as where:
        for packed in sorted(HELD_BACK.rglob("*.jsonl.gz")):
            target = Path(where) / packed.name.removesuffix(".gz")
            target.write_bytes(gzip.decompress(packed.read_bytes()))
            rows += evaluate_calibration(fitted, [load_transcript(target)]).rows
    report = CalibrationEvaluation(
        model=fitted.model, base=fitted.base, classes=(), rows=tuple(rows)
    )
    return {
        "sessions": "ctx_lab/examples/recorded/marot__spotter (marot/spotter, MIT)",
        "calls": len(rows),
        "inside_band": report.inside_band,
        "median_half_width": report.median_half_width,
        "median_abs_error": report.median_abs_error,
    }


def build(real: Path = REAL) -> dict[str, Any]:
    """The file's content, fitted afresh."""
    from ctx_lab.recordings import calibrate

    sessions = _sessions(real)
    fitted = calibrate(sessions, "bytes/4", model="claude", now=FITTED)
    stored = fitted.to_dict()
    stored["files"] = []  # the sources below say which files, relative to real-data
    stored.pop("saved_to", None)
    stored.pop("description", None)
    return {
        "about": "ctx_lab's built-in estimate of Claude's input tokens (ctx_lab.tokens."
        "_claude_estimate): bytes/4 calibrated on public Claude Code sessions with usage",
        "fitted": FITTED.date().isoformat(),
        "sources": [_source(p, real) for p in sessions],
        "held_back": _held_back(fitted),
        "calibration": stored,
    }


def text_of(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    parser.add_argument("--real-data", type=Path, default=REAL)
    args = parser.parse_args(argv)
    made = text_of(build(args.real_data))
    if args.check:
        if OUT.read_text(encoding="utf-8") != made:
            print(f"{OUT} is stale: run python scripts/fit_claude_estimate.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(made, encoding="utf-8")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
