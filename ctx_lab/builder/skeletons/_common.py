"""What every skeleton shares: the result, the elision marks, the tree-sitter parsers (one per
grammar, made on first use), and the rules a language gives the tree-sitter walker."""

from __future__ import annotations

import gc
import importlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import Any

from ...errors import SkeletonError

__all__ = [
    "DOC_PREFIXES",
    "ELIDED_BLOCK",
    "ELIDED_VALUE",
    "LONG_VALUE_LINES",
    "SHORT_ASSIGNMENT",
    "Rules",
    "Skeleton",
    "apply_spans",
    "collection_paused",
    "doc_first_line",
    "line_of",
    "parser",
]

ELIDED_BLOCK = "{ … }"
ELIDED_VALUE = "…"
LONG_VALUE_LINES = 3
SHORT_ASSIGNMENT = 120
DOC_PREFIXES = (b"///", b"//!", b"/**", b"/*!")


@dataclass(frozen=True)
class Skeleton:
    """A skeleton and, when parts of the file did not parse, a note saying which were left
    out (``partial``)."""

    text: str
    partial: bool = False
    note: str = ""


_PAUSE_LOCK = threading.Lock()
_pausing = 0  # threads inside collection_paused()
_resume = False  # whether the collector was on when the first of them came in


@contextmanager
def collection_paused() -> Iterator[None]:
    """The cyclic garbage collector off while a syntax tree is made and walked, and on again
    (if it was) when the last thread leaves. A parse makes a tree of ~100,000 objects for a
    large file, all freed by reference counting when the walk ends; the collector would walk
    them again and again while they live (a sixth of a build's time on the standard library)."""
    global _pausing, _resume
    with _PAUSE_LOCK:
        if _pausing == 0:
            _resume = gc.isenabled()
            gc.disable()
        _pausing += 1
    try:
        yield
    finally:
        with _PAUSE_LOCK:
            _pausing -= 1
            if _pausing == 0 and _resume:
                gc.enable()


@cache
def parser(module: str, function: str) -> Any:
    """The tree-sitter parser of grammar wheel ``module`` (``function`` makes its language)."""
    try:
        import tree_sitter

        grammar = importlib.import_module(module)
    except ImportError as exc:
        raise SkeletonError(
            f"no tree-sitter grammar installed ({module}; pip install 'ctx-lab[skeletons]'): {exc}"
        ) from None
    return tree_sitter.Parser(tree_sitter.Language(getattr(grammar, function)()))


@dataclass(frozen=True)
class Rules:
    """How the tree-sitter walker skeletonizes one language: its grammar, the top-level nodes
    kept, function nodes whose bodies go, the body node types, and declarations whose long
    values are elided. A language with its own habits (exported names, build constraints,
    crate docs) overrides the hooks."""

    module: str
    function: str
    keep_top: frozenset[str]
    functions: frozenset[str]
    bodies: frozenset[str]
    values: frozenset[str] = frozenset()
    generic: bool = False  # no hand-written rules: every function-like body goes

    def keeps(self, node: Any, data: bytes) -> bool:
        """Whether a top-level node stays."""
        if self.generic:
            return bool(node.type != "comment")
        return node.type in self.keep_top

    def always_kept_comment(self, text: bytes) -> bool:
        """A comment that stays wherever it is (none by default)."""
        return False

    def docs(self, node: Any, docs: list[Any], data: bytes) -> list[str]:
        """The doc comment lines kept above a kept item: the first line of a ``///``, ``//!``,
        ``/**`` or ``/*!`` doc."""
        if not docs or not data[docs[0].start_byte : docs[0].end_byte].startswith(DOC_PREFIXES):
            return []
        line = doc_first_line(data, docs)
        return [line] if line else []


def line_of(data: bytes, node: Any) -> str:
    """A node's first line, stripped."""
    text = data[node.start_byte : node.end_byte].decode("utf-8", "replace")
    return text.split("\n", 1)[0].strip()


def doc_first_line(data: bytes, comments: list[Any]) -> str | None:
    """The first line of an item's doc comment (the comment run right above it)."""
    if not comments:
        return None
    first = data[comments[0].start_byte : comments[0].end_byte].decode("utf-8", "replace")
    if first.startswith("/*"):
        block = first[2:-2] if first.endswith("*/") else first[2:]
        inner = [ln.strip().lstrip("*").strip() for ln in block.split("\n")]
        body = next((ln for ln in inner if ln and ln not in ("*", "!")), "")
        opener = first[:3] if first[:3] in ("/**", "/*!") else "/*"
        return f"{opener} {body.lstrip('!*').strip()} */" if body else None
    return first.split("\n", 1)[0].rstrip()


def apply_spans(source: bytes, start: int, end: int, spans: list[tuple[int, int, str]]) -> str:
    """``source[start:end]`` with each ``(start, end, replacement)`` span replaced."""
    out: list[bytes] = []
    position = start
    for s, e, replacement in sorted(spans):
        if s < position or e > end:
            continue
        out += [source[position:s], replacement.encode()]
        position = e
    out.append(source[position:end])
    return b"".join(out).decode("utf-8", "replace")
