"""JSON Schemas of the versioned payloads (``application/vnd.ctx-lab.<kind>+json``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["KINDS", "load_schema"]

HERE = Path(__file__).resolve().parent
KINDS = tuple(sorted(p.stem for p in HERE.glob("*.json")))


def load_schema(kind: str) -> dict[str, Any]:
    """The JSON Schema of one payload kind."""
    path = HERE / f"{kind}.json"
    if not path.is_file():
        raise KeyError(f"no schema for payload kind {kind!r}; known: {', '.join(KINDS)}")
    return json.loads(path.read_text(encoding="utf-8"))
