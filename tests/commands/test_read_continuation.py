"""Continuing a read where it stopped, as the result says to: in a kernel ``%ctx read … --cursor
@last`` goes on at the same chunk size (numbered on: "chunk 2 of N"), even without
``--max-chars``; in a shell the printed line is a whole ``ctx-lab read`` command — with the
chunk size and the cursor itself — that runs and reads the next chunk."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from ctx_lab.cli import main
from ctx_lab.commands import Invocation, invoke


@pytest.fixture
def manual(tmp_path: Path) -> Path:
    path = tmp_path / "manual.md"
    path.write_text("".join(f"Paragraph {i}: " + "words " * 40 + "\n\n" for i in range(60)))
    return path


def test_at_last_keeps_the_chunk_size_in_a_kernel(manual: Path) -> None:
    state: dict = {}

    def magic(*argv: str):  # type: ignore[no-untyped-def]
        return invoke(list(argv), Invocation(surface="magic", state=state, namespace={})).result

    root = ("--root", str(manual.parent))
    first = magic("read", str(manual), "--max-chars", "3000", *root)
    head = first.to_text().splitlines()[0]
    total = int(head.split(" of ")[1].split(",")[0])
    assert "chunk 1 of" in head and total > 4
    assert first.next_line() == (
        f"%ctx read {manual} --root {manual.parent} --max-chars 3000 --cursor @last"
    )
    second = magic("read", str(manual), "--cursor", "@last", *root)  # the size not repeated
    assert f"chunk 2 of {total}," in second.to_text().splitlines()[0]
    assert second.max_chars == 3000 and not second.cursor_reset


def test_the_shell_line_is_a_command_that_continues(
    manual: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["read", str(manual), "--max-chars", "3000", "--root", str(manual.parent)]) == 0
    out = capsys.readouterr().out
    line = out.rstrip().splitlines()[-1]
    assert line.startswith("(next chunk: ctx-lab read ") and "@last" not in line
    argv = shlex.split(line.removeprefix("(next chunk: ").removesuffix(")"))
    assert argv[:2] == ["ctx-lab", "read"] and "--max-chars" in argv and "--root" in argv
    assert main(argv[1:]) == 0
    assert "chunk 2 of" in capsys.readouterr().out.splitlines()[0]
