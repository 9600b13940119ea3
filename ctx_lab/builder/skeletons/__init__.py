"""Structural skeletons of source code: signatures and declarations stay, bodies go.

Python uses the standard library's ``ast`` (tree-sitter-python for newer syntax); Go,
JavaScript, TypeScript and Rust use tree-sitter with the individual grammar wheels and a module
of rules each; other languages get a generic skeleton when their grammar wheel is installed. A
parse failure raises :class:`~ctx_lab.errors.SkeletonError` so the caller can fall back.

Languages are found in :data:`LANGUAGES`, a registry of rule constructors by name (as
tiktoken keeps its encodings): adding a language is one module and one entry.
"""

from __future__ import annotations

from collections.abc import Callable

from ...errors import SkeletonError
from . import _generic as generic
from . import _go as go
from . import _javascript as javascript
from . import _rust as rust
from ._common import Rules, Skeleton, collection_paused
from ._python import _python_treesitter, python_code_skeleton, python_skeleton
from ._treesitter import walk

__all__ = [
    "LANGUAGES",
    "Rules",
    "Skeleton",
    "code_skeleton",
    "collection_paused",
    "extra_grammar",
    "python_code_skeleton",
    "python_skeleton",
    "treesitter_skeleton",
]

# language name → the constructor of its tree-sitter rules
LANGUAGES: dict[str, Callable[[], Rules]] = {
    "go": go.rules,
    "javascript": javascript.javascript,
    "typescript": javascript.typescript,
    "tsx": javascript.tsx,
    "rust": rust.rules,
}


def code_skeleton(source: str, language: str) -> Skeleton:
    """The skeleton of ``source`` in ``language`` (a registered name, ``python``, or a file
    extension like ``.java`` whose grammar wheel is installed), with a note when parts did not
    parse (``partial``); only a file with no well-formed part at all raises
    :class:`SkeletonError`."""
    if language == "python":
        return _python_treesitter(source)
    make = LANGUAGES.get(language)
    rules = make() if make is not None else generic.rules(language)
    if rules is None:
        raise SkeletonError(f"no structural rules for {language!r}")
    return walk(source, rules, language)


def treesitter_skeleton(source: str, language: str) -> str:
    """The text of :func:`code_skeleton`."""
    return code_skeleton(source, language).text


def extra_grammar(suffix: str) -> tuple[str, str] | None:
    """The installed grammar for a file extension without hand-written rules, if any."""
    return generic.installed(suffix)
