"""Without an extra, what needs it says which one (the light core, docs/install.md): never an
ImportError's traceback, never a silent downgrade."""

from __future__ import annotations

import sys

import pytest

from ctx_lab.builder.skeletons import _common
from ctx_lab.errors import SkeletonError, UnsupportedContent
from ctx_lab.read._extract import extract_html


def test_a_web_page_without_the_reading_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "trafilatura", None)  # import fails as if not installed
    with pytest.raises(UnsupportedContent, match=r"pip install 'ctx-lab\[reading\]'"):
        extract_html("<html><body><p>Body</p></body></html>")


def test_a_skeleton_without_the_grammars_says_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from ctx_lab.builder import ContentBlock, apply_policy, structural

    source = "package main\n\nfunc main() {\n\tprintln(1)\n}\n// no grammar here\n"
    monkeypatch.setitem(sys.modules, "tree_sitter", None)
    _common.parser.cache_clear()
    try:
        with pytest.raises(SkeletonError, match=r"pip install 'ctx-lab\[skeletons\]'"):
            structural("main.go", source)
        block = ContentBlock(
            id="file:main.go",
            source="file",
            path="main.go",
            text=source,
            policy="structural",
            priority=3,
        )
        found = apply_policy(block, "structural")
    finally:
        _common.parser.cache_clear()
    assert found.policy == "summarizable"
    assert "ctx-lab[skeletons]" in found.note
