"""What fills every request an agent sends: tokens by category — system prompt, tool
definitions (MCP tools apart), memory files, user and assistant text, tool calls and results per
tool, thinking, images and documents — against the model's window, checked against what the
provider reported; across a session, what was new, carried over and dropped, and where the
prompt cache broke and why. From request bodies, transcripts, or the capture file of
``ctx-lab capture`` (the recording proxy).

>>> from ctx_lab.anatomy import anatomy_of
>>> anatomy_of("session.jsonl", session=True).ledger()      # doctest: +SKIP
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import exports

if TYPE_CHECKING:
    from ._build import anatomy_of, request_anatomy
    from ._capture import CAPTURE_LIMIT, CapturedCall, CaptureStore, capture_transcript, is_capture
    from ._piece import CATEGORIES, Piece
    from ._pieces import detect_format, pieces_of
    from ._plots import plot_request, plot_session
    from ._request import AnatomyItem, RequestAnatomy, anatomize
    from ._session import CallDiff, SessionAnatomy, cache_break, diff_calls
    from ._stream import assemble_stream

# where each public name lives: imported on first use (ctx_lab._lazy)
_WHERE = {
    "anatomy_of": "._build",
    "request_anatomy": "._build",
    "CAPTURE_LIMIT": "._capture",
    "CapturedCall": "._capture",
    "CaptureStore": "._capture",
    "capture_transcript": "._capture",
    "is_capture": "._capture",
    "CATEGORIES": "._piece",
    "Piece": "._piece",
    "detect_format": "._pieces",
    "pieces_of": "._pieces",
    "plot_request": "._plots",
    "plot_session": "._plots",
    "AnatomyItem": "._request",
    "RequestAnatomy": "._request",
    "anatomize": "._request",
    "CallDiff": "._session",
    "SessionAnatomy": "._session",
    "cache_break": "._session",
    "diff_calls": "._session",
    "assemble_stream": "._stream",
}
__getattr__, __dir__ = exports(__name__, _WHERE)

__all__ = [
    "CAPTURE_LIMIT",
    "CATEGORIES",
    "AnatomyItem",
    "CallDiff",
    "CaptureStore",
    "CapturedCall",
    "Piece",
    "RequestAnatomy",
    "SessionAnatomy",
    "anatomize",
    "anatomy_of",
    "assemble_stream",
    "cache_break",
    "capture_transcript",
    "detect_format",
    "diff_calls",
    "is_capture",
    "pieces_of",
    "plot_request",
    "plot_session",
    "request_anatomy",
]
