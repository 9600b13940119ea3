"""Languages without hand-written rules: a generic skeleton (every function-like body goes)
when the language's grammar wheel is installed."""

from __future__ import annotations

from ...errors import SkeletonError
from ._common import Rules, parser
from ._treesitter import GENERIC_BODIES

__all__ = ["GRAMMARS", "installed", "rules"]

GRAMMARS = {
    ".java": ("tree_sitter_java", "language"),
    ".c": ("tree_sitter_c", "language"),
    ".h": ("tree_sitter_c", "language"),
    ".cpp": ("tree_sitter_cpp", "language"),
    ".cc": ("tree_sitter_cpp", "language"),
    ".hpp": ("tree_sitter_cpp", "language"),
    ".cs": ("tree_sitter_c_sharp", "language"),
    ".rb": ("tree_sitter_ruby", "language"),
    ".php": ("tree_sitter_php", "language_php"),
    ".kt": ("tree_sitter_kotlin", "language"),
    ".swift": ("tree_sitter_swift", "language"),
    ".scala": ("tree_sitter_scala", "language"),
    ".lua": ("tree_sitter_lua", "language"),
}


def rules(suffix: str) -> Rules | None:
    """The generic rules for a file extension with a known grammar (installed or not)."""
    found = GRAMMARS.get(suffix)
    if found is None:
        return None
    return Rules(*found, frozenset(), frozenset(), GENERIC_BODIES, generic=True)


def installed(suffix: str) -> tuple[str, str] | None:
    """The installed grammar for a file extension without hand-written rules, if any."""
    found = GRAMMARS.get(suffix)
    if found is None:
        return None
    try:
        parser(*found)
    except SkeletonError:
        return None
    return found
