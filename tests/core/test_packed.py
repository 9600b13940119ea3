"""Gzip-packed recordings: read as the text they pack, under the unpacked size limit, and a
damaged or oversized archive is a typed, located error."""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path

import pytest

from ctx_lab.errors import FileTooLarge, InputFileError
from ctx_lab.packed import read_unpacked_text, unpack
from ctx_lab.recordings.transcripts import load_transcript
from tests.paths import RECORDED

HELD_BACK = RECORDED / "codemie-ai__codemie-code"


def test_plain_text_passes_through(tmp_path: Path) -> None:
    plain = tmp_path / "a.jsonl"
    plain.write_text('{"a": 1}\n', encoding="utf-8")
    assert read_unpacked_text(plain) == '{"a": 1}\n'


def test_packed_text_is_unpacked_whatever_its_name(tmp_path: Path) -> None:
    packed = tmp_path / "no-suffix.jsonl"
    packed.write_bytes(gzip.compress("é\n".encode()))
    assert read_unpacked_text(packed) == "é\n"


def test_concatenated_members_are_read_as_gzip_reads_them() -> None:
    data = gzip.compress(b"one\n") + gzip.compress(b"two\n")
    assert unpack(data, "x.gz", 1 << 20) == b"one\ntwo\n"


def test_the_limit_counts_the_unpacked_bytes(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    bomb = tmp_path / "bomb.jsonl.gz"
    bomb.write_bytes(gzip.compress(b"x" * (4 << 20)))  # 4 MiB of x packs into a few KiB
    monkeypatch.setenv("CTX_LAB_MAX_RECORDING_BYTES", str(1 << 20))
    with pytest.raises(FileTooLarge, match=r"unpacks to more than.*CTX_LAB_MAX_RECORDING_BYTES"):
        read_unpacked_text(bomb)


@pytest.mark.parametrize("cut", [lambda d: d[: len(d) // 2], lambda d: d[:10] + b"\xff" * 40])
def test_a_damaged_archive_is_a_located_error(tmp_path: Path, cut) -> None:  # type: ignore[no-untyped-def]
    damaged = tmp_path / "damaged.jsonl.gz"
    damaged.write_bytes(cut(gzip.compress(b'{"a": 1}\n' * 1000)))
    with pytest.raises(InputFileError, match=r"damaged\.jsonl\.gz"):
        read_unpacked_text(damaged)


def test_a_packed_real_session_reads_as_the_plain_one(tmp_path: Path) -> None:
    packed = HELD_BACK / "session-9eda1058.jsonl.gz"
    plain = tmp_path / "session-9eda1058.jsonl"
    plain.write_bytes(zlib.decompress(packed.read_bytes(), wbits=31))
    a, b = load_transcript(packed), load_transcript(plain)
    assert [c.usage for c in a.calls] == [c.usage for c in b.calls]
    assert len(a.calls) == 5  # the hand count (tests/fixtures/README.md)
    assert a.messages == b.messages
