"""What agents are told about the ``read`` and ``page`` tools: one text each, used by the MCP
server's tool list and by the tool definitions of :mod:`ctx_lab.tools`."""

from __future__ import annotations

__all__ = ["PAGE_INSTRUCTIONS", "READ_INSTRUCTIONS"]

READ_INSTRUCTIONS = (
    "Read a file, web page (returned as Markdown) or PDF, one chunk at a time. "
    "The result may have truncated=true with a next_cursor. To continue reading the same "
    "resource, call read again with the same uri and cursor=next_cursor. Stop when "
    "truncated=false. Prefer reading only as much as you need. If cursor_reset is true the "
    "cursor could not be used and the result is the first chunk again."
)
PAGE_INSTRUCTIONS = (
    "Fetch a range of lines (1-based, inclusive; end_line=0 means to the end) of a stored "
    "artifact, to recover detail that compression left out. Every call spends from a per-task "
    "quota of pages and tokens; the result reports what is left. When the lines cost more "
    "than the tokens left, you get the longest run of whole lines that fits, truncated=true and "
    "next_start_line. Ask only for the lines you need."
)
