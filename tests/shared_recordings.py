"""The shared real recordings the tests read (``../shared/real-data/transcripts``): which of
them carry usage — every recorded session, not the request bodies beside the cassettes."""

from __future__ import annotations

from pathlib import Path

from paths import SHARED

from ctx_lab.recordings.transcripts import load_transcript

TRANSCRIPTS = SHARED / "real-data" / "transcripts"


def with_usage() -> list[Path]:
    """Every shared recording whose calls report usage, sorted (empty without ../shared)."""
    if not TRANSCRIPTS.is_dir():
        return []
    return sorted(
        p
        for p in TRANSCRIPTS.rglob("*.json*")
        if p.is_file() and not p.name.startswith("test_") and load_transcript(p).has_usage
    )


def claude_with_usage() -> list[Path]:
    """Every shared recording with usage whose calls are Claude's, sorted."""
    return [
        p
        for p in with_usage()
        if any(c.model and c.model.startswith("claude") for c in load_transcript(p).calls)
    ]


GEMINI = (
    TRANSCRIPTS / "codemie-ai__codemie-code" / "session-2026-01-16T11-01-file-ops-37b7abef.json"
)
MADE_UP = "made-up-model-9"


def made_up_recording(where: Path) -> Path:
    """The Gemini CLI recording with its model renamed to one no registry knows (skips the
    test without ../shared)."""
    import pytest

    if not GEMINI.is_file():
        pytest.skip("../shared/real-data is not here")
    path = where / "made-up.json"
    path.write_text(GEMINI.read_text(encoding="utf-8").replace("gemini-3-pro", MADE_UP))
    return path
