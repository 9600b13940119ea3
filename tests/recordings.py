"""The shared real recordings the tests read (``../shared/real-data/transcripts``): which of
them carry usage — every recorded session, not the request bodies beside the cassettes."""

from __future__ import annotations

from pathlib import Path

from paths import SHARED

from ctx_lab.conversation.transcripts import load_transcript

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
