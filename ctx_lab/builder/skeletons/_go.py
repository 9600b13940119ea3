"""Go: package, imports, types, constants, variables and function signatures; the package's
docs whole, exported items' doc lines, build constraints wherever they are."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._common import Rules, doc_first_line

__all__ = ["GoRules", "rules"]


def _exported(node: Any, data: bytes) -> bool:
    names: list[Any] = []
    name = node.child_by_field_name("name")
    if name is not None:
        names.append(name)
    for spec in node.named_children:
        if spec.type in ("type_spec", "const_spec", "var_spec", "type_alias"):
            found = spec.child_by_field_name("name")
            names += [found] if found is not None else []
    return any(data[n.start_byte : n.end_byte][:1].isupper() for n in names)


@dataclass(frozen=True)
class GoRules(Rules):
    """Go's habits: build constraints stay; docs of exported items and of the package."""

    def always_kept_comment(self, text: bytes) -> bool:
        """``//go:build`` and ``// +build`` lines stay wherever they are."""
        return text.startswith((b"//go:build", b"// +build"))

    def docs(self, node: Any, docs: list[Any], data: bytes) -> list[str]:
        """The package's docs whole; an exported item's first doc line; nothing else."""
        if not docs:
            return []
        if node.type == "package_clause":
            return [
                data[c.start_byte : c.end_byte].decode("utf-8", "replace").rstrip() for c in docs
            ]
        if not _exported(node, data):
            return []
        line = doc_first_line(data, docs)
        return [line] if line else []


def rules() -> Rules:
    """Go's rules."""
    return GoRules(
        module="tree_sitter_go",
        function="language",
        keep_top=frozenset(
            {
                "package_clause",
                "import_declaration",
                "type_declaration",
                "const_declaration",
                "var_declaration",
                "function_declaration",
                "method_declaration",
            }
        ),
        functions=frozenset({"function_declaration", "method_declaration", "func_literal"}),
        bodies=frozenset({"block"}),
        values=frozenset({"var_spec", "const_spec"}),
    )
