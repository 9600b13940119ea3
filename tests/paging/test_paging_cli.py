"""ctx-lab page / budget / read and their magics."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from read_helpers import make_pdf

FIVE = "line1\nline2\nline3\nline4\nline5\n"


@pytest.fixture
def root(tmp_path: Path, monkeypatch) -> Path:
    """The root, and the working directory: relative paths are taken from it, the root only
    confines."""
    (tmp_path / "five.txt").write_text(FIVE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_page_line_forms(run_cli, root: Path) -> None:
    for lines, expected in [("2-4", "line2\nline3\nline4"), ("4-", "line4\nline5"), ("3", "line3")]:
        code, out, _ = run_cli(
            "page", "five.txt", "--root", str(root), "--lines", lines, "--format", "json"
        )
        assert code == 0 and json.loads(out)["content"] == expected


def test_a_range_past_the_end_says_so(run_cli, root: Path) -> None:
    """Lines 7-9 of a five-line file: "past the end (5 lines)", never "lines 7-6"."""
    code, out, _ = run_cli("page", "five.txt", "--root", str(root), "--lines", "7-9")
    assert code == 0 and "nothing at line 7: past the end (5 lines)" in out
    assert "7-6" not in out


def test_page_state_file_holds_budget_and_limits(run_cli, root: Path) -> None:
    state = root / "state.json"
    args = ("page", "five.txt", "--root", str(root), "--state", str(state))
    assert run_cli(*args, "--max-pages", "2", "--lines", "1-2")[0] == 0
    saved = json.loads(state.read_text())
    assert saved["max_pages"] == 2 and saved["pages_used"] == 1
    code, _, err = run_cli(*args, "--max-pages", "9", "--lines", "3")
    assert code == 0 and "holds the limits" in err
    code, _, err = run_cli(*args, "--lines", "4")
    assert code == 1 and "exhausted" in err and "Traceback" not in err
    code, out, _ = run_cli("budget", "--state", str(state), "--format", "json")
    assert json.loads(out) == {
        "max_pages": 2,
        "max_tokens": 8000,
        "pages_used": 2,
        "tokens_used": saved["tokens_used"] + 2,
        "pages_remaining": 0,
        "tokens_remaining": 8000 - saved["tokens_used"] - 2,
        "severity": "bad",  # every page of the quota is used
    }
    code, out, _ = run_cli("budget")
    assert code == 0 and "max" in out and "8000" in out


def test_page_errors(run_cli, root: Path) -> None:
    code, _, err = run_cli("page", "missing.txt", "--root", str(root))
    assert code == 1 and "missing.txt" in err
    code, _, err = run_cli("page", "../etc/passwd", "--root", str(root))
    assert code == 1 and "outside" in err
    code, _, err = run_cli("page", "five.txt", "--root", str(root), "--lines", "5-2")
    assert code == 2 and "after end_line" in err
    code, _, err = run_cli("page", "five.txt", "--root", str(root), "--lines", "x-y")
    assert code == 2 and "A-B" in err


def test_read_walks_with_cursors_across_calls(run_cli, root: Path) -> None:
    text = "".join(f"sentence {i} of the document.\n" for i in range(100))
    (root / "doc.txt").write_text(text)
    pieces, cursor = [], None
    while True:
        extra = ("--cursor", cursor) if cursor else ()
        code, out, _ = run_cli(
            "read", "doc.txt", "--root", str(root), "--max-chars", "500", "--format", "json", *extra
        )
        data = json.loads(out)
        assert code == 0 and not data["cursor_reset"]
        pieces.append(data["content"])
        if not data["truncated"]:
            break
        cursor = data["next_cursor"]
    assert "".join(pieces) == text and len(pieces) > 3


def test_read_pdf_text_output(run_cli, root: Path) -> None:
    make_pdf(root / "r.pdf", ["First page text", "Second page text"])
    code, out, _ = run_cli("read", "r.pdf", "--root", str(root))
    assert code == 0 and "[pdf, application/pdf] pages 1–2 of 2" in out and "(end)" in out


def test_read_errors(run_cli, root: Path) -> None:
    (root / "x.bin").write_bytes(b"\x00\x01\x02")
    code, _, err = run_cli("read", "x.bin", "--root", str(root))
    assert code == 1 and "read supports text, HTML and PDF" in err
    code, _, err = run_cli("read", "/etc/hostname", "--root", str(root))
    assert code == 1 and "/etc/hostname: it is outside --root" in err
    code, _, err = run_cli("read", "five.txt", "--root", str(root), "--max-chars", "0")
    assert code == 2 and "max_chars" in err
    code, _, err = run_cli("read", "five.txt", "--root", str(root), "--cursor", "forged")
    assert code == 0


def test_paths_are_taken_from_the_working_directory_and_the_root_only_confines(
    run_cli, root: Path, monkeypatch
) -> None:
    """`--root .. ../scratch/x` reads what the shell means; the root does not re-anchor, and a
    path outside it names the flag that allows it."""
    (root / "scratch").mkdir()
    (root / "scratch" / "x.txt").write_text("scratch text\n")
    (root / "work").mkdir()
    monkeypatch.chdir(root / "work")
    code, out, err = run_cli("read", "../scratch/x.txt", "--root", "..")
    assert code == 0 and "scratch text" in out, err
    code, _, err = run_cli("read", "scratch/x.txt", "--root", "..")  # not re-anchored at the root
    assert code == 1 and "no such file" in err.lower()
    code, _, err = run_cli("read", "../scratch/x.txt")
    assert code == 1 and "outside the working directory" in err and "--root DIR" in err
    assert "../scratch/x.txt: it is outside" in err and str(root) not in err  # as typed
    code, _, err = run_cli("page", "x.txt", "--root", "../scratch")  # x.txt is work/x.txt
    assert code == 1 and "x.txt: it is outside --root ../scratch" in err
    code, out, _ = run_cli("page", "../scratch/x.txt", "--root", "..", "--format", "json")
    assert code == 0 and json.loads(out)["content"] == "scratch text"


def test_magics(root: Path, monkeypatch, ip) -> None:
    from ctx_lab.paging import PageResult, PagingBudget
    from ctx_lab.read import ReadResult

    monkeypatch.chdir(root)
    page = ip.run_line_magic("ctx", "page five.txt --lines 2-3")
    assert isinstance(page, PageResult) and page.content == "line2\nline3"
    assert "application/vnd.ctx-lab.page+json" in page._repr_mimebundle_()
    read = ip.run_line_magic("ctx", "read five.txt --max-chars 10")
    assert isinstance(read, ReadResult) and read.truncated
    assert "application/vnd.ctx-lab.read+json" in read._repr_mimebundle_()
    budget = ip.run_line_magic("ctx", "budget")
    assert isinstance(budget, PagingBudget)


def test_a_read_is_followed_from_cells_with_at_last_and_a_variable(root: Path, ip, capsys) -> None:
    text = "".join(f"sentence {i} of the document.\n" for i in range(60))
    (root / "doc.txt").write_text(text)
    first = ip.run_line_magic("ctx", "read doc.txt --max-chars 300")
    assert first.truncated and "--cursor @last" in first.to_text()
    pieces, result = [first.content], first
    while result.truncated:  # what a person does: run the next cell
        result = ip.run_line_magic("ctx", "read doc.txt --max-chars 300 --cursor @last")
        assert not result.cursor_reset
        pieces.append(result.content)
    assert "".join(pieces) == text
    capsys.readouterr()
    assert ip.run_line_magic("ctx", "read doc.txt --max-chars 300 --cursor @last") is None
    assert "was its end" in capsys.readouterr().err
    ip.user_ns["earlier"] = first
    again = ip.run_line_magic("ctx", "read doc.txt --max-chars 300 --cursor @earlier")
    assert again.content == pieces[1]
    # $c as people write it in IPython: %ctx takes its line as written, so $c names the
    # variable (it restarted at chunk 1 before)
    ip.user_ns["c"] = first.next_cursor
    dollar = ip.run_line_magic("ctx", "read doc.txt --max-chars 300 --cursor $c")
    assert dollar.content == pieces[1] and not dollar.cursor_reset
    ip.user_ns["c"] = first.next_cursor
    assert ip.run_line_magic("ctx", "read doc.txt --max-chars 300 --cursor @c").content == pieces[1]
    for bad, message in [
        ("@nope", "no variable nope"),
        ("@os.system", "use @last or @name"),
    ]:
        capsys.readouterr()
        assert ip.run_line_magic("ctx", f"read doc.txt --max-chars 300 --cursor {bad}") is None
        assert message in capsys.readouterr().err
    (root / "unread.txt").write_text("never read in this kernel\n")
    assert ip.run_line_magic("ctx", "read unread.txt --cursor @last") is None
    assert "no earlier read of unread.txt" in capsys.readouterr().err


def test_the_next_chunk_line_runs_as_shown_from_a_subfolder(
    root: Path, ip, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The line a read shows for its next chunk names the path as typed and repeats --root
    and --max-chars, so running it continues the read (and never leaks the absolute root)."""
    (root / "deep" / "er").mkdir(parents=True)
    (root / "doc.txt").write_text("".join(f"sentence {i} of the document.\n" for i in range(60)))
    monkeypatch.chdir(root / "deep" / "er")
    result = ip.run_line_magic("ctx", "read ../../doc.txt --root ../.. --max-chars 400")
    assert result.uri == "../../doc.txt"
    line = result.next_line()
    assert line == "%ctx read ../../doc.txt --root ../.. --max-chars 400 --cursor @last"
    assert result.to_dict()["next_line"] == line and str(root) not in line
    seen = [result.position["chunk"]]
    while result.truncated:
        result = ip.run_line_magic("ctx", result.next_line().removeprefix("%ctx "))
        assert not result.cursor_reset
        seen.append(result.position["chunk"])
    assert seen == list(range(1, result.position["chunks"] + 1))
    assert result.to_dict()["next_line"] is None
