"""Python: imports, decorators, class and (async) def signatures with methods and nested
classes, the first line of docstrings and module-level assignments — with the standard
library's ``ast``, and with tree-sitter-python for syntax newer than this Python's."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import Any

from ...errors import SkeletonError
from ._common import ELIDED_VALUE, SHORT_ASSIGNMENT, Skeleton, parser

__all__ = ["python_code_skeleton", "python_skeleton"]


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
        failed = f"Python syntax error: {exc}"
    except MemoryError:  # the parser's own stack overflowing: nesting, not the machine
        reason = failed = "nested too deeply for Python's parser"
    else:
        out: list[str] = []
        doc = _first_doc_line(tree)
        if doc:
            out.append(f'"""{doc}"""')
        out.extend(_PythonSkeleton(source).render(tree.body, ""))
        return Skeleton("\n".join(out) + "\n" if out else "")
    try:
        return _python_treesitter(source, reason)
    except SkeletonError:
        raise SkeletonError(failed) from None


# -- Python with tree-sitter (syntax newer than this Python's ``ast``) ---------------------------

_PY_DEFINITIONS = ("function_definition", "class_definition", "decorated_definition")


class _TreeSitterPython:
    """A Python skeleton from tree-sitter's tree: imports, short assignments (others with
    their value elided), definitions with their headers and first docstring lines; parts with
    parse errors are left out and counted."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.out: list[str] = []
        self.broken: list[str] = []

    def text(self, node: Any) -> str:
        return self.data[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def docstring(self, block: Any) -> str | None:
        first = block.named_children[0] if block is not None and block.named_children else None
        if first is None or first.type != "expression_statement":
            return None
        string = first.named_children[0] if first.named_children else None
        if string is None or string.type != "string":
            return None
        body = self.text(string).strip("\"'rbuRBU")
        line = body.strip().split("\n", 1)[0].strip()
        return line.replace('"""', '\\"\\"\\"') or None

    def definition(self, node: Any, indent: str) -> None:
        out = self.out
        if node.type == "decorated_definition":
            for child in node.named_children:
                if child.type == "decorator":
                    out.append(indent + self.text(child))
            inner = node.child_by_field_name("definition")
            if inner is not None:
                self.definition(inner, indent)
            return
        body = node.child_by_field_name("body")
        if body is None:
            out.append(indent + self.text(node))
            return
        header = self.data[node.start_byte : body.start_byte].decode("utf-8", "replace")
        out.append(indent + header.rstrip())
        inner_indent = indent + "    "
        doc = self.docstring(body)
        if doc:
            out.append(f'{inner_indent}"""{doc}"""')
        if node.type == "class_definition":
            before = len(out)
            self.statements(body.named_children, inner_indent)
            if len(out) == before:
                out.append(f"{inner_indent}...")
        else:
            out.append(f"{inner_indent}...")

    def assignment(self, node: Any, first: Any, indent: str) -> None:
        line = self.text(node)
        short = "\n" not in line and len(line) <= SHORT_ASSIGNMENT
        left = first.child_by_field_name("left")
        kind = first.child_by_field_name("type")
        target = self.text(left) if left is not None else line.split("=", 1)[0].strip()
        typed = f": {self.text(kind)}" if kind is not None else ""
        self.out.append(indent + (line if short else f"{target}{typed} = {ELIDED_VALUE}"))

    def statements(self, nodes: Iterable[Any], indent: str) -> None:
        for node in nodes:
            if node.type == "ERROR" or node.has_error:
                self.broken.append(self.text(node).split("\n", 1)[0].strip())
            elif node.type in _PY_DEFINITIONS:
                self.definition(node, indent)
            elif node.type in (
                "import_statement",
                "import_from_statement",
                "future_import_statement",
                "type_alias_statement",
            ):
                self.out.append(indent + self.text(node))
            elif node.type == "expression_statement" and node.named_children:
                first = node.named_children[0]
                if first.type == "assignment":
                    self.assignment(node, first, indent)


def _python_treesitter(source: str, reason: str = "") -> Skeleton:
    ts_parser = parser("tree_sitter_python", "language")
    data = source.encode("utf-8", "surrogatepass")
    root = ts_parser.parse(data).root_node
    made = _TreeSitterPython(data)
    doc = made.docstring(root)
    if doc:
        made.out.append(f'"""{doc}"""')
    made.statements(root.named_children, "")
    out, broken = made.out, made.broken
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
