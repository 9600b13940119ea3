"""Recorded HTTP calls as projects commit them: a VCR cassette (``interactions``: each a
``request`` and a ``response`` whose body is ``parsed_body``, ``body`` or VCR's own
``body.string`` — text, or bytes such as a gzip-encoded answer), or plain
``{"request": …, "response": …}`` objects (one, a list, or JSON Lines of them).

Read once here for ``ctx-lab capture --fake`` (answers served again) and for the transcript
readers (a cassette of an agent's calls is a recorded session). Every value is checked to be
plain JSON within bounds — a YAML alias bomb counts each alias where it is used — and a damaged
file is an :class:`~ctx_lab.errors.InvalidRecording` that says where.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import FileTooLarge, InputFileError, InvalidRecording
from .validate import json_document

__all__ = [
    "MAX_INT",
    "MAX_NODES",
    "body_of",
    "interactions_of",
    "is_cassette",
    "parse_recorded",
    "plain_json",
]

MAX_NODES = 2_000_000  # values in one file, every alias counted each time it is used
MAX_INT = 2**63  # the largest count or id a provider sends
MAX_BODY = 64 << 20  # bytes one gzip-encoded body may unpack to


def plain_json(data: Any, where: str) -> Any:
    """``data`` if it is plain JSON: objects with string keys, lists, strings, finite numbers,
    integers within :data:`MAX_INT`, at most :data:`MAX_NODES` values with every YAML alias
    counted where it is used; else :class:`InvalidRecording` saying which."""
    seen = 0
    stack = [data]
    while stack:
        value = stack.pop()
        seen += 1
        if seen > MAX_NODES:
            raise InvalidRecording(
                f"{where}: more than {MAX_NODES:,} values once its aliases are expanded"
            )
        if isinstance(value, Mapping):
            if not all(isinstance(k, str) for k in value):
                raise InvalidRecording(f"{where}: an object with a key that is not a string")
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, bool) or value is None or isinstance(value, str | bytes):
            continue
        elif isinstance(value, int):
            if abs(value) > MAX_INT:
                raise InvalidRecording(f"{where}: an integer of {len(str(abs(value)))}+ digits")
        elif isinstance(value, float):
            if value != value or value in (float("inf"), float("-inf")):
                raise InvalidRecording(f"{where}: a number that is not finite ({value})")
        else:
            raise InvalidRecording(f"{where}: a {type(value).__name__} value, which JSON has not")
    return data


def parse_recorded(text: str, path: str) -> Any:
    """The recorded calls of a file's ``text``: YAML for a ``.yaml``/``.yml`` cassette, else one
    JSON document or JSON Lines; checked by :func:`plain_json`."""
    if path.endswith((".yaml", ".yml")):
        try:
            import yaml
        except ImportError:
            raise InvalidRecording(f"{path}: reading a YAML cassette needs PyYAML") from None
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise InvalidRecording(f"{path}: not a YAML cassette ({exc})") from None
        except RecursionError:
            raise InvalidRecording(f"{path}: nested too deeply") from None
        return plain_json(data, path)
    try:
        return plain_json(json_document(text), path)
    except ValueError:
        pass
    try:
        return plain_json([json_document(line) for line in text.splitlines() if line.strip()], path)
    except ValueError as exc:
        raise InvalidRecording(f"{path}: neither JSON nor JSON Lines ({exc})") from None


def is_cassette(data: Any) -> bool:
    """A VCR cassette: an object whose ``interactions`` are request/response pairs."""
    if not isinstance(data, Mapping):
        return False
    found = data.get("interactions")
    return (
        isinstance(found, list)
        and bool(found)
        and all(isinstance(i, Mapping) and "request" in i and "response" in i for i in found[:5])
    )


def interactions_of(data: Any) -> list[Any]:
    """The recorded calls of a parsed file: a cassette's ``interactions``, the objects of a
    list, or one object."""
    if isinstance(data, Mapping):
        found = data.get("interactions", [data])
        return list(found) if isinstance(found, list) else [data]
    return list(data) if isinstance(data, list) else [data]


def body_of(side: Mapping[str, Any], where: str = "body") -> Any:
    """The JSON body of one side of a recorded call (``parsed_body``, ``body``, or VCR's
    ``body.string``; bytes gzip-encoded are unpacked within :data:`MAX_BODY`); ``None`` when it
    is not JSON (a server-sent event stream, a form, nothing)."""
    if "parsed_body" in side:
        return side["parsed_body"]
    body = side.get("body")
    if isinstance(body, Mapping) and "string" in body:
        body = body["string"]
    if isinstance(body, bytes) and body.startswith(b"\x1f\x8b"):
        from .packed import unpack

        try:
            body = unpack(body, where, MAX_BODY, "recording")
        except (FileTooLarge, InputFileError) as exc:
            raise InvalidRecording(str(exc)) from None
    if isinstance(body, str | bytes):
        try:
            text = body if isinstance(body, str) else body.decode()
            return plain_json(json_document(text), where)
        except (ValueError, UnicodeDecodeError):
            return None
    return body
