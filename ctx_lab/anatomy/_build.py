"""Anatomies from what users have: a request body (Chat Completions, Responses, Messages), a
file of recorded requests (with their responses), a recorded session in any transcript format
ctx_lab reads (Claude Code, Codex, Gemini CLI …), or a capture file of the recording proxy."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from cachetools import LRUCache

from ..errors import InputFileError, InvalidRecording, TranscriptError, UsageError
from ..files import entry_kind, real_path
from ..recordings import agent_point, agent_registry, hidden_prefix
from ..recordings.transcripts import Transcript, load_transcript, otlp_bodies, recording_rows
from ..tokens import CounterChoice
from ._bodies import (
    body_anatomy,
    capture_bodies,
    captured_body,
    from_bodies,
    server_side_notes,
    system_text,
    usage_of,
)
from ._capture import CapturedCall, CaptureStore, is_capture
from ._pieces import SessionPieces, pieces_of
from ._request import ItemMemo, RequestAnatomy, anatomize, anatomy_counter
from ._session import SessionAnatomy
from ._session_make import make_session

__all__ = ["anatomy_of", "request_anatomy"]

_RAW = ("openai-chat", "openai-responses", "anthropic-messages")


def request_anatomy(
    body: Mapping[str, Any],
    *,
    response: Mapping[str, Any] | None = None,
    model: str | None = None,
    counter: str | None = None,
    registry: str | None = None,
    source: str = "request",
    call: int | None = None,
    mcp_tools: Sequence[str] = (),
) -> RequestAnatomy:
    """The anatomy of one request body (its response, if given, supplies the reported
    usage); ``model`` defaults to the body's."""
    format, pieces = pieces_of(body, mcp_tools=mcp_tools)
    chosen = model or str(body.get("model") or "")
    if not chosen:
        raise UsageError("the request names no model: pass --model")
    return anatomize(
        pieces,
        source=source,
        format=format,
        model=chosen,
        counter=counter,
        registry=registry,
        reported=usage_of(response, format),
        call=call,
        warnings=server_side_notes(response),
    )


def _raw_calls(path: str) -> list[tuple[Mapping[str, Any], Mapping[str, Any] | None]]:
    """Recorded request bodies (with their responses, when recorded beside them)."""
    found = []
    for _, record in recording_rows(path):
        if not isinstance(record, Mapping):
            continue
        request = record.get("request", record)
        response = record.get("response")
        if isinstance(request, Mapping) and (
            "messages" in request or "input" in request or "system" in request
        ):
            found.append((request, response if isinstance(response, Mapping) else None))
    return found


# a captured call never changes once written: its anatomy is kept (a monitor polling a file
# every second counts only the calls it has not seen)
_CAPTURED: LRUCache[tuple[Any, ...], tuple[RequestAnatomy, str] | None] = LRUCache(4096)
_READ_AT_ONCE = 256  # captured calls read whole at a time


def _captured_session(
    store: CaptureStore,
    path: str,
    real: str,
    last: int | None,
    options: tuple[str | None, str | None, str | None],
) -> list[tuple[RequestAnatomy, str] | None]:
    """The anatomies of the newest ``last`` captured calls: their ids are read first (no
    bodies), and only the calls not already taken apart are read whole — a monitor's poll
    reads just the calls that came since the last one."""
    index = store.ids(last)
    keys = [(path, real, i, started, size, *options) for i, started, size in index]
    made: dict[Any, tuple[RequestAnatomy, str] | None] = {}
    counters: dict[str, CounterChoice] = {}  # per model, resolved once for the session
    unseen = []
    for key in keys:
        if key in _CAPTURED:
            made[key] = _CAPTURED[key]
        else:
            unseen.append(key[2])
    for chunk in range(0, len(unseen), _READ_AT_ONCE):  # bodies a chunk at a time, not all held
        for found in store.by_ids(unseen[chunk : chunk + _READ_AT_ONCE]):
            key = (path, real, found.id, found.started, found.request_bytes, *options)
            made[key] = _CAPTURED[key] = _made(path, found, *options, counters=counters)
    # the result is built from what was made here, never read back from the bounded cache
    # (a session longer than the cache would otherwise lose its first calls)
    return [made.get(key) for key in keys]


def _captured(
    path: str,
    real: str,
    call: CapturedCall,
    model: str | None,
    counter: str | None,
    registry: str | None,
) -> tuple[RequestAnatomy, str] | None:
    key = (path, real, call.id, call.started, call.request_bytes, model, counter, registry)
    if key not in _CAPTURED:
        _CAPTURED[key] = _made(path, call, model, counter, registry)
    return _CAPTURED[key]


def _made(
    path: str,
    call: CapturedCall,
    model: str | None,
    counter: str | None,
    registry: str | None,
    counters: dict[str, CounterChoice] | None = None,
) -> tuple[RequestAnatomy, str] | None:
    recorded = captured_body(call)
    if recorded is None:
        return None
    return body_anatomy(recorded, os.path.basename(path), model, counter, registry, counters)


def _pick(calls: Sequence[Any], call: int | None, what: str) -> Any:
    if not calls:
        raise UsageError(f"{what} holds no call to take apart")
    if call is None:
        return calls[-1]
    for found in calls:
        number = getattr(found, "id", None)
        if (number if number is not None else found.index + 1) == call:  # calls count from 1
            return found
    raise UsageError(f"{what} has no call {call} (it has {len(calls)})")


def anatomy_of(
    path: str | os.PathLike[str],
    *,
    call: int | None = None,
    session: bool = False,
    model: str | None = None,
    counter: str | None = None,
    registry: str | None = None,
    last: int | None = None,
    replay: bool = True,
    label: str | None = None,
) -> RequestAnatomy | SessionAnatomy:
    """The anatomy of one call (``call``: its id in a capture file or index in a transcript;
    default the last) or, with ``session``, of every call (the ``last`` ones only, when given)
    — from a capture file, a file of request bodies, or a transcript."""
    name = label or os.fspath(path)
    kind = entry_kind(path)
    if kind != "file":  # a FIFO, device or socket would block or never end: refused unopened
        what = "no such file" if kind == "missing" else f"not a regular file ({kind})"
        raise InputFileError(f"{name}: {what}")
    if is_capture(path):
        return _from_capture(path, name, call, session, last, (model, counter, registry))
    failed: TranscriptError | None = None
    try:
        transcript = load_transcript(path)
    except TranscriptError as exc:
        transcript, failed = None, exc
    if transcript is not None and transcript.format == "otlp":
        recorded = otlp_bodies(path)
        if recorded:  # an export of request bodies or captured calls: taken apart as they were
            return from_bodies(recorded, name, call, session, last, (model, counter, registry))
    if transcript is None or transcript.format in _RAW:
        raw = _raw_calls(os.fspath(path))
        if not raw and isinstance(failed, InvalidRecording):  # a recording, but a bad one
            raise failed
        if not raw:
            raise UsageError(f"{name}: no request body, transcript or capture to take apart")
        indexed = list(enumerate(raw, start=1))  # calls count from 1
        if not session:
            index, (body, response) = indexed[-1] if call is None else _raw_index(indexed, call)
            return request_anatomy(
                body, response=response, model=model, counter=counter, registry=registry,
                source=name, call=index,
            )  # fmt: skip
        chosen = indexed[-last:] if last else indexed
        made = []
        for index, (body, response) in chosen:
            anatomy = request_anatomy(
                body, response=response, model=model, counter=counter, registry=registry,
                source=name, call=index,
            )  # fmt: skip
            made.append((anatomy, system_text(pieces_of(body)[1])))
        kept = [(index, body, response, "", ()) for index, (body, response) in chosen]
        return make_session(name, made, bodies=lambda: kept)
    return _from_transcript(transcript, name, call, session, model, counter, registry, last, replay)


def _from_capture(
    path: str | os.PathLike[str],
    name: str,
    call: int | None,
    session: bool,
    last: int | None,
    options: tuple[str | None, str | None, str | None],
) -> RequestAnatomy | SessionAnatomy:
    """One captured call (by id; default the newest) or the newest ``last`` as a session —
    reading only those rows."""
    real = os.fspath(real_path(path))
    with CaptureStore(path, readonly=True) as store:
        if session:
            every = _captured_session(store, name, real, last, options)
            made = [m for m in every if m is not None]
            skipped = len(every) - len(made)
            notes = [f"{skipped} captured call(s) are not model requests"] if skipped else []
            real_last = last
            return make_session(name, made, (), notes,
                            bodies=lambda: capture_bodies(path, real_last))  # fmt: skip
        picked = store.latest(1) if call is None else _as_list(store.call(call))
        if not picked:
            held = store.count()
            if not held:
                raise UsageError(f"{name} holds no call to take apart")
            raise UsageError(f"{name} has no call {call} (it has {held})")
    found = _captured(name, real, picked[0], *options)
    if found is None:
        raise UsageError(f"{name}: that captured call is not a model request")
    return found[0]


def _as_list(found: CapturedCall | None) -> list[CapturedCall]:
    return [] if found is None else [found]


def _raw_index(indexed: list[Any], call: int) -> Any:
    if not 1 <= call <= len(indexed):
        raise UsageError(f"no call {call}: the file holds {len(indexed)} (1–{len(indexed)})")
    return indexed[call - 1]


_OPENAI_FORMATS = ("openai-chat", "openai-responses", "codex")


def _from_transcript(
    transcript: Transcript,
    name: str,
    call: int | None,
    session: bool,
    model: str | None,
    counter: str | None,
    registry: str | None,
    last: int | None,
    replay: bool,
) -> RequestAnatomy | SessionAnatomy:
    calls = list(transcript.calls)
    notes = list(transcript.warnings)
    if not transcript.system and not transcript.tools:
        notes.append(
            "the recording holds no system prompt or tool definitions: they are not counted"
        )

    inferred: dict[str | None, int | None] = {}  # per model: the engine's hidden prefix
    sized = agent_registry(transcript, registry)  # Claude Code: its window and buffer
    # each message's pieces made, counted and hashed once: a call costs its own growth
    provider = "openai" if transcript.format in _OPENAI_FORMATS else "anthropic"
    shared = SessionPieces(transcript.system, transcript.tools, provider)
    memo: ItemMemo = {}
    counters: dict[str, CounterChoice] = {}  # per model: resolved once (calibrations on disk)

    def one(found: Any) -> tuple[RequestAnatomy, str]:
        start, end = transcript.sent_range(found)
        if found.model not in inferred:  # the first model's is what ctx-lab cache reports
            inferred[found.model] = hidden_prefix(transcript, model=found.model)
        chosen = model or found.model or (transcript.models[0] if transcript.models else "")
        if not chosen:
            transcript.require_model(None, name)
        pieces = shared.of(transcript.messages, start, end)
        made = anatomize(
            pieces,
            source=name,
            format=transcript.format,
            model=chosen,
            counter=counter,
            registry=sized,
            reported=found.usage,
            call=found.index + 1,
            autocompact=_agent_reserve(transcript, sized, chosen),
            system_inferred=inferred[found.model],
            warnings=notes,
            memo=memo,
            resolved=anatomy_counter(counter, chosen, counters),
        )
        return made, transcript.system

    if not session:
        return one(_pick(calls, call, name))[0]
    chosen_calls = calls[-last:] if last else calls
    made = [one(c) for c in chosen_calls]
    replayed: list[int | None] = []
    if replay and made:
        from ..recordings import replay_report

        try:
            report = replay_report(  # its sizes alone: no other registry's prices
                transcript, [made[-1][0].model], counter=counter or "model", compare_prices=False
            )
            by_call = {r["call"]: r["context_tokens"] for r in report.rows}
            replayed = [by_call.get(c.index + 1) for c in chosen_calls]
        except Exception as exc:  # the anatomy stands without the replay beside it
            notes.append(f"replay not shown ({type(exc).__name__}: {exc})")
    return make_session(name, made, replayed, notes, transcript, simulated=transcript)


def _agent_reserve(transcript: Any, sized: Any, model: str) -> int | None:
    """What the recording's agent keeps free of its window before it compacts (the one rule,
    ``ctx_lab.conversation.agent_point``), None where its agent has none known here."""
    window = sized.get(model).limits.context_window
    point = agent_point(transcript, window)
    return None if point is None else window - point
