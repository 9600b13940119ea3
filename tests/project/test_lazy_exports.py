"""Packages whose public names are imported on first use (ctx_lab._lazy): the type checker's
``if TYPE_CHECKING:`` imports and the runtime's ``_WHERE`` map say the same thing, and every
exported name resolves."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "ctx_lab"
LAZY = sorted(p.parent for p in PACKAGE.rglob("__init__.py") if "_WHERE = {" in p.read_text())


def _checked_imports(init: Path) -> dict[str, str]:
    """name -> ``module`` or ``module:attribute``, from the ``if TYPE_CHECKING:`` block."""
    tree = ast.parse(init.read_text(encoding="utf-8"))
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            for item in node.body:
                assert isinstance(item, ast.ImportFrom), ast.dump(item)
                module = "." * item.level + (item.module or "")
                for alias in item.names:
                    name = alias.asname or alias.name
                    found[name] = module if name == alias.name else f"{module}:{alias.name}"
    return found


def test_the_lazy_packages_are_found() -> None:
    assert {p.name for p in LAZY} >= {"commands", "packet", "tokens"}


@pytest.mark.parametrize("package", LAZY, ids=lambda p: p.name)
def test_type_checking_imports_and_where_agree(package: Path) -> None:
    name = "ctx_lab." + ".".join(package.relative_to(PACKAGE).parts)
    module = importlib.import_module(name)
    assert _checked_imports(package / "__init__.py") == module._WHERE
    assert set(module.__all__) <= set(module._WHERE)


@pytest.mark.parametrize("package", LAZY, ids=lambda p: p.name)
def test_every_exported_name_resolves(package: Path) -> None:
    name = "ctx_lab." + ".".join(package.relative_to(PACKAGE).parts)
    module = importlib.import_module(name)
    for exported in module._WHERE:
        assert getattr(module, exported) is not None, exported
    assert set(module._WHERE) <= set(dir(module))
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        module.nothing_here  # noqa: B018


@pytest.mark.parametrize("package", LAZY, ids=lambda p: p.name)
def test_where_and_all_are_written_from_the_one_spelling(package: Path) -> None:
    from ctx_lab._lazy import written

    source = (package / "__init__.py").read_text(encoding="utf-8")
    assert written(source, package) == source, "stale: run python -m ctx_lab._lazy --write"
