"""Rust: uses, modules, items and function signatures with their attributes; ``///`` doc lines;
crate docs (``//!``) wherever they are."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._common import Rules, doc_first_line

__all__ = ["RustRules", "rules"]


@dataclass(frozen=True)
class RustRules(Rules):
    """Rust's habits: crate docs stay; only outer docs (``///``, ``/**``) describe an item."""

    def always_kept_comment(self, text: bytes) -> bool:
        """Crate docs (``//!``, ``/*!``) stay wherever they are."""
        return text.startswith((b"//!", b"/*!"))

    def docs(self, node: Any, docs: list[Any], data: bytes) -> list[str]:
        """The first line of an item's outer doc comment."""
        outer = [c for c in docs if data[c.start_byte : c.end_byte].startswith((b"///", b"/**"))]
        line = doc_first_line(data, outer)
        return [line] if line else []


def rules() -> Rules:
    """Rust's rules."""
    return RustRules(
        module="tree_sitter_rust",
        function="language",
        keep_top=frozenset(
            {
                "use_declaration",
                "extern_crate_declaration",
                "mod_item",
                "struct_item",
                "enum_item",
                "union_item",
                "type_item",
                "trait_item",
                "impl_item",
                "function_item",
                "const_item",
                "static_item",
                "macro_definition",
            }
        ),
        functions=frozenset({"function_item", "closure_expression"}),
        bodies=frozenset({"block"}),
        values=frozenset({"const_item", "static_item"}),
    )
