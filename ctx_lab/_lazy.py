"""A package's public names, each imported from its module only when first asked for.

``ctx-lab packet`` should not pay for the calibration store, the token report or the plots
just because they live in the packages it uses: a package declares where each public name
lives (one mapping) and :func:`exports` gives it the module ``__getattr__`` and ``__dir__``
that import the module on first use (PEP 562). Each name is spelled once, in the package's
``if TYPE_CHECKING:`` block (what the type checker reads); the mapping and ``__all__`` are
written from it (``python -m ctx_lab._lazy --write``; tests/project/test_lazy_exports.py fails
while they are stale).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any

__all__ = ["exports"]


def exports(
    package: str, where: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``, whose public name ``n`` is attribute ``n``
    of the submodule ``where[n]`` (relative, such as ``"._cache"``; ``"._ctx08:RULES"`` where
    the module names it otherwise). A name is imported once, then kept on the package like any
    other attribute."""

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attribute = module.partition(":")
        value = getattr(import_module(module, package), attribute or name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(where))

    return __getattr__, __dir__


# -- the table, written from the one spelling ------------------------------------------------------
# A lazy package spells each public name once, in its ``if TYPE_CHECKING:`` imports; its
# ``_WHERE`` map and ``__all__`` are written from them (``python -m ctx_lab._lazy --write``; a
# test fails while one is stale). A name imported ``as`` itself (``X as X``) is importable but
# left out of ``__all__``.


def _checked_imports(source: str) -> tuple[dict[str, str], list[str]]:
    """``(where, public)`` from the ``if TYPE_CHECKING:`` block of a package's source."""
    import ast

    where: dict[str, str] = {}
    public: list[str] = []
    for node in ast.parse(source).body:
        if not (isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING"):
            continue
        for item in node.body:
            if not isinstance(item, ast.ImportFrom):
                continue
            module = "." * item.level + (item.module or "")
            for alias in item.names:
                name = alias.asname or alias.name
                where[name] = module if name == alias.name else f"{module}:{alias.name}"
                if alias.asname != alias.name:  # ``X as X`` is importable, not exported
                    public.append(name)
    order = sorted(public, key=lambda n: (0 if n.isupper() else 1 if n[:1].isupper() else 2, n))
    return where, order


def _block(start: str, source: str) -> tuple[int, int]:
    """Where the literal that starts with ``start`` (a line) begins and ends in ``source``."""
    begin = source.index(start)
    closing = {"{": "}", "[": "]"}[start.rstrip()[-1]]
    end = source.index(f"\n{closing}\n", begin) + 3
    return begin, end


def _spread(source: str, directory: Any) -> tuple[list[str], dict[str, str]]:
    """The ``**NAME`` lines of a package's ``_WHERE`` (a generated index merged in, as
    ``commands`` merges its command modules) and the names they map, read from the module the
    package imports ``NAME`` from (a literal there)."""
    import ast

    begin, end = _block("_WHERE = {\n", source)
    lines = [line for line in source[begin:end].splitlines() if line.strip().startswith("**")]
    names = {line.strip()[2:].rstrip(",") for line in lines}
    mapped: dict[str, str] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            for alias in node.names:
                if alias.name in names:
                    tree = ast.parse((directory / f"{node.module}.py").read_text("utf-8"))
                    mapped.update(_literal(tree, alias.name))
    return lines, mapped


def _literal(tree: Any, name: str) -> dict[str, str]:
    import ast

    for node in tree.body:
        targets: list[ast.expr] = []
        if isinstance(node, ast.AnnAssign) and node.value is not None:
            targets = [node.target]
        elif isinstance(node, ast.Assign):
            targets = list(node.targets)
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            value = ast.literal_eval(node.value)
            return dict(value) if isinstance(value, dict) else {}
    return {}


def written(source: str, directory: Any) -> str:
    """A lazy package's source (its ``__init__.py`` in ``directory``) with its ``_WHERE`` and
    ``__all__`` written from its ``TYPE_CHECKING`` imports."""
    where, public = _checked_imports(source)
    spread, mapped = _spread(source, directory)
    rows = [f'    "{n}": "{m}",\n' for n, m in where.items() if mapped.get(n) != m]
    table = "_WHERE = {\n" + "".join(line + "\n" for line in spread) + "".join(rows) + "}\n"
    names = "__all__ = [\n" + "".join(f'    "{n}",\n' for n in public) + "]\n"
    for start, text in (("_WHERE = {\n", table), ("__all__ = [\n", names)):
        begin, end = _block(start, source)
        source = source[:begin] + text + source[end:]
    return source


def _packages() -> list[Any]:
    from pathlib import Path

    here = Path(__file__).resolve().parent
    return sorted(p for p in here.rglob("__init__.py") if "_WHERE = {" in p.read_text("utf-8"))


def main(argv: list[str] | None = None) -> int:
    """``--write`` rewrites every lazy package's table; ``--check`` lists the stale ones."""
    args = sys.argv[1:] if argv is None else argv
    stale = []
    for path in _packages():
        source = path.read_text(encoding="utf-8")
        fresh = written(source, path.parent)
        if fresh != source:
            stale.append(path)
            if "--write" in args:
                path.write_text(fresh, encoding="utf-8")
    for path in stale:
        print(("wrote " if "--write" in args else "stale: ") + str(path))
    return 1 if stale and "--write" not in args else 0


if __name__ == "__main__":
    sys.exit(main())
