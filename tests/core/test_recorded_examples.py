"""The real recordings that ship with ctx_lab (``ctx_lab.examples.RECORDED_DIR``): every file
has its source and licence, every folder its licence text, and each reads as a session."""

from __future__ import annotations

import re

import pytest

from ctx_lab.examples import RECORDED_DIR
from ctx_lab.recordings import load_transcript

SOURCES = RECORDED_DIR / "SOURCES.md"
FILES = sorted(
    p for p in RECORDED_DIR.rglob("*") if p.is_file() and p.name not in ("LICENSE", "SOURCES.md")
)


def test_every_shipped_recording_is_listed_with_its_source() -> None:
    text = SOURCES.read_text()
    assert FILES, RECORDED_DIR
    for path in FILES:
        # named in the tables by its file name (a sub-agent's as `<id>…/subagents/<name>`)
        assert f"{path.name}`" in text, f"{path.relative_to(RECORDED_DIR)} is not in SOURCES.md"
    for folder in sorted(p for p in RECORDED_DIR.iterdir() if p.is_dir()):
        assert (folder / "LICENSE").is_file(), folder.name
        owner, repository = folder.name.split("__")
        assert f"{owner}/{repository}" in text, folder.name
        assert re.search(rf"{owner}/{repository},\s+commit\s+[0-9a-f]{{40}}", text), folder.name


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(RECORDED_DIR)))
def test_every_shipped_recording_reads_as_a_session_with_calls(path) -> None:  # type: ignore[no-untyped-def]
    assert load_transcript(path).calls, path
