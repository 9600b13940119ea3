"""JavaScript, TypeScript and TSX: imports, exports (CommonJS ones too), declarations, classes
and function signatures; types, interfaces and enums in TypeScript."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._common import Rules

__all__ = ["javascript", "tsx", "typescript"]

_KEEP = frozenset(
    {
        "import_statement",
        "export_statement",
        "lexical_declaration",
        "variable_declaration",
        "function_declaration",
        "generator_function_declaration",
        "class_declaration",
        "class",
    }
)
_FUNCTIONS = frozenset(
    {
        "function_declaration",
        "generator_function_declaration",
        "function_expression",
        "function",
        "generator_function",
        "arrow_function",
        "method_definition",
    }
)
_TS_KEEP = _KEEP | {
    "interface_declaration",
    "type_alias_declaration",
    "enum_declaration",
    "abstract_class_declaration",
    "module",
    "internal_module",
    "ambient_declaration",
}


@dataclass(frozen=True)
class ScriptRules(Rules):
    """``module.exports = …`` and ``exports.x = …`` are kept like ``export`` statements."""

    def keeps(self, node: Any, data: bytes) -> bool:
        """Declarations, and CommonJS exports."""
        if node.type in self.keep_top:
            return True
        if node.type != "expression_statement":
            return False
        text = data[node.start_byte : node.end_byte].lstrip()
        return text.startswith((b"module.exports", b"exports."))


def _script(function: str, keep: frozenset[str]) -> Rules:
    module = "tree_sitter_javascript" if function == "language" else "tree_sitter_typescript"
    return ScriptRules(
        module=module,
        function=function,
        keep_top=keep,
        functions=_FUNCTIONS,
        bodies=frozenset({"statement_block"}),
        values=frozenset({"variable_declarator"}),
    )


def javascript() -> Rules:
    """JavaScript's rules."""
    return _script("language", _KEEP)


def typescript() -> Rules:
    """TypeScript's rules."""
    return _script("language_typescript", _TS_KEEP)


def tsx() -> Rules:
    """TSX's rules."""
    return _script("language_tsx", _TS_KEEP)
