"""What one read returns: a chunk, where it is in the document, and how to continue."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Any

from ..display import RichResult, escape
from ..wire import derived, nullable, wire

__all__ = ["ReadResult"]

_PAGE_INFO = {
    "type": "object",
    "properties": {
        "page_start": {"type": "integer", "minimum": 0},
        "page_end": {"type": "integer", "minimum": 0},
        "total_pages": {"type": "integer", "minimum": 0},
    },
    "required": ["page_start", "page_end", "total_pages"],
}


@dataclass(frozen=True, kw_only=True)
class ReadResult(RichResult):
    """One chunk of a resource, how to continue, and what the resource is."""

    uri: str
    content: str
    truncated: bool
    next_cursor: str | None
    content_type: str
    kind: str = field(metadata=wire(enum=("html", "text", "pdf", "unknown")))
    page_info: dict[str, int] | None = field(
        default=None, metadata=wire(schema=lambda: nullable(_PAGE_INFO))
    )
    cursor_reset: bool = False
    cursor_reason: str | None = None
    position: dict[str, Any] = field(
        default_factory=dict,
        metadata=wire(
            "unit (pages or chars), start, end, total; for text also chunk and chunks "
            "(1-based chunk number and count at this chunk size)"
        ),
    )
    cache_hit: bool = False
    max_chars: int | None = field(default=None, metadata=wire("the chunk size used"))
    max_chars_asked: int | None = field(
        default=None,
        metadata=wire("what was asked, when over the 20,000 limit (then max_chars is the limit)"),
    )
    note: str | None = field(
        default=None,
        metadata=wire("what was done instead of what was asked (a page past the end: the last)"),
    )
    # flags the next chunk's line repeats (--root, --max-chars): what the line is made of
    next_flags: tuple[str, ...] = field(
        default=(), metadata=wire("the flags the next chunk's line repeats (--root, --max-chars)")
    )
    # how the next chunk is asked for: "%ctx" (a kernel: @last) or "ctx-lab" (a shell)
    next_via: str = field(
        default="%ctx",
        metadata=wire("how the next chunk is asked for: %ctx (a kernel) or ctx-lab (a shell)",
                      enum=("%ctx", "ctx-lab")),
    )  # fmt: skip

    payload_kind = "read"

    @derived(
        {"type": ["string", "null"]},
        "the %ctx line that reads the next chunk (null at the end)",
        name="next_line",
    )
    def _next_line_shown(self) -> str | None:
        return self.next_line() if self.truncated else None

    def _where(self) -> str:
        if self.page_info:
            p = self.page_info
            return f"pages {p['page_start']}–{p['page_end']} of {p['total_pages']}"
        pos = self.position
        if pos:
            chunk = f"chunk {pos['chunk']} of {pos['chunks']}, " if "chunks" in pos else ""
            return f"{chunk}characters {pos['start']:,}–{pos['end']:,} of {pos['total']:,}"
        return ""

    def to_text(self) -> str:
        """A header line (kind, position, how to continue), then the chunk."""
        head = f"{self.uri} [{self.kind}, {self.content_type}] {self._where()}"
        if self.cursor_reset:
            head += f"\nnote: restarted from the beginning: {self.cursor_reason}"
        if self.note:
            head += f"\nnote: {self.note}"
        if self.max_chars_asked is not None:
            head += (
                f"\nnote: max_chars {self.max_chars_asked:,} is over the limit: chunks of "
                f"{self.max_chars:,}"
            )
        tail = (
            f"\n\n--cursor {self.next_cursor}\n(next chunk: {self.next_line()})"
            if self.truncated
            else "\n\n(end)"
        )
        return f"{head}\n\n{self.content}{tail}"

    def next_line(self) -> str:
        """The line that reads the next chunk: ``%ctx read … --cursor @last`` in a kernel,
        ``ctx-lab read … --cursor CURSOR`` in a shell (where @last means nothing)."""
        cursor = "@last" if self.next_via == "%ctx" else shlex.quote(self.next_cursor or "")
        words = [shlex.quote(self.uri), *map(shlex.quote, self.next_flags), "--cursor", cursor]
        return f"{self.next_via} read " + " ".join(words)

    def html_body(self) -> str:
        """Kind, page info, position bar, and the chunk as text."""
        pos = self.position
        share_start = pos.get("start", 0) / pos["total"] if pos.get("total") else 0
        share_end = pos.get("end", 0) / pos["total"] if pos.get("total") else 1
        bar = (
            '<div data-ctx-position style="position:relative;width:240px;height:6px;'
            'background:var(--jp-layout-color3,#e5e7eb);border-radius:3px">'
            f'<div style="position:absolute;left:{share_start * 100:.1f}%;'
            f"width:{max(share_end - share_start, 0.01) * 100:.1f}%;height:6px;"
            'background:var(--jp-brand-color1,#2563eb);border-radius:3px"></div></div>'
        )
        reset = (
            f'<div class="ctx-warn" data-ctx-cursor-reset>restarted from the beginning: '
            f"{escape(self.cursor_reason)}</div>"
            if self.cursor_reset
            else ""
        )
        if self.note:
            reset += f'<div class="ctx-warn" data-ctx-read-note>{escape(self.note)}</div>'
        more = "more follows" if self.truncated else "end of document"
        follow = (
            f"<div data-ctx-read-next>next chunk: <code>{escape(self.next_line())}</code> "
            f'<span class="ctx-muted">(cursor <code>{escape(self.next_cursor)}</code>)</span></div>'
            if self.truncated
            else ""
        )
        return (
            f'<h4 data-ctx-read="{escape(self.kind)}">{escape(self.uri)} '
            f'<span class="ctx-muted">{escape(self.kind)} · {escape(self.content_type)} · '
            f"{escape(self._where())} · {more}</span></h4>{bar}{reset}"
            f"<pre>{escape(self.content)}</pre>{follow}"
        )
