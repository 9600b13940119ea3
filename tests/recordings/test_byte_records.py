"""Recordings are read a line at a time from their bytes — never the whole file as one string,
which takes up to four bytes a character when one character needs them — and give exactly the
records the text path gives; anything else (a BOM, one document over several lines, bytes that
are not UTF-8) goes the text path, as before."""

from __future__ import annotations

import gzip
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


def test_a_long_session_is_read_within_four_times_its_size() -> None:
    """8463c716 (2.9 MB, one character beyond the BMP: its text as one string is 11 MB): the
    read peaks at 11 MB of Python objects, where the text path peaked at 33."""
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
    assert peak <= 4 * path.stat().st_size, peak
