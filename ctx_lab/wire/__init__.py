"""Payloads declared once: a result dataclass's fields — with their wire metadata
(:func:`wire`) — and the values derived from them (:func:`derived`) are the whole declaration
of its JSON form. :func:`to_wire` and :func:`from_wire` are ``to_dict`` and ``from_dict``;
:func:`json_schema` is ``schemas/<kind>.json`` (generated, checked for staleness), from which
the lab's TypeScript types, the OpenAPI responses and the MCP tools' output schemas follow.

A small codec of ctx_lab's own rather than pydantic: the payload classes are plain (often
frozen, slotted) dataclasses that engines build in hot loops; the codec reads their type hints
once per class, keeps the JSON Schema's vocabulary to what the lab's TypeScript generator
understands, and puts derived values (a severity, the rendered Markdown) beside the fields —
which pydantic would model as computed fields on a model class, not on these dataclasses.

>>> from dataclasses import dataclass, field
>>> @dataclass(frozen=True)
... class Meter:
...     used: int = field(metadata=wire("tokens used", minimum=0))
...     limit: int = 100
...     @derived({"type": "integer"}, "what is left")
...     def left(self) -> int:
...         return self.limit - self.used
>>> to_wire(Meter(30))
{'used': 30, 'limit': 100, 'left': 70}
>>> from_wire(Meter, {"used": 30, "left": 1})
Meter(used=30, limit=100)
"""

from __future__ import annotations

from ._declare import Wire, checking_names, derived, resolved_hints, wire
from ._decode import from_wire
from ._encode import to_wire
from ._schema import json_schema, nullable

__all__ = [
    "Wire",
    "checking_names",
    "derived",
    "from_wire",
    "json_schema",
    "nullable",
    "resolved_hints",
    "to_wire",
    "wire",
]
