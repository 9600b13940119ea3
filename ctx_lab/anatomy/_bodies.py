"""Recorded request bodies taken apart as a capture file's calls are: the body's pieces, its
response's usage and what the provider did on its side; the bodies read again for an export."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import TranscriptError, UsageError
from ..recordings import claude_code_registry, claude_code_reserve, is_claude_code_request
from ..recordings.transcripts import Usage
from ..tokens import CounterChoice
from ._capture import CapturedCall, CaptureStore
from ._piece import Piece
from ._pieces import pieces_of
from ._request import RequestAnatomy, anatomize, anatomy_counter
from ._session import Body, SessionAnatomy
from ._session_make import make_session

__all__ = [
    "body_anatomy",
    "capture_bodies",
    "captured_body",
    "from_bodies",
    "server_side_notes",
    "system_text",
    "usage_of",
]


def usage_of(response: Any, format: str) -> Usage | None:
    if not isinstance(response, Mapping) or not isinstance(response.get("usage"), Mapping):
        return None
    try:
        if format == "anthropic-messages":
            return Usage.from_anthropic(response["usage"])
        return Usage.from_openai(response["usage"])
    except TranscriptError:
        return None


def server_side_notes(response: Any) -> list[str]:
    """What the provider did on its side that the request does not show — a server-side
    compaction (``usage.iterations`` or a ``compaction`` block) or server tools (``server_tool_use``
    blocks or usage) — named, because each moves the reported input away from the count."""
    if not isinstance(response, Mapping):
        return []
    usage = response.get("usage")
    usage = usage if isinstance(usage, Mapping) else {}
    content = response.get("content")
    blocks = [b for b in content if isinstance(b, Mapping)] if isinstance(content, list) else []
    iterations = usage.get("iterations")
    steps = (
        [i for i in iterations if isinstance(i, Mapping)] if isinstance(iterations, list) else []
    )
    notes = []
    if any(i.get("type") == "compaction" for i in steps) or any(
        b.get("type") == "compaction" for b in blocks
    ):
        notes.append(
            "the provider compacted this request's history on its side: the reported input is "
            "the context after the compaction, so the difference is not a counting error"
        )
    used = Counter(
        str(b.get("name") or "server tool") for b in blocks if b.get("type") == "server_tool_use"
    )
    requests = usage.get("server_tool_use")
    if not used and isinstance(requests, Mapping):
        used = Counter(
            {
                str(k): v
                for k, v in requests.items()
                if isinstance(v, int) and not isinstance(v, bool) and v > 0
            }
        )
    if used:
        named = ", ".join(f"{name} ×{n}" for name, n in sorted(used.items()))
        notes.append(
            f"the provider ran server tools ({named}): their inputs and results count as input "
            "tokens the request does not hold, so they are part of the difference"
        )
    return notes


def system_text(pieces: Sequence[Piece]) -> str:
    """The system prompt's text, wherever the format puts it (a ``system`` field, the
    instructions, or role-``system``/``developer`` messages)."""
    return "\n".join(p.text for p in pieces if p.category == "system")


def body_anatomy(
    recorded: Body,
    source: str,
    model: str | None,
    counter: str | None,
    registry: str | None,
    counters: dict[str, CounterChoice] | None = None,
) -> tuple[RequestAnatomy, str] | None:
    """One recorded request body's anatomy, as a capture file's calls are taken apart (None
    when the body is not a model request or names no model); ``counters``: what each model
    counts with, resolved once for a session's bodies."""
    call_id, body, response, provider, notes = recorded
    try:
        format, pieces = pieces_of(body)
    except UsageError:
        return None
    chosen = model or str(body.get("model") or "")
    if not chosen:
        return None
    system = system_text(pieces)
    # Claude Code's window framing (its 200k window, its autocompact buffer) only for a request
    # that is Claude Code's; any other client of the API gets the model's window and reserve
    claude_code = provider == "anthropic" and is_claude_code_request(system)
    made = anatomize(
        pieces,
        source=source,
        format=format,
        model=chosen,
        counter=counter,
        registry=claude_code_registry(registry) if claude_code else registry,
        reported=usage_of(response, format),
        call=call_id,
        # Claude Code's request in a capture: its buffer, of a version the body does not say
        # (today's)
        autocompact=claude_code_reserve("") if claude_code else None,
        warnings=[*notes, *server_side_notes(response)],
        resolved=anatomy_counter(counter, chosen, counters),
    )
    return made, system


def captured_body(call: CapturedCall) -> Body | None:
    """A captured call as a recorded body (None when its request is not JSON), with what the
    capture says of it (cut at the limit, the stream assembled)."""
    body = call.request()
    if body is None:
        return None
    response, notes = call.assembled()
    if call.request_truncated:
        notes = ["the request was cut at the capture limit", *notes]
    return (call.id, body, response, call.provider, tuple(notes))


def capture_bodies(path: str | os.PathLike[str], last: int | None) -> list[Body]:
    """The captured calls' bodies (the newest ``last``), read again for an export."""
    with CaptureStore(path, readonly=True) as store:
        return [b for call in store.latest(last) if (b := captured_body(call)) is not None]


def from_bodies(
    recorded: Sequence[Body],
    name: str,
    call: int | None,
    session: bool,
    last: int | None,
    options: tuple[str | None, str | None, str | None],
) -> RequestAnatomy | SessionAnatomy:
    """Request bodies an export carried, taken apart as the capture file's were."""
    chosen = recorded[-last:] if last else recorded
    if not session:
        picked = chosen[-1] if call is None else next((b for b in chosen if b[0] == call), None)
        if picked is None:
            raise UsageError(f"{name} has no call {call} (it has {len(chosen)})")
        found = body_anatomy(picked, os.path.basename(name), *options)
        if found is None:
            raise UsageError(f"{name}: that call is not a model request")
        return found[0]
    counters: dict[str, CounterChoice] = {}
    base = os.path.basename(name)
    made = [m for b in chosen if (m := body_anatomy(b, base, *options, counters=counters))]
    return make_session(name, made, bodies=lambda: chosen)
