"""Steering files of ``.context/steering/``: YAML front matter saying when they apply, and a
body of behavioural rules."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..validate import shown
from ._text import (
    strip_comments,
)
from ._text import (
    where as _where,
)

__all__ = [
    "DEFAULT_STEERING_PRIORITY",
    "INCLUSIONS",
    "STEERING_PLACEHOLDER",
    "Steering",
    "front_matter",
    "parse_steering",
]

STEERING_PLACEHOLDER = "<!-- remove this after you edit the steering file !-->"
_STEERING_PLACEHOLDER = re.compile(
    r"<!--\s*remove this after you edit the steering file\s*!?\s*-->", re.IGNORECASE
)
INCLUSIONS = ("always", "auto", "manual")
DEFAULT_STEERING_PRIORITY = 50


@dataclass(frozen=True)
class Steering:
    """A steering file of ``.context/steering/``: behavioural rules and when they apply.

    ``inclusion`` is ``always`` (every packet), ``auto`` (when a keyword of ``description`` is
    among the packet's focus or task keywords) or ``manual`` (only when named); lower
    ``priority`` goes first. ``body`` is the Markdown after the front matter, comments removed.
    """

    name: str
    description: str
    inclusion: str
    priority: int
    body: str
    source: str
    line: int
    tools: tuple[str, ...] = ()

    @property
    def title(self) -> str:
        """The file's name (front matter ``name``)."""
        return self.name


def front_matter(lines: list[str]) -> tuple[list[str], int] | None:
    """A file's ``---`` front matter: its lines and the 0-based index of the first body line
    (None when the file has none)."""
    if not lines or lines[0].strip() != "---":
        return None
    for i in range(1, len(lines)):
        if lines[i].strip() in ("---", "..."):
            return lines[1:i], i + 1
    return None


def parse_steering(
    text: str, *, source: str = "", stem: str = "", warnings: list[str] | None = None
) -> Steering | None:
    """A steering file: YAML front matter (``name``, ``description``, ``inclusion``,
    ``priority``, ``tools``) and a body. None when the body still holds the scaffold's
    placeholder marker or is empty (with a warning). Front-matter problems fall back to the
    defaults (name = file stem, ``always``, priority 50) with a warning each."""
    problems = warnings if warnings is not None else []
    lines = text.split("\n")
    found = front_matter(lines)
    data: Any = {}
    body_start = 0
    if found is None:
        problems.append(
            f"{_where(source, 1)}: no front matter (--- name/description/inclusion ---): "
            f"read as inclusion always, priority {DEFAULT_STEERING_PRIORITY}"
        )
    else:
        matter, body_start = found
        data, problem = matter_data(matter)
        if problem is not None:
            problems.append(
                f"{_where(source, 2 + problem)}: front matter is not valid YAML: defaults used"
            )
        data = data or {}
        if not isinstance(data, dict):
            problems.append(f"{_where(source, 2)}: front matter is not a mapping: defaults used")
            data = {}

    def field_text(key: str, default: str) -> str:
        value = data.get(key, default)
        if value is None:
            return default
        if not isinstance(value, str | int | float) or isinstance(value, bool):
            problems.append(f"{_where(source, 2)}: front matter {key} is not text: ignored")
            return default
        return str(value).strip()

    name = field_text("name", stem) or stem
    description = field_text("description", "")
    inclusion = field_text("inclusion", "always").lower()
    if inclusion not in INCLUSIONS:
        problems.append(
            f"{_where(source, 2)}: inclusion {inclusion!r} is not one of "
            f"{', '.join(INCLUSIONS)}: read as manual (included only when named)"
        )
        inclusion = "manual"
    priority = data.get("priority", DEFAULT_STEERING_PRIORITY)
    if isinstance(priority, bool) or not isinstance(priority, int):
        problems.append(
            f"{_where(source, 2)}: priority {shown(priority)} is not an integer: "
            f"{DEFAULT_STEERING_PRIORITY} used"
        )
        priority = DEFAULT_STEERING_PRIORITY
    tools_value = data.get("tools") or ()
    tools = (
        tuple(str(t) for t in tools_value if isinstance(t, str))
        if isinstance(tools_value, list)
        else ()
    )
    body_text = "\n".join(lines[body_start:])
    if _STEERING_PLACEHOLDER.search(body_text):
        problems.append(
            f"{_where(source, body_start + 1)}: still holds the scaffold's placeholder "
            f"{STEERING_PLACEHOLDER}: skipped until it is edited"
        )
        return None
    body_lines = strip_comments(body_text).split("\n")
    first = 0
    while first < len(body_lines) and not body_lines[first].strip():
        first += 1
    body = "\n".join(body_lines[first:]).strip()
    if not body:
        problems.append(f"{_where(source, body_start + 1)}: empty body: skipped")
        return None
    return Steering(
        name=name,
        description=description,
        inclusion=inclusion,
        priority=priority,
        body=body,
        source=source,
        line=body_start + first + 1,
        tools=tools,
    )


def matter_data(matter: list[str]) -> tuple[object, int | None]:
    """Front matter's lines read as YAML (``yaml.safe_load``): ``(data, None)``, or
    ``(None, line)`` when it is not valid YAML (``line``: where the problem is, counted from
    the matter's first line, 0). PyYAML is imported here, when a file has front matter — not
    when the packet engine is (10 ms of every start)."""
    import yaml

    try:
        return yaml.safe_load("\n".join(matter)), None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        return None, mark.line if mark is not None else 0
