"""Hostile inputs are bounded: size limits named with their variable, deep nesting and floods
degrade or fail cleanly, never a hang, a traceback or a RecursionError (hardening rows 10-12,
14). Limits are lowered for the test instead of timing anything."""

from __future__ import annotations

import os
import re

import pytest

from ctx_lab.errors import CorruptDocument
from ctx_lab.read import _extract as extract_module
from ctx_lab.read._extract import MAX_HTML_DEPTH, extract_html, extract_pdf

pytestmark = pytest.mark.hardening  # a theme of the hardening rounds


def test_deep_html_nesting_is_unwrapped_not_recursed() -> None:
    html = "<html><body>" + "<div>" * 3000 + "<p>deep text</p>" + "</div>" * 3000 + "</body></html>"
    assert "deep text" in extract_html(html)
    nested_lists = "<ul><li>" * 2000 + "item" + "</li></ul>" * 2000
    assert "item" in extract_html(f"<html><body>{nested_lists}</body></html>")
    assert MAX_HTML_DEPTH <= 200


def test_html_floods_are_not_scanned_by_backtracking_regexes(monkeypatch) -> None:
    """128 KB of unclosed <script> tags took 24 s through a lazy regex per tag: the page is
    parsed once by lxml now, and no regex with a lazy ``.*?`` runs over the document."""
    real_sub, real_findall, real_search = re.sub, re.findall, re.search
    big = 64 * 1024

    def guard(real):
        def call(pattern, *args, **kwargs):
            text = pattern if isinstance(pattern, str) else pattern.pattern
            subject = args[1] if real is real_sub and len(args) > 1 else (args[0] if args else "")
            if ".*?" in str(text) and isinstance(subject, str) and len(subject) > big:
                raise AssertionError(f"backtracking regex over {len(subject)} chars: {text}")
            return real(pattern, *args, **kwargs)

        return call

    monkeypatch.setattr(extract_module.re, "sub", guard(real_sub))
    monkeypatch.setattr(extract_module.re, "findall", guard(real_findall))
    monkeypatch.setattr(extract_module.re, "search", guard(real_search))
    flood = "<script>" * 32_000 + "<a>" * 32_000
    page = f"<html><body><p>{'real words ' * 50}</p>{flood}</body></html>"
    assert "real words" in extract_html(page)


@pytest.mark.parametrize(
    "data",
    [
        b"%PDF-1.7\n" + os.urandom(2000),
        b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [2 0 R] /Count 1 >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF",
        b"%PDF-1.4\n1 0 obj << /Length 999999999 >> stream\nxx\nendstream endobj\ntrailer << /Root 1 0 R >>\n%%EOF",
    ],
)
def test_broken_pdfs_are_corrupt_documents(data: bytes) -> None:
    try:
        pages = extract_pdf(data, 100)
    except CorruptDocument:
        return
    assert isinstance(pages, tuple)
