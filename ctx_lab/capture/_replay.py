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

from ..cassettes import body_of, interactions_of, parse_recorded, plain_json
from ..errors import InputFileError, UsageError
from ._fake import Answer, send, sse_from_response

__all__ = ["Recorded", "RecordedUpstream", "recorded_answers"]

MAX_RECORDED = 100_000  # calls read from one file
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
                request = plain_json(call.request(), where)
                found.append(Recorded(request, plain_json(response, where), status))
    return found


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
        request = body_of(request, where) if isinstance(request, Mapping) else None
        response = body_of(response, where)
    if not isinstance(response, Mapping):
        raise UsageError(f"{where}: the recorded response is not a JSON object")
    return Recorded(request if isinstance(request, Mapping) else None, response, status)


def _from_json(path: str) -> list[Recorded]:
    from ..files import read_text

    data = interactions_of(parse_recorded(read_text(path), path))
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
