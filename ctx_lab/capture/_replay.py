"""``ctx-lab capture --fake FILE``: recorded answers served as the upstream, so a demo or a
class runs the proxy, the monitor and the anatomy without a key or a network.

FILE is a capture file of ``ctx-lab capture`` (SQLite), or recorded calls as JSON: one
``{"request": body, "response": body}`` object (the pydantic-ai recordings beside their
cassettes), a list of them, JSON Lines of them, or a VCR cassette's ``interactions`` (JSON, or
YAML when PyYAML is installed), whose request and response bodies are ``parsed_body`` or
``body`` (``body.string`` in VCR's own form).

Each request is answered with the recorded call whose request body is the same (``stream``
aside); else with the next recorded answer in turn, from the first again once all were served.
A stream is asked for and a JSON answer recorded: the answer is sent as the provider's events
(:func:`sse_from_response`); a stream recorded and JSON asked for: the stream is assembled.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import InputFileError, UsageError
from ..validate import json_document
from ._fake import Answer, send, sse_from_response

__all__ = ["Recorded", "RecordedUpstream", "recorded_answers"]

MAX_RECORDED = 100_000  # calls read from one file
MAX_NODES = 2_000_000  # values in one file, every alias counted each time it is used
MAX_INT = 2**63  # the largest count or id a provider sends
REPLAYABLE = range(200, 600)  # statuses a proxy may send again (no 1xx: no upgrade, no 101)
NO_BODY = frozenset({204, 205, 304})  # statuses that carry no body (a recorded one has one)


@dataclass(frozen=True)
class Recorded:
    """One recorded call: its request body (None when unknown), its answer as one JSON object
    (a stream already assembled), and the status it had."""

    request: Mapping[str, Any] | None
    response: Mapping[str, Any]
    status: int = 200


def _key(body: Mapping[str, Any] | None) -> str | None:
    if body is None:
        return None
    return json.dumps({k: v for k, v in body.items() if k != "stream"}, sort_keys=True)


def _from_capture(path: str) -> list[Recorded]:
    from ..anatomy import CaptureStore

    found = []
    with CaptureStore(path, readonly=True) as store:
        for call in store.calls():
            response = call.response()
            status = call.status or 0
            replayable = status in REPLAYABLE and status not in NO_BODY
            if response is not None and replayable:  # a 101 or a 304 is not answered again
                where = f"{path} call {call.id}"
                request = _checked(call.request(), where)
                found.append(Recorded(request, _checked(response, where), status))
    return found


def _body(side: Mapping[str, Any]) -> Any:
    if "parsed_body" in side:
        return side["parsed_body"]
    body = side.get("body")
    if isinstance(body, Mapping) and "string" in body:
        body = body["string"]
    if isinstance(body, (str, bytes)):
        try:
            return json.loads(body)
        except ValueError:
            return None
    return body


def _checked(data: Any, where: str) -> Any:
    """``data`` if it is plain JSON a proxy can send: objects with string keys, lists, strings,
    finite numbers, integers within :data:`MAX_INT`, at most :data:`MAX_NODES` values with
    every YAML alias counted where it is used (an alias bomb expands there); else a usage error
    that says which."""
    seen = 0
    stack = [data]
    while stack:
        value = stack.pop()
        seen += 1
        if seen > MAX_NODES:
            raise UsageError(
                f"{where}: more than {MAX_NODES:,} values once its aliases are expanded"
            )
        if isinstance(value, Mapping):
            if not all(isinstance(k, str) for k in value):
                raise UsageError(f"{where}: an object with a key that is not a string")
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, bool) or value is None or isinstance(value, str):
            continue
        elif isinstance(value, int):
            if abs(value) > MAX_INT:
                raise UsageError(f"{where}: an integer of {len(str(abs(value)))}+ digits")
        elif isinstance(value, float):
            if value != value or value in (float("inf"), float("-inf")):
                raise UsageError(f"{where}: a number that is not finite ({value})")
        else:
            raise UsageError(f"{where}: a {type(value).__name__} value, which JSON has not")
    return data


def _status(code: Any, where: str) -> int:
    """A recorded status a proxy may answer with again."""
    if isinstance(code, Mapping):
        code = code.get("code", 200)
    if isinstance(code, bool) or not isinstance(code, int) or code not in REPLAYABLE:
        raise UsageError(f"{where}: status {code!r} is not one a proxy may answer with again")
    if code in NO_BODY:
        raise UsageError(f"{where}: status {code} carries no body, and the recording has one")
    return code


def _interaction(item: Any, where: str) -> Recorded:
    if not isinstance(item, Mapping) or not isinstance(item.get("response"), Mapping):
        raise UsageError(f"{where}: a recorded call needs a request and a response object")
    request, response = item.get("request"), item["response"]
    status = 200
    if "parsed_body" in response or "body" in response:  # a cassette's interaction
        status = _status(response.get("status", 200), where)
        request = _body(request) if isinstance(request, Mapping) else None
        response = _body(response)
    if not isinstance(response, Mapping):
        raise UsageError(f"{where}: the recorded response is not a JSON object")
    return Recorded(request if isinstance(request, Mapping) else None, response, status)


def _parse(text: str, path: str) -> Any:
    if path.endswith((".yaml", ".yml")):
        try:
            import yaml
        except ImportError:
            raise UsageError(f"{path}: reading a YAML cassette needs PyYAML") from None
        try:
            return yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise UsageError(f"{path}: not a YAML cassette ({exc})") from None
    try:
        return json_document(text)
    except ValueError:
        pass
    try:
        return [json_document(line) for line in text.splitlines() if line.strip()]
    except ValueError as exc:
        raise UsageError(f"{path}: neither JSON nor JSON Lines ({exc})") from None


def _from_json(path: str) -> list[Recorded]:
    from ..files import read_text

    data = _checked(_parse(read_text(path), path), path)
    if isinstance(data, Mapping):
        data = data.get("interactions", [data])
    if not isinstance(data, list):
        raise UsageError(f"{path}: expected recorded calls (an object or a list of them)")
    if len(data) > MAX_RECORDED:
        raise UsageError(f"{path}: more than {MAX_RECORDED:,} recorded calls")
    return [_interaction(item, f"{path} call {n}") for n, item in enumerate(data)]


def recorded_answers(path: str | os.PathLike[str]) -> list[Recorded]:
    """The recorded calls of ``path`` (see the module docstring); a usage error when it holds
    none or is neither a capture file nor recorded JSON."""
    from ..anatomy import is_capture

    name = os.fspath(path)
    if not os.path.isfile(name):
        raise InputFileError(f"{name}: no such file")
    found = _from_capture(name) if is_capture(name) else _from_json(name)
    if not found:
        raise UsageError(f"{name}: no recorded answers in it")
    return found


@dataclass
class RecordedUpstream:
    """Answers each request with its recorded answer (see the module docstring)."""

    recorded: list[Recorded]
    served: int = 0
    _by_key: dict[str, list[int]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for index, call in enumerate(self.recorded):
            key = _key(call.request)
            if key is not None:
                self._by_key.setdefault(key, []).append(index)

    def pick(self, body: Mapping[str, Any] | None) -> Recorded:
        """The recorded call that answers ``body``."""
        same = self._by_key.get(_key(body) or "", [])
        index = same[0] if same else self.served % len(self.recorded)
        if same:
            same.append(same.pop(0))  # the same request again gets the next recording of it
        self.served += 1
        return self.recorded[index]

    def answer(self, body: bytes) -> Answer:
        """The answer to one request body, as JSON or as the provider's stream."""
        try:
            request = json.loads(body) if body else None
        except ValueError:
            request = None
        request = request if isinstance(request, Mapping) else None
        chosen = self.pick(request)
        if request is not None and request.get("stream") and chosen.status == 200:
            return Answer.stream(sse_from_response(chosen.response))
        return Answer.json(chosen.response, chosen.status)

    def app(self) -> Any:
        """The aiohttp application: every path answered from the recording."""
        from aiohttp import web

        async def handle(request: Any) -> Any:
            return await send(request, self.answer(await request.read()))

        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", handle)
        return app


def describe(recorded: Iterable[Recorded]) -> str:
    """``12 recorded answers (claude-opus-4-6 ×10, gpt-4o ×2)``."""
    models: dict[str, int] = {}
    count = 0
    for call in recorded:
        count += 1
        name = str(call.response.get("model") or (call.request or {}).get("model") or "?")
        models[name] = models.get(name, 0) + 1
    shown = ", ".join(f"{m} ×{n}" for m, n in sorted(models.items(), key=lambda kv: -kv[1]))
    return f"{count} recorded answer{'s' if count != 1 else ''} ({shown})"
