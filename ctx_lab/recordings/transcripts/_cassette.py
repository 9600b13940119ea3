"""A VCR cassette as a recorded session: each interaction whose request is a model call
(Anthropic Messages, OpenAI Chat Completions or Responses) and whose answer is a JSON object
becomes one ``{"request": …, "response": …}`` record, read as those formats are read; the
interactions that are not model calls (a token count, a file upload, a web page) and the
answers recorded as event streams are left out and counted by kind."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

from ...cassettes import body_of, is_cassette
from ._read import Record

__all__ = ["cassette_records", "is_cassette"]

_CALL_PATHS = ("/messages", "/chat/completions", "/responses")


def _is_model_call(request: Any, side: Mapping[str, Any]) -> bool:
    """A request body of a model call: ``messages`` or ``input``, sent to a model's path (any
    path for a body with ``messages``: a gateway's or a cloud's own); never a token count."""
    uri = side.get("uri")
    path = uri.split("?")[0] if isinstance(uri, str) else ""
    if not isinstance(request, Mapping) or "count_tokens" in path:
        return False
    if "messages" in request:
        return True
    return "input" in request and (not path or any(p in path for p in _CALL_PATHS))


def _with_model(request: Mapping[str, Any], side: Mapping[str, Any]) -> Mapping[str, Any]:
    """A body without ``model`` sent to Amazon Bedrock's ``/model/{modelId}/invoke`` (its
    InvokeModel path) names the model in the path: taken from there."""
    uri = side.get("uri")
    if "model" in request or not isinstance(uri, str) or "/model/" not in uri:
        return request
    model = unquote(uri.split("/model/", 1)[1].split("/", 1)[0])
    return {**request, "model": model} if model else request


def cassette_records(data: Mapping[str, Any], where: str) -> tuple[list[Record], Counter[str]]:
    """The model calls of cassette ``data`` as records (line = the interaction's number), and
    what was left out by kind."""
    found: list[Record] = []
    left: Counter[str] = Counter()
    for number, item in enumerate(data["interactions"], 1):
        request_side, response_side = item.get("request"), item.get("response")
        if not isinstance(request_side, Mapping) or not isinstance(response_side, Mapping):
            left["without a request and a response"] += 1
            continue
        request = body_of(request_side, f"{where} interaction {number}")
        if not _is_model_call(request, request_side):
            left["not a model call"] += 1
            continue
        status = response_side.get("status")
        code = status.get("code") if isinstance(status, Mapping) else status
        if isinstance(code, int) and not 200 <= code < 300:
            left[f"a model call answered {code}"] += 1
            continue
        response = body_of(response_side, f"{where} interaction {number}")
        if not isinstance(response, Mapping):
            left["a model call answered as an event stream"] += 1
            continue
        found.append(
            (number, {"request": _with_model(request, request_side), "response": response})
        )
    return found, left
