"""Paginated reading of local files, HTML and PDFs: chunks, cursors, cache, limits, errors."""

from __future__ import annotations

import base64
import contextlib
import io
import json
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from read_helpers import make_pdf, walk

from ctx_lab.errors import (
    AccessDenied,
    CorruptDocument,
    LimitExceeded,
    UnsupportedContent,
    UsageError,
)
from ctx_lab.read import Reader
from ctx_lab.read._paginate import chunk_text, cut_point
from ctx_lab.tools import Toolbox, page_tool, read_tool

MARKER = re.compile(r"\[page \d+ of \d+(?:, continued)?\]\n")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_text_in_chunks_with_cursor(tmp_path: Path) -> None:
    text = "".join(f"line {i}: some words here\n" for i in range(200))
    (tmp_path / "t.txt").write_text(text)
    reader = Reader([tmp_path])
    chunks = walk(reader, "t.txt", 500)
    assert "".join(c.content for c in chunks) == text
    assert all(len(c.content) <= 500 for c in chunks)
    assert all(c.content.endswith("\n") for c in chunks)  # a line break in the last tenth
    assert chunks[0].kind == "text" and chunks[0].content_type == "text/plain"
    assert chunks[1].cache_hit and not chunks[0].cache_hit
    assert chunks[-1].next_cursor is None and not chunks[-1].truncated
    assert chunks[0].position == {
        "unit": "chars",
        "start": 0,
        "end": len(chunks[0].content),
        "total": len(text),
        "chunk": 1,
        "chunks": len(chunks),
    }


def test_cut_point_prefers_newline_then_space() -> None:
    assert cut_point("a" * 95 + "\n" + "b" * 10, 100) == 96
    assert cut_point("a" * 93 + " " + "b" * 10, 100) == 94
    assert cut_point("a" * 200, 100) == 100
    assert cut_point("a\n" + "b" * 200, 100) == 100  # the break is not in the last tenth
    assert chunk_text("abc", 0, 10).next_offset is None


def test_cursor_is_opaque_short_and_url_safe(tmp_path: Path) -> None:
    (tmp_path / "t.txt").write_text("x " * 5000)
    cursor = Reader([tmp_path]).read("t.txt", max_chars=100).next_cursor
    assert cursor and len(cursor) < 120 and re.fullmatch(r"[A-Za-z0-9_.-]+", cursor)
    body = cursor.split(".")[0]
    payload = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    assert payload["v"] == 1 and payload["k"] == "text" and "o" in payload and "c" in payload


def test_bad_cursors_restart(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha " * 1000)
    (tmp_path / "b.txt").write_text("beta " * 1000)
    reader = Reader([tmp_path])
    first = reader.read("a.txt", max_chars=100)
    forged = first.next_cursor[:-3] + ("AAA" if not first.next_cursor.endswith("AAA") else "BBB")
    foreign = reader.read("b.txt", max_chars=100).next_cursor
    other_reader = Reader([tmp_path]).read("a.txt", max_chars=100).next_cursor
    for bad in ("garbage", "!!!", "e30.AAAA", forged, foreign, other_reader, "x" * 600):
        r = reader.read("a.txt", bad, 100)
        assert r.cursor_reset and r.cursor_reason and r.content == first.content, bad


def test_changed_source_restarts_and_expired_cache_continues(tmp_path: Path) -> None:
    clock = Clock()
    f = tmp_path / "t.txt"
    f.write_text("one two three " * 100)
    reader = Reader([tmp_path], cache_ttl=60, clock=clock)
    first = reader.read("t.txt", max_chars=50)
    f.write_text("changed text " * 100)
    r = reader.read("t.txt", first.next_cursor, 50)
    assert r.cursor_reset and "changed" in r.cursor_reason
    again = reader.read("t.txt", max_chars=50)
    clock.now += 61
    r = reader.read("t.txt", again.next_cursor, 50)
    # the cache expired, but the text read again is provably the same (its hash is in the
    # cursor): the agent following next_cursor moves on instead of looping (hardening row 5)
    assert not r.cursor_reset and not r.cache_hit
    assert r.position["start"] == again.position["end"]


def test_cache_ttl_lru_and_size_bounds(tmp_path: Path) -> None:
    clock = Clock()
    for i in range(4):
        (tmp_path / f"{i}.txt").write_text(str(i) * 1000)
    reader = Reader([tmp_path], cache_entries=2, cache_bytes=2500, cache_ttl=10, clock=clock)
    reader.read("0.txt")
    reader.read("1.txt")
    reader.read("0.txt")  # 0 is now the most recently used
    reader.read("2.txt")  # evicts 1
    assert reader.read("0.txt").cache_hit and not reader.read("1.txt").cache_hit
    assert len(reader.cache) <= 2 and reader.cache.total_bytes <= 2500
    clock.now += 11
    assert not reader.read("0.txt").cache_hit


def test_roots_and_paths(tmp_path: Path) -> None:
    inside = tmp_path / "inside"
    inside.mkdir()
    (inside / "ok.txt").write_text("ok")
    (tmp_path / "secret.txt").write_text("secret")
    (inside / "link.txt").symlink_to(tmp_path / "secret.txt")
    reader = Reader([inside])
    assert reader.read("ok.txt").content == "ok"
    assert reader.read((inside / "ok.txt").as_uri()).content == "ok"
    for bad in (
        "../secret.txt",
        str(tmp_path / "secret.txt"),
        "link.txt",
        (tmp_path / "secret.txt").as_uri(),
    ):
        with pytest.raises(AccessDenied):
            reader.read(bad)


def test_max_chars_limits(tmp_path: Path) -> None:
    (tmp_path / "t.txt").write_text("a" * 50_000)
    reader = Reader([tmp_path])
    clamped = reader.read("t.txt", max_chars=1_000_000)
    assert len(clamped.content) == 20_000  # clamped, and said so
    assert (clamped.max_chars, clamped.max_chars_asked) == (20_000, 1_000_000)
    assert "over the limit" in clamped.to_text()
    assert reader.read("t.txt", max_chars=500).max_chars_asked is None
    for bad in (0, -5):
        with pytest.raises(ValueError):
            reader.read("t.txt", max_chars=bad)
    with pytest.raises(UsageError):
        reader.read("t.txt", max_chars="10")  # type: ignore[arg-type]


def test_unsupported_and_size_limit(tmp_path: Path) -> None:
    (tmp_path / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 100)
    (tmp_path / "big.txt").write_text("x" * 2000)
    reader = Reader([tmp_path], max_bytes=1000)
    with pytest.raises(UnsupportedContent, match="read supports text, HTML and PDF; got image/png"):
        reader.read("img.png")
    with pytest.raises(LimitExceeded):
        reader.read("big.txt")


def test_html_main_content_and_fallback(tmp_path: Path) -> None:
    article = (
        "<p>" + " ".join(f"Sentence number {i} about context windows." for i in range(60)) + "</p>"
    )
    page = (
        "<html><head><title>T</title><style>body{}</style></head><body>"
        "<nav><a href='/a'>Home</a> <a href='/b'>About</a></nav>"
        f"<article><h1>Paging large artifacts</h1>{article}</article>"
        "<footer>Copyright footer text</footer></body></html>"
    )
    (tmp_path / "article.html").write_text(page)
    links = (
        "<html><body><ul>"
        + "".join(f"<li><a href='/p{i}'>Page {i}</a></li>" for i in range(30))
        + "</ul></body></html>"
    )
    (tmp_path / "links.html").write_text(links)
    reader = Reader([tmp_path])
    r = reader.read("article.html", max_chars=20_000)
    assert r.kind == "html" and "Sentence number 59" in r.content
    assert "body{}" not in r.content and "<p>" not in r.content
    fallback = reader.read("links.html", max_chars=20_000).content
    assert "Page 0" in fallback and "Page 29" in fallback and "[Page 3](/p3)" in fallback


def test_pdf_chunks_hold_whole_pages(tmp_path: Path) -> None:
    texts = [f"Page {n} says hello. " + "word " * (20 * n) for n in range(1, 7)]
    make_pdf(tmp_path / "doc.pdf", texts)
    reader = Reader([tmp_path])
    doc, _ = reader.document("doc.pdf")
    assert len(doc.pages) == 6 and "Page 3 says hello" in doc.pages[2]
    chunks = walk(reader, "doc.pdf", 900)
    for chunk in chunks:
        assert chunk.kind == "pdf" and chunk.page_info["total_pages"] == 6
        assert len(chunk.content) <= 900
    stripped = "".join(MARKER.sub("", c.content) for c in chunks)
    assert stripped == "".join(p + "\n" for p in doc.pages)
    whole = [c for c in chunks if c.content.count("[page ") > 1]
    assert whole, "several short pages share a chunk"
    assert chunks[0].page_info["page_start"] == 1 and chunks[-1].page_info["page_end"] == 6


def test_long_pdf_page_is_split(tmp_path: Path) -> None:
    make_pdf(tmp_path / "long.pdf", ["lorem ipsum dolor " * 400, "short page"])
    reader = Reader([tmp_path])
    doc, _ = reader.document("long.pdf")
    chunks = walk(reader, "long.pdf", 1000)
    assert len(chunks) > 3
    assert chunks[1].page_info["page_start"] == chunks[1].page_info["page_end"] == 1
    assert "continued" in chunks[1].content
    assert "".join(MARKER.sub("", c.content) for c in chunks) == "".join(
        p + "\n" for p in doc.pages
    )


def test_corrupt_encrypted_and_too_many_pages(tmp_path: Path) -> None:
    from pypdf import PdfReader, PdfWriter

    (tmp_path / "bad.pdf").write_bytes(b"%PDF-1.4\nthis is not really a pdf\n")
    make_pdf(tmp_path / "ok.pdf", ["a", "b", "c"])
    writer = PdfWriter()
    for page in PdfReader(tmp_path / "ok.pdf").pages:
        writer.add_page(page)
    writer.encrypt("secret", algorithm="RC4-128")
    with open(tmp_path / "locked.pdf", "wb") as handle:
        writer.write(handle)
    reader = Reader([tmp_path], max_pdf_pages=2)
    with pytest.raises(CorruptDocument):
        reader.read("bad.pdf")
    with pytest.raises(CorruptDocument, match="encrypted"):
        reader.read("locked.pdf")
    with pytest.raises(LimitExceeded, match="3 pages"):
        reader.read("ok.pdf")


def test_agent_tools(tmp_path: Path) -> None:
    """The toolbox runs the MCP tools over a session of its own (one paging quota), with the
    declarations' schemas and checks, and the error payload REST and MCP send."""
    (tmp_path / "t.txt").write_text("hello world " * 50)
    (tmp_path / "a").write_text("l1\nl2\nl3")
    openai = read_tool("openai")
    assert (
        openai["function"]["name"] == "read" and "next_cursor" in openai["function"]["description"]
    )
    anthropic = page_tool("anthropic")
    assert anthropic["name"] == "page" and anthropic["input_schema"]["required"] == ["artifact_id"]
    box = Toolbox(tmp_path, max_pages=2)
    assert [d["name"] for d in box.definitions("anthropic")] == ["read", "page", "budget"]
    first = json.loads(box.handle_tool_call("read", {"uri": "t.txt", "max_chars": 100}))
    assert first["truncated"] and first["next_cursor"]
    second = json.loads(
        box.handle_tool_call(
            "read", json.dumps({"uri": "t.txt", "cursor": first["next_cursor"], "max_chars": 100})
        )
    )
    assert not second["cursor_reset"] and second["position"]["start"] == first["position"]["end"]
    paged = json.loads(
        box.handle_tool_call("page", {"artifact_id": "a", "start_line": 2, "end_line": 3})
    )
    assert paged["content"] == "l2\nl3" and paged["budget"]["pages_used"] == 1
    assert json.loads(box.handle_tool_call("budget", {}))["pages_remaining"] == 1  # its quota
    for name, args, needle in [
        ("nope", {}, "unknown tool"),
        ("read", "{not json", "not valid JSON"),
        ("read", {}, "read needs uri"),
        ("read", {"uri": "t.txt", "bogus": 1}, "unknown arguments"),
        ("page", {"artifact_id": "a", "start_line": 0}, "start_line"),
        ("page", {"artifact_id": "zzz"}, "no file 'zzz'"),
        ("read", {"uri": "../secret"}, "outside the allowed roots (.)"),  # the root not shown
    ]:
        error = json.loads(box.handle_tool_call(name, args))["error"]
        assert needle in error["message"] and error["status"] in (400, 403, 404), (name, error)


@given(st.text(alphabet=st.sampled_from(list("ab c\n\t→é日")), max_size=600), st.integers(1, 120))
def test_cursor_walk_reproduces_text(text: str, max_chars: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "t.txt").write_bytes(text.encode("utf-8"))
        reader = Reader([tmp])
        chunks = walk(reader, "t.txt", max_chars)
        assert "".join(c.content for c in chunks) == text.replace("\r", "\n")
        assert all(len(c.content) <= max_chars for c in chunks)


@given(st.text(max_size=200))
def test_random_cursors_only_reset(cursor: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "t.txt").write_text("some text " * 100)
        reader = Reader([tmp])
        first = reader.read("t.txt", None, 64)
        r = reader.read("t.txt", cursor or "x", 64)
        assert r.cursor_reset and r.content == first.content


@given(
    st.text(alphabet=st.sampled_from(list("ab c\n\t→é日")), max_size=600),
    st.integers(1, 120),
    st.integers(1, 40),
)
def test_a_page_is_the_chunk_a_walk_reaches(text: str, max_chars: int, page: int) -> None:
    """``page=k`` of a text document is the k-th chunk of the cursor walk (past the end: the
    last, with a note), and every chunk says its number and the count."""
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "t.txt").write_bytes(text.encode("utf-8"))
        reader = Reader([tmp])
        chunks = walk(reader, "t.txt", max_chars)
        assert [c.position["chunk"] for c in chunks] == list(range(1, len(chunks) + 1))
        assert {c.position["chunks"] for c in chunks} == {len(chunks)}
        jumped = reader.read("t.txt", None, max_chars, page=page)
        expected = chunks[min(page, len(chunks)) - 1]
        assert (jumped.content, jumped.next_cursor) == (expected.content, expected.next_cursor)
        assert (jumped.note is not None) == (page > len(chunks))


def test_a_pdf_page_starts_a_chunk_there_and_clamps(tmp_path: Path) -> None:
    make_pdf(tmp_path / "m.pdf", [f"Page {n} text." for n in range(1, 8)])
    reader = Reader([tmp_path])
    seventh = reader.read("m.pdf", None, 40, page=7)
    assert seventh.page_info == {"page_start": 7, "page_end": 7, "total_pages": 7}
    assert seventh.content.startswith("[page 7 of 7]") and not seventh.truncated
    third = reader.read("m.pdf", None, 40, page=3)
    assert third.page_info["page_start"] == 3 and third.note is None
    assert reader.read("m.pdf", third.next_cursor, 40).page_info["page_start"] == 4
    past = reader.read("m.pdf", None, 40, page=99)
    assert past.content == seventh.content
    assert past.note == "page 99 is past the end (7 pages): the last page"
    assert "note: page 99 is past the end" in past.to_text()
    with pytest.raises(UsageError, match="page must be ≥ 1"):
        reader.read("m.pdf", None, 40, page=0)
    with pytest.raises(UsageError, match="not both"):
        reader.read("m.pdf", third.next_cursor, 40, page=2)


def test_the_read_command_takes_a_page_and_refuses_it_with_a_cursor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ctx_lab import cli

    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.txt").write_text("".join(f"line {i}\n" for i in range(2000)))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli.main(["read", "t.txt", "--page", "3", "--max-chars", "1000"])
    assert code == 0 and "chunk 3 of" in out.getvalue()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = cli.main(["read", "t.txt", "--page", "3", "--cursor", "x"])
    assert code == 2  # a usage error: --page and --cursor are one or the other
