"""ctx_lab/files.py, the one file-access layer: confinement, binary sniffing, bounded reads."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from paths import TESTS

from ctx_lab.errors import FileTooLarge, InputFileError, PathOutsideRoot
from ctx_lab.files import (
    MAX_FILE_BYTES_ENV,
    SNIFF_BYTES,
    confine,
    decode_text,
    is_binary,
    read_bytes,
    read_text,
    write_atomic,
)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "f.txt").write_text("inside\n")
    (tmp_path / "secret.txt").write_text("secret\n")
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "secret.txt", root / "file-link")
    os.symlink(tmp_path / "elsewhere", root / "dir-link")
    os.symlink(root / "sub" / "f.txt", root / "inner-link")
    return root


def test_confine_accepts_what_stays_inside(tree: Path) -> None:
    assert confine(tree, "sub/f.txt") == tree / "sub" / "f.txt"
    assert confine(tree, "sub/../sub/f.txt") == tree / "sub" / "f.txt"
    assert confine(tree, tree / "sub") == tree / "sub"
    assert confine(tree, "inner-link") == tree / "sub" / "f.txt"  # a symlink that stays inside
    assert confine(tree, "not/there.txt") == tree / "not" / "there.txt"  # the caller says 404
    assert confine(tree, ".") == tree


@pytest.mark.parametrize(
    "escape",
    [
        "../secret.txt",
        "sub/../../secret.txt",
        "file-link",
        "dir-link/anything",
        "dir-link",
        "/etc/passwd",
        "~",
        "~/x",
        "sub/\x00f.txt",
    ],
)
def test_confine_refuses_every_way_out(tree: Path, escape: str) -> None:
    with pytest.raises(PathOutsideRoot):
        confine(tree, escape, what="id")


def test_confine_refuses_fifos_without_opening_them(tree: Path) -> None:
    os.mkfifo(tree / "pipe")
    with pytest.raises(PathOutsideRoot, match="regular file"):
        confine(tree, "pipe")


def test_reading_a_fifo_does_not_block(tree: Path) -> None:
    os.mkfifo(tree / "pipe")
    outcome: list[BaseException] = []

    def attempt() -> None:
        try:
            read_bytes(tree / "pipe")
        except BaseException as exc:  # the thread reports whatever it saw
            outcome.append(exc)

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(timeout=5)
    assert not worker.is_alive(), "read_bytes blocked on a FIFO"
    assert isinstance(outcome[0], InputFileError) and "not a regular file" in str(outcome[0])


@given(st.lists(st.sampled_from(["..", ".", "sub", "f.txt", "dir-link", "x", "/"]), max_size=6))
def test_confine_never_returns_a_path_outside(parts: list[str]) -> None:
    root = _HYPOTHESIS_ROOT
    candidate = "/".join(parts)
    try:
        found = confine(root, candidate)
    except PathOutsideRoot:
        return
    assert found == root or root in found.parents


_HYPOTHESIS_ROOT = TESTS / "fixtures"


def test_binary_sniffing_looks_past_the_first_8_kib(tmp_path: Path) -> None:
    # the shape of a real Illustrator file's body: text-like for 20 KiB, then binary
    body = b"%%AI8_CreatorVersion: 27\n" * 900
    data = body[:20_539] + b"\x00\x01\x02binary tail" * 100
    assert data.index(b"\x00") == 20_539
    (tmp_path / "art.ai").write_bytes(data)
    assert is_binary(data) and is_binary(tmp_path / "art.ai")


@pytest.mark.parametrize(
    "data",
    [
        b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n",
        b"\x89PNG\r\n\x1a\n" + b"a" * 100,
        b"PK\x03\x04" + b"a" * 100,
        b"\x7fELF\x02\x01\x01",
        b"SQLite format 3\x00",
        bytes(range(1, 32)) * 40,  # control characters, no NUL
        bytes([0x80 + (i % 120) for i in range(3000)]),  # not UTF-8, mostly high bytes
    ],
)
def test_binary_data_is_recognised(data: bytes) -> None:
    assert is_binary(data)


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"plain text\n" * 1000,
        "naïve café — ünïcödé\n".encode() * 500,
        "caf\xe9 cr\xe8me\n".encode("latin-1") * 50,  # Latin-1 text is text, decoded with a warning
        "\ufeffwith a BOM\n".encode(),
        "utf-16 text\n".encode("utf-16"),
        ("x" * (SNIFF_BYTES - 1)).encode() + "é".encode(),  # a character cut by the sample
        b"\x1b[31mred\x1b[0m log line\n" * 200,  # ANSI colours in a log
    ],
)
def test_text_is_not_binary(data: bytes) -> None:
    assert not is_binary(data)


def test_utf16_with_bom_decodes() -> None:
    assert decode_text("héllo\n".encode("utf-16"), "f", []) == "héllo\n"


def test_read_limit_names_itself_and_how_to_raise_it(tmp_path: Path, monkeypatch) -> None:
    big = tmp_path / "big.txt"
    big.write_bytes(b"x" * 2000)
    with pytest.raises(FileTooLarge, match=MAX_FILE_BYTES_ENV) as info:
        read_text(big, limit=1000)
    assert "1,000-byte file limit" in str(info.value)
    monkeypatch.setenv(MAX_FILE_BYTES_ENV, "1500")
    with pytest.raises(FileTooLarge):
        read_bytes(big)
    monkeypatch.setenv(MAX_FILE_BYTES_ENV, "4000")
    assert len(read_bytes(big)) == 2000


def test_read_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="no such file"):
        read_bytes(tmp_path / "missing.txt")
    with pytest.raises(InputFileError, match="is a directory"):
        read_bytes(tmp_path)


def test_write_atomic_leaves_no_partial_file(tmp_path: Path) -> None:
    target = write_atomic(tmp_path / "out.json", "{}\n")
    assert target.read_text() == "{}\n" and [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_real_paths_agree_with_real_path_through_links(tree: Path, tmp_path: Path) -> None:
    """The memo resolves each directory once and gives what real_path gives: for files, for
    links to files inside and outside, for links to directories, '..' and missing names."""
    from ctx_lab.files import RealPaths, display_path, real_path

    root = tree
    (root / "sub" / "deeper").mkdir()
    (root / "sub" / "deeper" / "g.py").write_text("x = 1\n")
    os.symlink(root / "sub", root / "sub-link")
    os.symlink("loop-b", root / "loop-a")
    os.symlink("loop-a", root / "loop-b")
    names = [
        root / "sub" / "f.txt",
        root / "file-link",
        root / "inner-link",
        root / "dir-link",
        root / "sub-link" / "f.txt",
        root / "sub-link" / "deeper" / "g.py",
        root / "sub" / ".." / "sub" / "f.txt",
        root / "sub" / "missing.txt",
        root / "sub" / "..",
        root,
    ]
    paths = RealPaths()
    for _ in range(2):  # the second time from the memo
        for name in names:
            assert paths(name) == real_path(name), name
            assert paths.display(name, root) == display_path(name, root), name
    with pytest.raises(InputFileError):
        real_path(root / "loop-a")
    with pytest.raises(InputFileError):
        paths(root / "loop-a")  # a link loop is refused the same way
    # relative names resolve from the working directory, as real_path's do
    cwd = os.getcwd()
    try:
        os.chdir(root / "sub")
        assert paths("f.txt") == real_path("f.txt") == (root / "sub" / "f.txt").resolve()
    finally:
        os.chdir(cwd)


def test_one_identity_for_a_file_version(tmp_path: Path) -> None:
    """``files.identity``: equal for an unchanged file, different once it changes; its token is
    what a signature lists."""
    import os

    from ctx_lab.files import identity

    path = tmp_path / "a.md"
    path.write_text("one")
    first = identity(path)
    assert identity(path) == first and first.size == 3 and first.path == os.fspath(path)
    os.utime(path, ns=(first.mtime_ns + 1_000_000_000, first.mtime_ns + 1_000_000_000))
    second = identity(path)
    assert second != first and second.token() == f"3:{first.mtime_ns + 1_000_000_000}"


def test_file_identity_is_computed_in_one_place() -> None:
    """No module but ``files`` reads a file's inode or modification time to tell versions apart
    (the read cache's eviction order aside)."""
    import re

    from paths import REPO

    allowed = {"files.py", "_disk_cache.py"}
    found = [
        str(p.relative_to(REPO))
        for p in (REPO / "ctx_lab").rglob("*.py")
        if p.name not in allowed and re.search(r"\bst_(ino|mtime_ns)\b", p.read_text("utf-8"))
    ]
    assert not found
