"""Every payload kind and its JSON Schema, from the result classes themselves.

A result whose JSON form is its declaration (:mod:`ctx_lab.wire`) has its schema made from the
class; ``schemas/<kind>.json`` is then a generated copy for readers outside Python
(``python -m ctx_lab.server._payloads`` rewrites those files; a test fails while one is stale).
A result with a hand-written ``to_dict`` keeps its hand-written schema file. The lab's
TypeScript types and the MCP tools' output schemas read :func:`payload_schemas`.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import sys
from typing import Any

from ..display import PAYLOAD_VERSION, RichResult
from ..schemas import HERE, KINDS, load_schema

__all__ = ["declared_schemas", "payload_classes", "payload_schemas", "write_declared"]

# the packages whose results are payloads (imported so that every result class is defined)
RESULT_PACKAGES = (
    "ctx_lab.analysis",
    "ctx_lab.anatomy",
    "ctx_lab.builder",
    "ctx_lab.commands",
    "ctx_lab.conversation",
    "ctx_lab.doctor",
    "ctx_lab.models",
    "ctx_lab.packet",
    "ctx_lab.paging",
    "ctx_lab.read",
    "ctx_lab.recordings",
    "ctx_lab.tokens",
)


def _subclasses(cls: type) -> list[type]:
    found: list[type] = []
    sub: type
    for sub in cls.__subclasses__():
        found.append(sub)
        found += _subclasses(sub)
    return found


def _ours(cls: type) -> bool:
    return cls.__module__.startswith("ctx_lab.")


def payload_classes() -> dict[str, list[type[RichResult]]]:
    """The result classes by payload kind (every subclass defined so far, the packages of
    results imported first; of a class defined twice under one name, the newer)."""
    for name in RESULT_PACKAGES:  # and their modules: a package may import them lazily
        package = importlib.import_module(name)
        for module in pkgutil.iter_modules(getattr(package, "__path__", [])):
            importlib.import_module(f"{name}.{module.name}")
    kinds: dict[str, dict[str, type[RichResult]]] = {}
    for cls in _subclasses(RichResult):  # in the order they were defined
        kind = vars(cls).get("payload_kind")
        if isinstance(kind, str):  # a class defined again (a notebook cell run twice) replaces
            kinds.setdefault(kind, {})[f"{cls.__module__}.{cls.__qualname__}"] = cls
    return {kind: list(classes.values()) for kind, classes in kinds.items()}


def declared_schemas(ours_only: bool = False) -> dict[str, dict[str, Any]]:
    """The schema of each kind whose classes all declare their JSON (:mod:`ctx_lab.wire`);
    ``ours_only``: of ctx_lab's own classes (not a test's or a plugin's)."""
    found: dict[str, dict[str, Any]] = {}
    for kind, classes in payload_classes().items():
        if ours_only and not all(_ours(c) for c in classes):
            continue
        if all(cls.declares_wire() for cls in classes):
            schemas = [cls.payload_schema() for cls in classes]
            if all(s == schemas[0] for s in schemas):
                found[kind] = schemas[0]
    return found


def payload_schemas(ours_only: bool = False) -> dict[str, dict[str, Any]]:
    """Every payload kind's schema, by kind: made from its classes where they declare it, else
    its hand-written ``schemas/<kind>.json`` (``ours_only``: ctx_lab's own kinds)."""
    made = {kind: load_schema(kind) for kind in KINDS}
    made.update(declared_schemas(ours_only))
    return dict(sorted(made.items()))


def schema_text(schema: dict[str, Any]) -> str:
    """A schema as its generated file holds it."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


# parts of a hand-written schema that are a declared kind's: (kind, property) → the declared
# kind whose property of that name it is (a corpus of policy runs carries the policies
# report's settings and recommendation, computed from its rows)
BORROWED: dict[tuple[str, str], str] = {
    ("corpus", "settings"): "policies",
    ("corpus", "recommended"): "policies",
}


def with_borrowed(kind: str, schema: dict[str, Any], declared: dict[str, Any]) -> dict[str, Any]:
    """``schema`` (a hand-written kind's) with the properties it borrows from declared kinds
    written from their declarations."""
    properties = dict(schema.get("properties", {}))
    for (owner, name), source in BORROWED.items():
        if owner == kind and source in declared:
            properties[name] = declared[source]["properties"][name]
    return {**schema, "properties": properties} if properties else schema


def write_declared() -> list[str]:
    """Rewrite ``schemas/<kind>.json`` of every declared kind, and the borrowed parts of the
    hand-written ones; the kinds written."""
    written = []
    declared = declared_schemas(ours_only=True)
    for kind, schema in declared.items():
        (HERE / f"{kind}.json").write_text(schema_text(schema), encoding="utf-8")
        written.append(kind)
    for kind in sorted({owner for owner, _ in BORROWED}):
        merged = with_borrowed(kind, load_schema(kind), declared)
        (HERE / f"{kind}.json").write_text(schema_text(merged), encoding="utf-8")
        written.append(kind)
    return written


if __name__ == "__main__":
    kinds = write_declared()
    print(f"wrote {len(kinds)} schemas (payload version {PAYLOAD_VERSION}): {', '.join(kinds)}")
    sys.exit(0)
