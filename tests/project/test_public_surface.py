"""The public surface of ctx_lab, frozen: every public module's ``__all__`` (derived by walking
the package, private ``_x`` modules left out) must equal the reviewed snapshot in
``tests/public_surface.txt`` — adding, removing or renaming a public name fails here until the
snapshot is rewritten with it (``python tests/project/test_public_surface.py --write``) and the change
reviewed, the way httpx checks its exported members. Every public name also has a docstring."""

from __future__ import annotations

import importlib
import pkgutil
import sys
import typing
from pathlib import Path

import pytest

SNAPSHOT = Path(__file__).resolve().parents[1] / "public_surface.txt"  # also run as a script


def public_modules() -> list[str]:
    """Every importable ctx_lab module outside private (``_x``) modules that has ``__all__``."""
    import ctx_lab

    names = ["ctx_lab"]
    for info in pkgutil.walk_packages(ctx_lab.__path__, "ctx_lab."):
        parts = info.name.split(".")[1:]
        if any(p.startswith("_") for p in parts) or "labextension" in parts:
            continue
        names.append(info.name)
    return sorted(n for n in names if hasattr(importlib.import_module(n), "__all__"))


def derived() -> list[str]:
    """``module: name`` for every public name, sorted."""
    return sorted(
        f"{module}: {name}"
        for module in public_modules()
        for name in importlib.import_module(module).__all__
    )


def snapshot() -> list[str]:
    return [line for line in SNAPSHOT.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_the_public_surface_is_frozen() -> None:
    found, frozen = set(derived()), set(snapshot())
    added, removed = sorted(found - frozen), sorted(frozen - found)
    assert not added and not removed, (
        "the public surface changed — review it, then rewrite the snapshot with "
        "`python tests/project/test_public_surface.py --write`:\n"
        + "\n".join([*(f"+ {n}" for n in added), *(f"- {n}" for n in removed)])
    )


SURFACE: dict[str, list[str]] = {}  # the snapshot by module
for _line in snapshot() if SNAPSHOT.exists() else []:
    _module, _name = _line.split(": ", 1)
    SURFACE.setdefault(_module, []).append(_name)


@pytest.mark.parametrize("module", sorted(SURFACE))
def test_every_public_name_exists_and_says_what_it_is(module: str) -> None:
    mod = importlib.import_module(module)
    assert (mod.__doc__ or "").strip(), module
    for name in mod.__all__:
        value = getattr(mod, name)
        if isinstance(value, type) or callable(value):
            if typing.get_origin(value) is not None or type(value).__module__ == "typing":
                continue  # a type alias
            assert (getattr(value, "__doc__", None) or "").strip(), f"{module}.{name}"


def test_no_deprecated_aliases_remain() -> None:
    """The package is unreleased: moved names are not kept as warning aliases."""
    for old in ("fileio", "textfile", "model_report", "token_report", "_deprecated"):
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(f"ctx_lab.{old}")
    for module, name in [("ctx_lab.read", "Toolbox"), ("ctx_lab.packet", "Summary")]:
        assert not hasattr(importlib.import_module(module), name)
    from ctx_lab.conversation import ContextManager

    assert not hasattr(ContextManager, "history_frame")


def test_a_package_is_typed() -> None:

    import ctx_lab

    assert (Path(ctx_lab.__file__).parent / "py.typed").is_file()


def test_errors_are_exported_from_ctx_lab_and_ctx_lab_errors_only() -> None:
    from ctx_lab import errors

    classes = {
        id(getattr(errors, name))
        for name in errors.__all__
        if isinstance(getattr(errors, name), type)
        and issubclass(getattr(errors, name), BaseException)
    }
    found = [
        f"{module}: {name}"
        for module in public_modules()
        if module not in ("ctx_lab", "ctx_lab.errors")
        for name in importlib.import_module(module).__all__
        if id(getattr(importlib.import_module(module), name, None)) in classes
    ]
    assert not found, "error classes exported from elsewhere:\n" + "\n".join(found)


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    SNAPSHOT.write_text("\n".join(derived()) + "\n", encoding="utf-8")
    print(f"wrote {SNAPSHOT} ({len(derived())} names)")
