"""What fills every request an agent sends: tokens by category — system prompt, tool
definitions (MCP tools apart), memory files, user and assistant text, tool calls and results per
tool, thinking, images and documents — against the model's window, checked against what the
provider reported; across a session, what was new, carried over and dropped, and where the
prompt cache broke and why. From request bodies, transcripts, or the capture file of
``ctx-lab capture`` (the recording proxy).

>>> from ctx_lab.anatomy import anatomy_of
>>> anatomy_of("session.jsonl", session=True).ledger()      # doctest: +SKIP
"""

from ._build import anatomy_of, request_anatomy
from ._capture import CAPTURE_LIMIT, CapturedCall, CaptureStore, capture_transcript, is_capture
from ._piece import CATEGORIES, Piece
from ._pieces import detect_format, pieces_of
from ._plots import plot_request, plot_session
from ._request import AnatomyItem, RequestAnatomy, anatomize
from ._session import CallDiff, SessionAnatomy, cache_break, diff_calls
from ._stream import assemble_stream

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
