"""Structural skeletons of source code: signatures and declarations stay, bodies go.

Python uses the standard library's ``ast``; Go, JavaScript, TypeScript and Rust use tree-sitter
with the individual grammar wheels. Other languages get a generic skeleton when their grammar
wheel is installed. A parse failure raises :class:`SkeletonError` so the caller can fall back.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any

from ..errors import SkeletonError

__all__ = ["SkeletonError", "extra_grammar", "python_skeleton", "treesitter_skeleton"]

ELIDED_BLOCK = "{ … }"
ELIDED_VALUE = "…"
LONG_VALUE_LINES = 3
SHORT_ASSIGNMENT = 120


# -- Python -----------------------------------------------------------------------------------


def _cut(line: str, start: int | None, end: int | None) -> str:
    """A line cut at UTF-8 byte offsets (what ``ast`` reports as columns)."""
    if line.isascii():
        return line[start:end]
    return line.encode("utf-8")[start:end].decode("utf-8", "replace")


def _segment(source_lines: list[str], start: tuple[int, int], end: tuple[int, int]) -> str:
    """The source between two ``(line, byte column)`` positions; the lines are split once
    per file, so each segment costs only its own length."""
    (l1, c1), (l2, c2) = start, end
    if l1 == l2:
        return _cut(source_lines[l1 - 1], c1, c2)
    parts = [
        _cut(source_lines[l1 - 1], c1, None),
        *source_lines[l1 : l2 - 1],
        _cut(source_lines[l2 - 1], None, c2),
    ]
    return "\n".join(parts)


def _first_doc_line(node: ast.AST) -> str | None:
    body = getattr(node, "body", None)
    if not body:
        return None
    first = body[0]
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        line = first.value.value.strip().split("\n", 1)[0].strip()
        return line.replace('"""', '\\"\\"\\"')
    return None


class _PythonSkeleton:
    def __init__(self, source: str) -> None:
        self.source = source
        self.lines = source.split("\n")

    def text(self, node: ast.AST) -> str:
        end_line, end_col = getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None)
        if end_line is None or end_col is None:
            return ast.unparse(node)
        start = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
        return _segment(self.lines, start, (end_line, end_col)) or ast.unparse(node)

    def signature(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> str:
        start = (node.lineno, node.col_offset)
        first = node.body[0]
        end = (first.lineno, first.col_offset)
        raw = _segment(self.lines, start, end).rstrip()
        kept = raw.split("\n")
        while len(kept) > 1 and (not kept[-1].strip() or kept[-1].strip().startswith("#")):
            kept.pop()
        return "\n".join(kept).rstrip()

    def render(self, nodes: Iterable[ast.stmt], indent: str, in_class: bool = False) -> list[str]:
        out: list[str] = []
        for node in nodes:
            if isinstance(node, ast.Import | ast.ImportFrom):
                out.append(indent + self.text(node))
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                out.extend(self.definition(node, indent))
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                out.append(indent + self.assignment(node))
            elif isinstance(node, ast.If | ast.Try) and self._declares(node):
                out.extend(self.compound(node, indent))
        return out

    def _declares(self, node: ast.If | ast.Try) -> bool:
        return any(
            isinstance(n, ast.Import | ast.ImportFrom | ast.FunctionDef | ast.ClassDef)
            for n in ast.walk(node)
            if n is not node
        )

    def compound(self, node: ast.If | ast.Try, indent: str) -> list[str]:
        """``if TYPE_CHECKING:`` / ``try: import …`` blocks that hold declarations."""
        header = self.lines[node.lineno - 1].strip()
        body = self.render(node.body, indent + "    ") or [indent + "    ..."]
        out = [indent + header, *body]
        for handler in getattr(node, "handlers", []):
            inner = self.render(handler.body, indent + "    ") or [indent + "    ..."]
            out += [indent + self.lines[handler.lineno - 1].strip(), *inner]
        if node.orelse:
            inner = self.render(node.orelse, indent + "    ") or [indent + "    ..."]
            out += [indent + "else:", *inner]
        return out

    def assignment(self, node: ast.Assign | ast.AnnAssign) -> str:
        text = self.text(node)
        if "\n" not in text and len(text) <= SHORT_ASSIGNMENT:
            return text
        if isinstance(node, ast.Assign):
            targets = " = ".join(ast.unparse(t) for t in node.targets)
            return f"{targets} = {ELIDED_VALUE}"
        value = f" = {ELIDED_VALUE}" if node.value is not None else ""
        return f"{ast.unparse(node.target)}: {ast.unparse(node.annotation)}{value}"

    def definition(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, indent: str
    ) -> list[str]:
        out = [f"{indent}@{self.text(d)}" for d in node.decorator_list]
        sig = self.signature(node).split("\n")
        out.append(indent + sig[0].lstrip())
        out.extend(sig[1:])
        inner = indent + "    "
        doc = _first_doc_line(node)
        if doc:
            out.append(f'{inner}"""{doc}"""')
        if isinstance(node, ast.ClassDef):
            members = self.render(node.body, inner, in_class=True)
            out.extend(members or [f"{inner}..."])
        else:
            out.append(f"{inner}...")
        return out


def python_skeleton(source: str) -> str:
    """Imports, decorators, class and (async) def signatures with methods and nested classes,
    the first line of docstrings and module-level assignments; bodies become ``...``."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError) as exc:
        raise SkeletonError(f"Python syntax error: {exc}") from None
    builder = _PythonSkeleton(source)
    out: list[str] = []
    doc = _first_doc_line(tree)
    if doc:
        out.append(f'"""{doc}"""')
    out.extend(builder.render(tree.body, ""))
    return "\n".join(out) + "\n" if out else ""


# -- tree-sitter ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Rules:
    module: str
    function: str
    keep_top: frozenset[str]
    functions: frozenset[str]
    bodies: frozenset[str]
    values: frozenset[str] = frozenset()  # declarations whose long values are elided


_JS_KEEP = frozenset(
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
_JS_FUNCTIONS = frozenset(
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
_TS_KEEP = _JS_KEEP | {
    "interface_declaration",
    "type_alias_declaration",
    "enum_declaration",
    "abstract_class_declaration",
    "module",
    "internal_module",
    "ambient_declaration",
}
_RULES = {
    "go": _Rules(
        "tree_sitter_go",
        "language",
        frozenset(
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
        frozenset({"function_declaration", "method_declaration", "func_literal"}),
        frozenset({"block"}),
        frozenset({"var_spec", "const_spec"}),
    ),
    "javascript": _Rules(
        "tree_sitter_javascript",
        "language",
        _JS_KEEP,
        _JS_FUNCTIONS,
        frozenset({"statement_block"}),
        frozenset({"variable_declarator"}),
    ),
    "typescript": _Rules(
        "tree_sitter_typescript",
        "language_typescript",
        _TS_KEEP,
        _JS_FUNCTIONS,
        frozenset({"statement_block"}),
        frozenset({"variable_declarator"}),
    ),
    "tsx": _Rules(
        "tree_sitter_typescript",
        "language_tsx",
        _TS_KEEP,
        _JS_FUNCTIONS,
        frozenset({"statement_block"}),
        frozenset({"variable_declarator"}),
    ),
    "rust": _Rules(
        "tree_sitter_rust",
        "language",
        frozenset(
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
                "attribute_item",
            }
        ),
        frozenset({"function_item", "closure_expression"}),
        frozenset({"block"}),
        frozenset({"const_item", "static_item"}),
    ),
}
# Grammars without hand-written rules: a generic skeleton when their wheel is installed.
_EXTRA_GRAMMARS = {
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
_GENERIC_BODIES = frozenset(
    {
        "block",
        "compound_statement",
        "statement_block",
        "function_body",
        "body_statement",
        "constructor_body",
        "body",
    }
)


@cache
def _parser(module: str, function: str) -> Any:
    try:
        import tree_sitter

        grammar = importlib.import_module(module)
    except ImportError as exc:
        raise SkeletonError(f"no tree-sitter grammar installed ({module}): {exc}") from None
    return tree_sitter.Parser(tree_sitter.Language(getattr(grammar, function)()))


def extra_grammar(suffix: str) -> tuple[str, str] | None:
    """The installed grammar for a file extension without hand-written rules, if any."""
    found = _EXTRA_GRAMMARS.get(suffix)
    if found is None:
        return None
    try:
        _parser(*found)
    except SkeletonError:
        return None
    return found


def _elisions(node: Any, rules: _Rules, spans: list[tuple[int, int, str]]) -> None:
    """Collect (start, end, replacement) byte spans below ``node``."""
    for child in node.named_children:
        if child.type in rules.functions:
            body = child.child_by_field_name("body")
            if body is not None and body.type in rules.bodies:
                _elisions_outside(child, body, rules, spans)
                spans.append((body.start_byte, body.end_byte, ELIDED_BLOCK))
                continue
        if child.type in rules.values:
            value = child.child_by_field_name("value")
            if (
                value is not None
                and value.type not in rules.functions
                and value.end_point[0] - value.start_point[0] >= LONG_VALUE_LINES
            ):
                spans.append((value.start_byte, value.end_byte, ELIDED_VALUE))
                continue
        _elisions(child, rules, spans)


def _elisions_outside(
    node: Any, body: Any, rules: _Rules, spans: list[tuple[int, int, str]]
) -> None:
    for child in node.named_children:
        if child.id != body.id:
            _elisions(child, rules, spans)


def _apply(source: bytes, start: int, end: int, spans: list[tuple[int, int, str]]) -> str:
    out: list[bytes] = []
    position = start
    for s, e, replacement in sorted(spans):
        if s < position or e > end:
            continue
        out += [source[position:s], replacement.encode()]
        position = e
    out.append(source[position:end])
    return b"".join(out).decode("utf-8", "replace")


def _generic_rules(module: str, function: str) -> _Rules:
    return _Rules(module, function, frozenset(), frozenset(), _GENERIC_BODIES)


def _generic_elisions(node: Any, spans: list[tuple[int, int, str]]) -> None:
    for child in node.named_children:
        kind = child.type
        if (
            "function" in kind or "method" in kind or "constructor" in kind
        ) and child.named_children:
            body = child.child_by_field_name("body")
            if body is not None and body.type in _GENERIC_BODIES:
                spans.append((body.start_byte, body.end_byte, ELIDED_BLOCK))
                continue
        _generic_elisions(child, spans)


def treesitter_skeleton(source: str, language: str) -> str:
    """The skeleton of Go, JavaScript, TypeScript (``tsx`` too), Rust — or, for a file
    extension like ``.java`` whose grammar wheel is installed, a generic one."""
    rules = _RULES.get(language)
    generic = rules is None
    if rules is None:
        found = _EXTRA_GRAMMARS.get(language)
        if found is None:
            raise SkeletonError(f"no structural rules for {language!r}")
        rules = _generic_rules(*found)
    parser = _parser(rules.module, rules.function)
    data = source.encode("utf-8", "surrogatepass")
    tree = parser.parse(data)
    if tree.root_node.has_error:
        raise SkeletonError(f"{language} parse errors (tree-sitter)")
    pieces: list[str] = []
    keep: Callable[[Any], bool] = (
        (lambda n: n.type != "comment")
        if generic
        else (lambda n: n.type in rules.keep_top or _is_commonjs_export(n, data))
    )
    for node in tree.root_node.named_children:
        if not keep(node):
            continue
        spans: list[tuple[int, int, str]] = []
        if generic:
            _generic_elisions(node, spans)
        elif node.type in rules.functions:
            body = node.child_by_field_name("body")
            if body is not None and body.type in rules.bodies:
                _elisions_outside(node, body, rules, spans)
                spans.append((body.start_byte, body.end_byte, ELIDED_BLOCK))
        else:
            _elisions(node, rules, spans)
        pieces.append(_apply(data, node.start_byte, node.end_byte, spans))
    return "\n".join(pieces) + "\n" if pieces else ""


def _is_commonjs_export(node: Any, data: bytes) -> bool:
    if node.type != "expression_statement":
        return False
    text = data[node.start_byte : node.end_byte].lstrip()
    return text.startswith((b"module.exports", b"exports."))
