"""Example projects shipped with ctx_lab, so docs, notebooks and tests never need the network
or drift with the calendar."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

__all__ = [
    "BUSY_DIR",
    "EXAMPLE_DIR",
    "EXAMPLE_NOW",
    "RECORDED_DIR",
    "SESSIONS_DIR",
    "example_path",
]

EXAMPLE_DIR = Path(__file__).resolve().parent / "tidepool"
# A generated, busy project in today's layout (theme folders, steering, ~250 entries), written
# by scripts/make_busy_example.py; its "today" is EXAMPLE_NOW too.
BUSY_DIR = Path(__file__).resolve().parent / "busy"
# Recorded sessions (a Claude Code session, an OpenAI Chat Completions log) with generated usage,
# written by scripts/make_sessions.py: notebook 06, the replay tests and the bench read them.
SESSIONS_DIR = Path(__file__).resolve().parent / "sessions"
# Real recordings from public repositories, unchanged, their licences beside them (SOURCES.md
# there): long Claude Code sessions with their sub-agents (marot/spotter), Claude Code 2.0–2.1
# and Gemini CLI sessions (codemie-ai/codemie-code), VCR cassettes of the Anthropic and OpenAI
# APIs (pydantic/pydantic-ai). The notebooks teach with them; nothing in ctx_lab was fitted on them.
RECORDED_DIR = Path(__file__).resolve().parent / "recorded"
# The example's own "today": entry ages and scores are computed against it.
EXAMPLE_NOW = datetime(2026, 6, 15, 12, 0, 0, tzinfo=UTC)


def example_path() -> Path:
    """The example project directory (it holds ``.context/``)."""
    return EXAMPLE_DIR
