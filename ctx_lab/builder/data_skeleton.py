"""Data-aware skeletons of JSON, YAML, TOML and INI: keys and nesting stay, short values stay,
long strings are cut and long arrays show their first items and how many more there are."""

from __future__ import annotations

import configparser
import json
import tomllib
from typing import Any

from .code_skeleton import SkeletonError

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
        return value[:MAX_STRING] + f"… ({len(value)} chars)"
    return value


def _toml_value(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + " }"
    return str(value)


def _toml(table: dict[str, Any], prefix: str = "") -> list[str]:
    lines = [f"{k} = {_toml_value(v)}" for k, v in table.items() if not isinstance(v, dict)]
    for key, value in table.items():
        if isinstance(value, dict):
            name = f"{prefix}.{key}" if prefix else key
            lines += ["", f"[{name}]", *_toml(value, name)]
    return lines


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
            return "\n".join(_toml(_short(tomllib.loads(text)))).strip() + "\n"
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
