"""The request and response bodies an OTLP export of request files or captured calls carried
(``ctx_lab.request.body``, ``ctx_lab.response.body``, written by ``anatomy --otlp``): read back
as the calls they were, each attribute checked — a body that is not JSON, a call number that is
not one, is a located error."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ... import otel_names as otel
from ...errors import InvalidRecording
from ...validate import json_document
from ._otlp import _spans

__all__ = ["otlp_bodies"]


def otlp_bodies(
    path: str | os.PathLike[str],
) -> list[tuple[int, dict[str, Any], dict[str, Any] | None, str, tuple[str, ...]]]:
    """The request bodies an export of request files or captured calls carried
    (``ctx_lab.request.body``, ``ctx_lab.response.body``): ``(call id, body, response,
    provider, notes)`` per call, in order — empty for any other trace."""
    from ...packed import read_unpacked_text
    from ._read import records

    found = []
    for span in _spans(records(read_unpacked_text(Path(path), kind="recording"))):
        body = span.attrs.get(otel.REQUEST_BODY)
        if not isinstance(body, str):
            continue
        request = _json_attribute(body, otel.REQUEST_BODY)
        answer = span.attrs.get(otel.RESPONSE_BODY)
        response = _json_attribute(answer, otel.RESPONSE_BODY) if isinstance(answer, str) else None
        notes = span.attrs.get(otel.CALL_NOTES) or ()
        index = span.attrs.get(otel.CALL_INDEX) or 0
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            raise InvalidRecording(f"ctx_lab.call.index is {str(index)[:40]!r}: not a call number")
        if isinstance(request, dict):
            found.append((index, request, response if isinstance(response, dict) else None,
                          str(span.attrs.get(otel.CALL_PROVIDER) or "")[:100],
                          tuple(str(n) for n in notes) if isinstance(notes, list)
                          else ()))  # fmt: skip
    return found


def _json_attribute(text: str, key: str) -> Any:
    """A JSON document ctx_lab wrote into an attribute; a located error when it is not one."""
    try:
        return json_document(text)
    except (ValueError, RecursionError) as exc:
        raise InvalidRecording(f"{key} is not a JSON document ({str(exc)[:100]})") from None
