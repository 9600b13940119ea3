"""Data-aware skeletons of JSON, YAML, TOML and INI: keys and nesting stay, short values stay,
long strings are cut and long arrays show their first items and how many more there are."""

from __future__ import annotations

import configparser
import datetime
import json
import re
import tomllib
from typing import Any

from ..errors import SkeletonError

__all__ = ["data_skeleton"]

MAX_STRING = 40
MAX_ITEMS = 3
MAX_DEPTH = 8


def _short(value: Any, depth: int = 0) -> Any:
    if isinstance(value, dict):
        if depth >= MAX_DEPTH:
            return f"… ({len(value)} keys)"
        return {str(k): _short(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        if depth >= MAX_DEPTH:
            return f"… ({len(value)} items)"
        head = [_short(v, depth + 1) for v in value[:MAX_ITEMS]]
        if len(value) > MAX_ITEMS:
            head.append(f"… {len(value) - MAX_ITEMS} more items")
        return head
    if isinstance(value, str) and len(value) > MAX_STRING:
        cut = value[:MAX_STRING] + f"… ({len(value)} chars)"
        return cut if len(cut) < len(value) else value  # elide only when it shortens
    return value


# -- TOML -------------------------------------------------------------------------------------

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _toml_key(key: str) -> str:
    """A key as TOML writes it: bare when it can be, else a quoted string (``"a.b"`` stays one
    key, never a dotted path)."""
    return key if _BARE_KEY.match(key) else json.dumps(key, ensure_ascii=False)


def _toml_value(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        inner = ", ".join(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items())
        return "{ " + inner + " }" if inner else "{}"
    if isinstance(value, datetime.datetime | datetime.date | datetime.time):
        return value.isoformat()
    return str(value)


def _tables(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def _toml(
    table: dict[str, Any],
    path: tuple[str, ...],
    comments: dict[tuple[str, ...], list[str]],
    full: dict[str, Any],
) -> list[str]:
    lines = [
        f"{_toml_key(k)} = {_toml_value(v)}"
        for k, v in table.items()
        if not isinstance(v, dict) and not _tables(full.get(k))
    ]
    for key, value in table.items():
        name = (*path, key)
        header = ".".join(_toml_key(part) for part in name)
        if isinstance(value, dict):
            original = full.get(key, {})
            body = _toml(value, name, comments, original if isinstance(original, dict) else {})
            original = original if isinstance(original, dict) else {}
            own = any(
                not isinstance(v, dict) and not _tables(original.get(k)) for k, v in value.items()
            )
            # a table holding only sub-tables needs no header of its own
            if own or not value:
                lines += ["", *comments.get(name, []), f"[{header}]"]
            lines += body
        elif _tables(full.get(key)):
            tables = full[key]
            for item in tables[:MAX_ITEMS]:
                body = _toml(_short(item, len(name)), name, comments, item)
                lines += ["", *comments.get(name, []), f"[[{header}]]", *body]
            if len(tables) > MAX_ITEMS:
                lines.append(f"# … {len(tables) - MAX_ITEMS} more [[{header}]] tables")
    return lines


def _toml_comments(text: str) -> tuple[list[str], dict[tuple[str, ...], list[str]]]:
    """The file's opening comment block, and the comment lines right above each table header
    (by the header's key path)."""
    head: list[str] = []
    found: dict[tuple[str, ...], list[str]] = {}
    pending: list[str] = []
    opening = True
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith("#"):
            pending.append(stripped)
            continue
        if not stripped:
            if opening and pending:
                head, pending, opening = pending, [], False
            continue
        opening = False
        if stripped.startswith("[") and pending:
            path = _header_path(stripped)
            if path is not None:
                found.setdefault(path, pending)
        pending = []
    return head, found


def _header_path(line: str) -> tuple[str, ...] | None:
    body = line.split("#", 1)[0].strip() if "]" in line else line
    try:
        parsed: Any = tomllib.loads(body + "\n")
    except tomllib.TOMLDecodeError:
        return None
    path: list[str] = []
    while isinstance(parsed, dict | list) and parsed:
        if isinstance(parsed, list):
            parsed = parsed[0]
            continue
        (key, parsed), *_ = parsed.items()
        path.append(key)
    return tuple(path)


def _toml_skeleton(text: str) -> str:
    data = tomllib.loads(text)
    head, comments = _toml_comments(text)
    lines = [*head, *([""] if head else []), *_toml(_short(data), (), comments, data)]
    while lines and not lines[0]:
        lines.pop(0)
    return "\n".join(lines).strip() + "\n"


def data_skeleton(text: str, fmt: str) -> str:
    """The skeleton of ``text`` in ``fmt`` (``json``, ``yaml``, ``toml`` or ``ini``)."""
    try:
        if fmt == "json":
            return json.dumps(_short(json.loads(text)), indent=2, ensure_ascii=False) + "\n"
        if fmt == "yaml":
            import yaml

            documents = [d for d in yaml.safe_load_all(text) if d is not None]
            return yaml.safe_dump_all(
                [_short(d) for d in documents], sort_keys=False, allow_unicode=True, width=100
            )
        if fmt == "toml":
            return _toml_skeleton(text)
        if fmt == "ini":
            parser = configparser.ConfigParser(interpolation=None)
            parser.read_string(text)
            lines: list[str] = []
            for section in parser.sections():
                lines.append(f"[{section}]")
                lines += [f"{k} = {_short(v)}" for k, v in parser.items(section, raw=True)]
                lines.append("")
            return "\n".join(lines).strip() + "\n"
    except (ValueError, TypeError, configparser.Error) as exc:
        raise SkeletonError(f"{fmt.upper()} parse error: {exc}") from None
    except Exception as exc:  # yaml raises its own hierarchy
        if type(exc).__module__.startswith("yaml"):
            raise SkeletonError(f"YAML parse error: {exc}") from None
        raise
    raise SkeletonError(f"no data skeleton for {fmt!r}")
