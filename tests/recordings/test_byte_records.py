"""Recordings are read a line at a time from their bytes — never the whole file as one string,
which takes up to four bytes a character when one character needs them — and give exactly the
records the text path gives; anything else (a BOM, one document over several lines, bytes that
are not UTF-8) goes the text path, as before."""

from __future__ import annotations

import gzip
import importlib
import json
import tracemalloc
from pathlib import Path

import pytest
from paths import RECORDED, SHARED

from ctx_lab.files import decode_text
from ctx_lab.recordings.transcripts import load_transcript
from ctx_lab.recordings.transcripts._read import UNREAD_FIELDS, byte_records, records

REAL = SHARED / "real-data" / "transcripts"
FILES = sorted(p for p in [*REAL.rglob("*.json*"), *RECORDED.rglob("*.json*")] if p.is_file())


def _bytes(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name[:40])
def test_the_byte_path_gives_the_text_paths_records(path: Path) -> None:
    data = _bytes(path)
    made = byte_records(data)
    expected = records(decode_text(data, path.name, []))
    if made is None:  # one JSON document (a Gemini session, an OTLP file): the text path
        assert len(expected) == 1
        return
    assert made == expected
    assert not any(isinstance(v, dict) and set(UNREAD_FIELDS) & v.keys() for _, v in made)


def test_what_is_not_utf8_json_lines_goes_the_text_path() -> None:
    line = json.dumps({"type": "user", "message": {"content": "héllo"}}).encode()
    assert byte_records(line + b"\n" + line + b"\n") == [
        (1, json.loads(line)),
        (2, json.loads(line)),
    ]
    assert byte_records(b"\xef\xbb\xbf" + line) is None  # a BOM
    assert byte_records(b'{\n  "a": 1\n}\n') is None  # one document over several lines
    assert byte_records(line + b"\n" + b'{"a": "\xff"}\n') is None  # not UTF-8: the text says where
    assert byte_records(b"\n\n") is None


def test_a_long_session_is_read_within_two_and_a_half_times_its_size() -> None:
    """8463c716 (2.9 MB, one character beyond the BMP: its text as one string is 11 MB): the
    read peaks at 6.6 MB of Python objects (the file's bytes and its lines' records, Claude
    Code's bookkeeping dropped), where the text path peaked at 33 and the whole records at 11."""
    path = REAL / "marot__spotter" / "long" / "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
    if not path.exists():
        pytest.skip("../shared/real-data is absent")
    load_transcript(path)  # imports and caches first
    tracemalloc.start()
    try:
        load_transcript(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= 2.5 * path.stat().st_size, peak


CLAUDE_CODE = [p for p in FILES if b'"parentUuid"' in _bytes(p)[:200_000]]


@pytest.mark.parametrize("path", CLAUDE_CODE, ids=lambda p: p.name[:40])
def test_claude_codes_unread_bookkeeping_is_dropped_and_nothing_read_changes(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude Code's per-line bookkeeping (working directory, ids, branch, a progress line's
    output, a file-history snapshot) is not kept, and the session read is the one read with it
    kept."""
    _read = importlib.import_module("ctx_lab.recordings.transcripts._read")
    made = byte_records(_bytes(path)) or []
    kept = [v for _, v in made if isinstance(v, dict) and "parentUuid" in v]
    assert kept and not any(_read.CLAUDE_CODE_UNREAD & v.keys() for v in kept)
    assert not any("data" in v for v in kept if v.get("type") == "progress")
    compact = load_transcript(path)
    monkeypatch.setattr(_read, "CLAUDE_CODE_UNREAD", frozenset(UNREAD_FIELDS))
    monkeypatch.setattr(_read, "CLAUDE_CODE_UNREAD_OF_KIND", {})
    assert load_transcript(path) == compact


def test_another_formats_fields_of_the_same_names_are_kept() -> None:
    """Only a Claude Code line (``parentUuid`` and ``sessionId``) loses them: a pi session's
    ``cwd``, a Gemini session's ``sessionId``, an OTLP ``data`` stay."""
    lines = [
        {"type": "session", "id": "s1", "cwd": "/work", "version": 3},
        {"sessionId": "g1", "messages": [], "data": {"x": 1}},
        {"type": "progress", "data": {"kept": True}},
    ]
    made = byte_records(b"\n".join(json.dumps(v).encode() for v in lines) + b"\n")
    assert [v for _, v in made or []] == lines
