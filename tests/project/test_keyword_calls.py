"""No constructor is called with six or more positional arguments: a result's field order is
its wire order, so inserting a field would shift the values of a positional call silently —
keywords name what each value is (``RequestAnatomy(source=…, format=…)``)."""

from __future__ import annotations

import ast

from tests.paths import REPO

MOST = 5  # positional arguments a constructor call may pass


def _constructor(call: ast.Call) -> str | None:
    func = call.func
    name = (
        func.id
        if isinstance(func, ast.Name)
        else func.attr
        if isinstance(func, ast.Attribute)
        else ""
    )
    return name if name == "cls" or name[:1].isupper() else None


def test_constructors_are_called_with_keywords() -> None:
    found = []
    for path in sorted((REPO / "ctx_lab").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or len(node.args) <= MOST:
                continue
            name = _constructor(node)
            if name and not any(isinstance(a, ast.Starred) for a in node.args):
                found.append(f"{path.relative_to(REPO)}:{node.lineno} {name}({len(node.args)})")
    assert found == []
