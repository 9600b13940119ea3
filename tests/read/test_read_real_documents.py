"""The reader on documents as they come: extracted documents kept on disk between processes,
page markers at line starts only, gtk-doc synopses and anchors kept, unclosed comments read
in one pass."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from read_helpers import make_pdf, walk

from ctx_lab.read import Reader
from ctx_lab.read import _extract as extract_module
from ctx_lab.read._disk_cache import DiskDocumentCache
from ctx_lab.read._extract import _without_comments, extract_html
from ctx_lab.read._paginate import chunk_pdf

MARKER = re.compile(r"\[page \d+ of \d+(?:, continued)?\]\n")


def test_a_new_reader_continues_from_the_disk_without_extracting(tmp_path: Path, monkeypatch):
    make_pdf(tmp_path / "doc.pdf", [f"page {i} " + "word " * 300 for i in range(6)])
    cache = DiskDocumentCache(tmp_path / "cache")
    first = Reader([tmp_path], secret=b"k" * 16, disk_cache=cache).read("doc.pdf", None, 2000)
    assert not first.cache_hit and len(list((tmp_path / "cache").iterdir())) == 1
    calls: list[int] = []
    real = extract_module.extract_pdf
    monkeypatch.setattr("ctx_lab.read._reader.extract_pdf", lambda *a: calls.append(1) or real(*a))
    again = Reader([tmp_path], secret=b"k" * 16, disk_cache=cache)  # a new process
    second = again.read("doc.pdf", first.next_cursor, 2000)
    assert second.cache_hit and not second.cursor_reset and calls == []
    assert second.page_info["page_start"] > first.page_info["page_start"] - 1
    # a changed file misses; a damaged entry is a miss, never an error
    make_pdf(tmp_path / "doc.pdf", ["other text " * 50])
    changed = Reader([tmp_path], secret=b"k" * 16, disk_cache=cache).read("doc.pdf")
    assert not changed.cache_hit and calls == [1] and "other text" in changed.content
    for entry in (tmp_path / "cache").iterdir():
        entry.write_text("{not json")
    assert not Reader([tmp_path], disk_cache=cache).read("doc.pdf").cache_hit


def test_the_disk_cache_is_bounded_and_keeps_the_recently_used(tmp_path: Path) -> None:
    for i in range(6):
        (tmp_path / f"f{i}.txt").write_text(f"file {i} " + "x" * 8000)
    cache = DiskDocumentCache(tmp_path / "cache", max_bytes=40_000)
    reader = Reader([tmp_path], disk_cache=cache)
    for i in range(6):
        reader.read(f"f{i}.txt")
    kept = sorted((tmp_path / "cache").iterdir(), key=lambda p: p.stat().st_mtime_ns)
    assert 0 < len(kept) < 6 and sum(p.stat().st_size for p in kept) <= 40_000
    assert "file 5" in kept[-1].read_text()  # the newest stays
    big = DiskDocumentCache(tmp_path / "small", max_bytes=1000)
    Reader([tmp_path], disk_cache=big).read("f0.txt")
    assert not (tmp_path / "small").exists() or not list((tmp_path / "small").iterdir())


def test_the_cli_keeps_documents_between_its_processes(tmp_path: Path) -> None:
    make_pdf(tmp_path / "doc.pdf", [f"page {i} " + "word " * 300 for i in range(5)])
    env = {"XDG_CACHE_HOME": str(tmp_path / "xdg"), "PATH": "/usr/bin:/bin"}

    def read(*extra: str) -> dict:
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "ctx_lab",
                "read",
                "doc.pdf",
                "--max-chars",
                "2000",
                "--format",
                "json",
                "--root",
                str(tmp_path),
                *extra,
            ],
            capture_output=True,
            text=True,
            check=True,
            env=env,
            cwd=tmp_path,
        )
        return json.loads(out.stdout)

    first = read()
    second = read("--cursor", first["next_cursor"])
    assert not first["cache_hit"] and second["cache_hit"] and not second["cursor_reset"]
    assert list((tmp_path / "xdg" / "ctx-lab" / "documents").iterdir())


@given(
    st.lists(st.text(alphabet="ab \n", max_size=120), min_size=1, max_size=6),
    st.integers(min_value=30, max_value=200),
)
def test_page_markers_start_lines_and_never_stand_alone(pages: list[str], max_chars: int):
    position, chunks = (0, 0), []
    while position is not None:
        chunk = chunk_pdf(tuple(pages), *position, max_chars)
        chunks.append(chunk.content)
        position = chunk.next_position
        assert len(chunks) < 10_000
    whole = "".join(chunks)
    for found in MARKER.finditer(whole):
        assert found.start() == 0 or whole[found.start() - 1] == "\n", whole
    for content in chunks:
        assert MARKER.sub("", content) != "" or content == "", chunks
    assert MARKER.sub("", whole) == "".join(f"{p}\n" for p in pages)


def test_a_pdf_walk_has_no_chunk_of_only_a_marker(tmp_path: Path) -> None:
    text = "line of text\n" * 40
    make_pdf(tmp_path / "doc.pdf", [text, text])
    reader = Reader([tmp_path])
    for max_chars in (100, 257, 520, 533):
        for chunk in walk(reader, "doc.pdf", max_chars):
            assert MARKER.sub("", chunk.content).strip(), chunk.content


GTK_DOC = """<html><body><h2><span class="refentrytitle">exslt</span></h2>
<div class="refsynopsisdiv"><h2>Synopsis</h2><pre class="synopsis">#define <a href="#A">EXSLT_A</a>;
#define <a href="#B">EXSLT_B</a>;
void <a href="#r">exsltRegisterAll</a> (void);</pre></div>
<div class="refsect1"><h2>Description</h2><p>The main header file of the library, describing
its namespaces and the functions that register every module with the XSLT engine.</p>
<div class="refsect2"><h3><a name="A">Macro </a>EXSLT_A</h3><pre class="programlisting">#define <a href="#A">EXSLT_A</a>;
</pre><p>Namespace for the first module of the library.</p></div>
<div class="refsect2"><h3><a name="r"></a>exsltRegisterAll ()</h3><pre class="programlisting">void exsltRegisterAll (void);</pre>
<p>Registers all available extensions with the engine.</p></div></div></body></html>"""


def test_gtk_doc_synopses_and_anchored_headings_are_kept() -> None:
    text = extract_html(GTK_DOC)
    assert "#define EXSLT\\_A;" in text or "#define EXSLT_A;" in text
    assert "exsltRegisterAll (void);" in text and "Registers all available" in text
    assert not re.search(r"^#{1,6}\s*$", text, re.MULTILINE), text


def test_comments_are_removed_in_one_pass() -> None:
    assert _without_comments("a<!-- b -->c<!---->d<!-->e<!--- x --->f") == "acdef"
    assert _without_comments("keep <!-- never closed <p>gone</p>") == "keep "
    page = "<html><body><p>start</p>" + "<p>text <!-- unclosed x</p>\n" * 30_000 + "</body></html>"
    assert extract_html(page).split() == ["start", "text"]  # then a comment to the end
