"""Round 3 of the attack on the surfaces that arrived since the last one: each finding of the
hardening issue (N1–N20) with the test that reproduces it."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from ctx_lab.cli import main as cli_main
from ctx_lab.errors import CtxLabError
from ctx_lab.files import write_output

pytestmark = pytest.mark.hardening  # a theme of the hardening rounds


def test_output_into_a_fifo_is_written_in_place(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []

    def reader() -> None:
        with open(fifo, "rb") as handle:
            received.append(handle.read())

    thread = threading.Thread(target=reader)
    thread.start()
    for _ in range(200):  # the reader must have the FIFO open before we write
        try:
            write_output(fifo, "hello\n")
            break
        except CtxLabError:
            threading.Event().wait(0.01)
    thread.join(5)
    assert received == [b"hello\n"] and stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_output_refuses_a_fifo_nobody_reads_a_directory_and_a_socket(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(CtxLabError, match="nothing reads the FIFO"):
        write_output(fifo, "x")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    with pytest.raises(CtxLabError, match="a directory"):
        write_output(tmp_path, "x")
    import socket

    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "s"))
    try:
        with pytest.raises(CtxLabError, match="a socket"):
            write_output(tmp_path / "s", "x")
    finally:
        sock.close()


def test_output_writes_through_a_symlink_and_honours_the_umask(tmp_path: Path) -> None:
    real = tmp_path / "real.md"
    real.write_text("old")
    real.chmod(0o640)
    link = tmp_path / "link.md"
    link.symlink_to(real)
    write_output(link, "new")
    assert link.is_symlink() and real.read_text() == "new"
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    previous = os.umask(0o022)
    try:
        write_output(tmp_path / "fresh.md", "x")
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "fresh.md").stat().st_mode) == 0o644


def test_the_cli_refuses_a_directory_as_its_output(tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    out.mkdir()
    assert cli_main(["packet", "--example", "--budget", "800", "-o", str(out)]) == 1
    assert "it is a directory" in capsys.readouterr().err
    assert out.is_dir() and not list(out.iterdir())
