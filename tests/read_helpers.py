"""Documents for the reader tests: PDFs made with a real PDF writer (fpdf2)."""

from __future__ import annotations

from pathlib import Path


def make_pdf(path: Path, pages: list[str]) -> Path:
    """A PDF with one page per string (the benchmark workloads' generator)."""
    from bench.workloads import pdf_file

    return pdf_file(path, pages)


def walk(reader, uri: str, max_chars: int, limit: int = 10_000) -> list:
    """Every chunk from the start, following next_cursor until truncated is false."""
    chunks = [reader.read(uri, None, max_chars)]
    while chunks[-1].truncated:
        assert len(chunks) < limit, "the cursor walk does not end"
        chunks.append(reader.read(uri, chunks[-1].next_cursor, max_chars))
        assert not chunks[-1].cursor_reset, chunks[-1].cursor_reason
    return chunks
