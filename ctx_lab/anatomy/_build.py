"""Anatomies from what users have: a request body (Chat Completions, Responses, Messages), a
file of recorded requests (with their responses), a recorded session in any transcript format
ctx_lab reads (Claude Code, Codex, Gemini CLI …), or a capture file of the recording proxy."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

from cachetools import LRUCache

from ..conversation.transcripts import Transcript, Usage, load_transcript, records
from ..errors import InputFileError, TranscriptError, UsageError
from ..files import entry_kind, read_text, real_path
from ._capture import CapturedCall, CaptureStore, is_capture
from ._pieces import Piece, pieces_of, pieces_of_transcript
from ._request import RequestAnatomy, anatomize
from ._session import CallDiff, SessionAnatomy, diff_calls

__all__ = ["anatomy_of", "request_anatomy"]

_RAW = ("openai-chat", "openai-responses", "anthropic-messages")


def _usage(response: Any, format: str) -> Usage | None:
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


def _system_text(pieces: Sequence[Piece]) -> str:
    return "\n".join(p.text for p in pieces if p.category == "system" and p.message == -1)


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
        reported=_usage(response, format),
        call=call,
        warnings=server_side_notes(response),
    )


def _session(
    source: str,
    made: list[tuple[RequestAnatomy, str]],
    replayed: Sequence[int | None] = (),
    warnings: Sequence[str] = (),
    transcript: Any = None,
) -> SessionAnatomy:
    diffs: list[CallDiff | None] = [None]
    for (before, system_before), (after, system_after) in pairwise(made):
        diffs.append(diff_calls(before, after, [system_before, system_after]))
    return SessionAnatomy(
        source, tuple(a for a, _ in made), tuple(diffs[: len(made)]), tuple(replayed),
        tuple(warnings), transcript,
    )  # fmt: skip


def _raw_calls(path: str) -> list[tuple[Mapping[str, Any], Mapping[str, Any] | None]]:
    """Recorded request bodies (with their responses, when recorded beside them)."""
    found = []
    for _, record in records(read_text(Path(path))):
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
    unseen = [key[2] for key in keys if key not in _CAPTURED]
    if unseen:
        for found in store.by_ids(unseen):
            key = (path, real, found.id, found.started, found.request_bytes, *options)
            _CAPTURED[key] = _made(path, found, *options)
    return [_CAPTURED.get(key) for key in keys]


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
    path: str, call: CapturedCall, model: str | None, counter: str | None, registry: str | None
) -> tuple[RequestAnatomy, str] | None:
    body = call.request()
    if body is None:
        return None
    try:
        format, pieces = pieces_of(body)
    except UsageError:
        return None
    chosen = model or str(body.get("model") or "")
    if not chosen:
        return None
    warnings = ["the request was cut at the capture limit"] if call.request_truncated else []
    response, notes = call.assembled()
    made = anatomize(
        pieces,
        source=os.path.basename(path),
        format=format,
        model=chosen,
        counter=counter,
        registry=registry,
        reported=_usage(response, format),
        call=call.id,
        autocompact=call.provider == "anthropic",
        warnings=[*warnings, *notes, *server_side_notes(response)],
    )
    return made, _system_text(pieces)


def _pick(calls: Sequence[Any], call: int | None, what: str) -> Any:
    if not calls:
        raise UsageError(f"{what} holds no call to take apart")
    if call is None:
        return calls[-1]
    for found in calls:
        if getattr(found, "id", getattr(found, "index", None)) == call:
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
    try:
        transcript = load_transcript(path)
    except TranscriptError:
        transcript = None
    if transcript is None or transcript.format in _RAW:
        raw = _raw_calls(os.fspath(path))
        if not raw:
            raise UsageError(f"{name}: no request body, transcript or capture to take apart")
        indexed = list(enumerate(raw))
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
            made.append((anatomy, _system_text(pieces_of(body)[1])))
        return _session(name, made)
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
            return _session(name, made, (), notes)
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
    if not 0 <= call < len(indexed):
        raise UsageError(f"no call {call}: the file holds {len(indexed)} (0–{len(indexed) - 1})")
    return indexed[call]


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

    def one(found: Any) -> tuple[RequestAnatomy, str]:
        start, end = transcript.sent_range(found)
        chosen = model or found.model or (transcript.models[0] if transcript.models else "")
        if not chosen:
            raise UsageError(f"{name}: the transcript names no model: pass --model")
        pieces = pieces_of_transcript(
            transcript.messages[start:end],
            transcript.system,
            transcript.tools,
            provider="openai" if transcript.format in _OPENAI_FORMATS else "anthropic",
        )
        made = anatomize(
            pieces,
            source=name,
            format=transcript.format,
            model=chosen,
            counter=counter,
            registry=registry,
            reported=found.usage,
            call=found.index,
            autocompact=transcript.format == "claude-code",
            warnings=notes,
        )
        return made, transcript.system

    if not session:
        return one(_pick(calls, call, name))[0]
    chosen_calls = calls[-last:] if last else calls
    made = [one(c) for c in chosen_calls]
    replayed: list[int | None] = []
    if replay and made:
        from ..conversation import replay_report

        try:
            report = replay_report(transcript, [made[-1][0].model], counter=counter or "model")
            by_call = {r["call"]: r["context_tokens"] for r in report.rows}
            replayed = [by_call.get(c.index) for c in chosen_calls]
        except Exception as exc:  # the anatomy stands without the replay beside it
            notes.append(f"replay not shown ({type(exc).__name__}: {exc})")
    return _session(name, made, replayed, notes, transcript)
