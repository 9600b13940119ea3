"""Structural skeletons of source code: signatures and declarations stay, bodies go.

Python uses the standard library's ``ast``; Go, JavaScript, TypeScript and Rust use tree-sitter
with the individual grammar wheels. Other languages get a generic skeleton when their grammar
wheel is installed. A parse failure raises :class:`SkeletonError` so the caller can fall back.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any

from ..errors import SkeletonError

__all__ = [
    "Skeleton",
    "code_skeleton",
    "extra_grammar",
    "python_code_skeleton",
    "python_skeleton",
    "treesitter_skeleton",
]

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
    return python_code_skeleton(source).text


def python_code_skeleton(source: str) -> Skeleton:
    """:func:`python_skeleton` with a note: syntax this Python's ``ast`` cannot read (3.12's
    ``class Stack[T]:``, ``type X = …``) is parsed with tree-sitter-python instead."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None)
        where = f" (line {line})" if line else ""
        reason = f"{getattr(exc, 'msg', exc)}{where}"
        try:
            return _python_treesitter(source, reason)
        except SkeletonError:
            raise SkeletonError(f"Python syntax error: {exc}") from None
    builder = _PythonSkeleton(source)
    out: list[str] = []
    doc = _first_doc_line(tree)
    if doc:
        out.append(f'"""{doc}"""')
    out.extend(builder.render(tree.body, ""))
    return Skeleton("\n".join(out) + "\n" if out else "")


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


@dataclass(frozen=True)
class Skeleton:
    """A skeleton and, when parts of the file did not parse, a note saying which were left
    out (``partial``)."""

    text: str
    partial: bool = False
    note: str = ""


_DOC_PREFIXES = (b"///", b"//!", b"/**", b"/*!")


def _line_of(data: bytes, node: Any) -> str:
    text = data[node.start_byte : node.end_byte].decode("utf-8", "replace")
    return text.split("\n", 1)[0].strip()


def _doc_first_line(data: bytes, comments: list[Any]) -> str | None:
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


def _go_exported(node: Any, data: bytes) -> bool:
    names: list[Any] = []
    name = node.child_by_field_name("name")
    if name is not None:
        names.append(name)
    for spec in node.named_children:
        if spec.type in ("type_spec", "const_spec", "var_spec", "type_alias"):
            found = spec.child_by_field_name("name")
            names += [found] if found is not None else []
    return any(data[n.start_byte : n.end_byte][:1].isupper() for n in names)


def _always_kept_comment(language: str, text: bytes) -> bool:
    """Build constraints (Go) and crate docs (Rust) stay wherever they are."""
    if language == "go":
        return text.startswith((b"//go:build", b"// +build"))
    if language == "rust":
        return text.startswith((b"//!", b"/*!"))
    return False


def treesitter_skeleton(source: str, language: str) -> str:
    """The skeleton of Go, JavaScript, TypeScript (``tsx`` too), Rust — or, for a file
    extension like ``.java`` whose grammar wheel is installed, a generic one. Parts that do
    not parse are left out (see :func:`code_skeleton` for the note saying so)."""
    return code_skeleton(source, language).text


def code_skeleton(source: str, language: str) -> Skeleton:
    """:func:`treesitter_skeleton` with the note: when tree-sitter reports errors, every
    well-formed top-level part is still kept and the skeleton is ``partial``; only a file with
    no well-formed part at all raises :class:`SkeletonError`."""
    if language == "python":
        return _python_treesitter(source)
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
    pieces: list[str] = []
    broken: list[str] = []
    comments: list[Any] = []  # the run of comments right above the next node
    attributes: list[Any] = []  # Rust outer attributes waiting for their item

    def keep(node: Any) -> bool:
        if generic:
            return node.type != "comment"
        return node.type in rules.keep_top or _is_commonjs_export(node, data)

    def skeleton_of(node: Any) -> str:
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
        return _apply(data, node.start_byte, node.end_byte, spans)

    def visit(children: Iterable[Any]) -> None:
        nonlocal comments, attributes
        for node in children:
            if node.type == "ERROR":
                comments, attributes = [], []
                broken.append(_line_of(data, node))
                visit(node.named_children)  # well-formed declarations inside still count
                continue
            if "comment" in node.type:
                text = data[node.start_byte : node.end_byte]
                if _always_kept_comment(language, text):
                    pieces.append(text.decode("utf-8", "replace").rstrip())
                    comments = []
                    continue
                adjacent = comments and comments[-1].end_point[0] + 1 >= node.start_point[0]
                comments = [*comments, node] if adjacent else [node]
                continue
            if node.type == "attribute_item":  # Rust #[...]: belongs to the next item
                attributes.append(node)
                continue
            # the comment run right above (no blank line between) is the item's doc
            attached = comments and comments[-1].end_point[0] + 1 >= node.start_point[0]
            docs = comments if attached else []
            if node.has_error:
                broken.append(_line_of(data, node))
            elif node.type == "inner_attribute_item":
                pieces.append(_apply(data, node.start_byte, node.end_byte, []))
            elif keep(node):
                pieces.extend(_docs(node, docs, data, language))
                pieces.extend(_apply(data, a.start_byte, a.end_byte, []) for a in attributes)
                pieces.append(skeleton_of(node))
            comments, attributes = [], []

    visit(tree.root_node.named_children)
    if broken and not pieces:
        raise SkeletonError(f"{language} parse errors (tree-sitter), nothing well-formed")
    text = "\n".join(pieces) + "\n" if pieces else ""
    if not broken:
        return Skeleton(text)
    shown = ", ".join(repr(b[:40]) for b in broken[:3]) + (" …" if len(broken) > 3 else "")
    return Skeleton(
        text,
        True,
        f"partial: {len(broken)} part(s) with parse errors left out ({shown})",
    )


def _docs(node: Any, docs: list[Any], data: bytes, language: str) -> list[str]:
    """The doc comment lines kept above a kept item: a package's docs whole (Go), else the
    first line of an item's doc — for Go only exported items, for Rust only ``///`` docs."""
    if not docs:
        return []
    texts = [data[c.start_byte : c.end_byte] for c in docs]
    if language == "go":
        if node.type == "package_clause":
            return [t.decode("utf-8", "replace").rstrip() for t in texts]
        if not _go_exported(node, data):
            return []
    elif language == "rust":
        docs = [c for c, t in zip(docs, texts, strict=True) if t.startswith((b"///", b"/**"))]
    elif not texts[0].startswith(_DOC_PREFIXES):
        return []
    line = _doc_first_line(data, docs)
    return [line] if line else []


# -- Python with tree-sitter (syntax newer than this Python's ``ast``) ---------------------------

_PY_DEFINITIONS = ("function_definition", "class_definition", "decorated_definition")


def _python_treesitter(source: str, reason: str = "") -> Skeleton:
    parser = _parser("tree_sitter_python", "language")
    data = source.encode("utf-8", "surrogatepass")
    root = parser.parse(data).root_node
    out: list[str] = []
    broken: list[str] = []

    def text(node: Any) -> str:
        return data[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def docstring(block: Any) -> str | None:
        first = block.named_children[0] if block is not None and block.named_children else None
        if first is None or first.type != "expression_statement":
            return None
        string = first.named_children[0] if first.named_children else None
        if string is None or string.type != "string":
            return None
        body = text(string).strip("\"'rbuRBU")
        line = body.strip().split("\n", 1)[0].strip()
        return line.replace('"""', '\\"\\"\\"') or None

    def definition(node: Any, indent: str) -> None:
        if node.type == "decorated_definition":
            for child in node.named_children:
                if child.type == "decorator":
                    out.append(indent + text(child))
            inner = node.child_by_field_name("definition")
            if inner is not None:
                definition(inner, indent)
            return
        body = node.child_by_field_name("body")
        if body is None:
            out.append(indent + text(node))
            return
        header = data[node.start_byte : body.start_byte].decode("utf-8", "replace").rstrip()
        out.append(indent + header)
        inner_indent = indent + "    "
        doc = docstring(body)
        if doc:
            out.append(f'{inner_indent}"""{doc}"""')
        if node.type == "class_definition":
            before = len(out)
            statements(body.named_children, inner_indent)
            if len(out) == before:
                out.append(f"{inner_indent}...")
        else:
            out.append(f"{inner_indent}...")

    def statements(nodes: Iterable[Any], indent: str) -> None:
        for node in nodes:
            if node.type == "ERROR" or node.has_error:
                broken.append(text(node).split("\n", 1)[0].strip())
            elif node.type in _PY_DEFINITIONS:
                definition(node, indent)
            elif node.type in (
                "import_statement",
                "import_from_statement",
                "future_import_statement",
                "type_alias_statement",
            ):
                out.append(indent + text(node))
            elif node.type == "expression_statement" and node.named_children:
                first = node.named_children[0]
                if first.type == "assignment":
                    line = text(node)
                    short = "\n" not in line and len(line) <= SHORT_ASSIGNMENT
                    left = first.child_by_field_name("left")
                    kind = first.child_by_field_name("type")
                    target = text(left) if left is not None else line.split("=", 1)[0].strip()
                    typed = f": {text(kind)}" if kind is not None else ""
                    out.append(indent + (line if short else f"{target}{typed} = {ELIDED_VALUE}"))

    doc = docstring(root)
    if doc:
        out.append(f'"""{doc}"""')
    statements(root.named_children, "")
    if broken and not out:
        raise SkeletonError("Python parse errors (ast and tree-sitter), nothing well-formed")
    text_out = "\n".join(out) + "\n" if out else ""
    note = (
        f"ast could not parse it ({reason}); parsed with tree-sitter"
        if reason
        else ("parsed with tree-sitter")
    )
    if broken:
        note += f"; partial: {len(broken)} part(s) with parse errors left out"
    return Skeleton(text_out, bool(broken), note)


def _is_commonjs_export(node: Any, data: bytes) -> bool:
    if node.type != "expression_statement":
        return False
    text = data[node.start_byte : node.end_byte].lstrip()
    return text.startswith((b"module.exports", b"exports."))
