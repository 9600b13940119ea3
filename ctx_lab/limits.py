"""Every size limit of ctx_lab, in one table with its default and the environment variable that
raises it. Over a limit, the operation stops with an error naming the limit and its variable
(CLI exit 1, REST 413) — or, in the builder, the file becomes a reference saying so.

The defaults admit real work: a 20k-entry ``.context/``, paging an 85 MB log, reading a 20 MB
text, a 4.8 MB generated module in a build.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

__all__ = [
    "DEFAULT_MAX_CHARS",
    "DEFAULT_MAX_PAGES",
    "DEFAULT_MAX_TOKENS",
    "LIMITS",
    "MAX_CHARS_LIMIT",
    "Limit",
    "limit",
]

# Per-call defaults that are not limits but are shown in help texts before any engine loads.
DEFAULT_MAX_PAGES = 10  # paging quota: pages per task
DEFAULT_MAX_TOKENS = 8000  # paging quota: tokens per task
DEFAULT_MAX_CHARS = 8000  # characters per read chunk
MAX_CHARS_LIMIT = 20_000  # characters per read chunk, at most


@dataclass(frozen=True)
class Limit:
    """One limit: its name, default, the variable that overrides it, and what it bounds."""

    name: str
    default: int
    env: str
    bounds: str
    unit: str = "bytes"

    def value(self) -> int:
        """The variable's value when it is a positive integer, else the default."""
        raw = os.environ.get(self.env, "").strip().replace("_", "")
        if raw.isdigit() and int(raw) > 0:
            return int(raw)
        return self.default

    def describe(self, value: int | None = None) -> str:
        """``the 33,554,432-byte file limit (CTX_LAB_MAX_FILE_BYTES)``."""
        amount = self.value() if value is None else value
        return f"the {amount:,}-{self.unit.rstrip('s')} {self.name} limit ({self.env})"


MIB = 1024 * 1024
LIMITS: dict[str, Limit] = {
    limit.name: limit
    for limit in (
        Limit(
            "file",
            32 * MIB,
            "CTX_LAB_MAX_FILE_BYTES",
            "one file read by tokens, compress, build, history and .context/ loading",
        ),
        Limit("page", 256 * MIB, "CTX_LAB_MAX_PAGE_BYTES", "one file paged by `page`"),
        Limit(
            "recording",
            128 * MIB,
            "CTX_LAB_MAX_RECORDING_BYTES",
            "one recorded session or trace read by cache, policies, replay, anatomy, check and "
            "calibrate (an OTLP export holds every call's input: 30–40 MB for a 3 MB session)",
        ),
        Limit(
            "recording_calls",
            20_000,
            "CTX_LAB_MAX_RECORDING_CALLS",
            "LLM calls (spans) read from one trace: every session command's work grows with "
            "them, and the longest real sessions have a few thousand",
            unit="calls",
        ),
        Limit("read", 25 * MIB, "CTX_LAB_MAX_READ_BYTES", "one resource read by `read`"),
        Limit("build", 256 * MIB, "CTX_LAB_MAX_BUILD_BYTES", "all files of one build together"),
        Limit(
            "build_text",
            16 * MIB,
            "CTX_LAB_BUILD_TEXT_BYTES",
            "file text one build keeps in memory (not a stop: past it, a file's text is read "
            "again, checked unchanged, when needed)",
        ),
        Limit(
            "entries",
            200_000,
            "CTX_LAB_MAX_ENTRIES",
            "entries parsed from one .context/ file",
            unit="entries",
        ),
        Limit(
            "skeleton",
            4 * MIB,
            "CTX_LAB_MAX_SKELETON_CHARS",
            "one file made into a skeleton or summary (larger ones go in as references)",
            unit="characters",
        ),
        Limit(
            "context_files",
            2000,
            "CTX_LAB_MAX_CONTEXT_FILES",
            "files read from one .context/ (top level, theme folders and steering/)",
            unit="files",
        ),
        Limit("pdf", 2000, "CTX_LAB_MAX_PDF_PAGES", "pages of one PDF", unit="pages"),
        Limit(
            "response",
            16 * MIB,
            "CTX_LAB_MAX_RESPONSE_BYTES",
            "one REST response body (larger ones are refused with 413; /entries pages its rows)",
        ),
        Limit(
            "collect_files",
            100_000,
            "CTX_LAB_MAX_COLLECT_FILES",
            "files found by expanding one directory or glob of a build",
            unit="files",
        ),
        Limit(
            "capture_body",
            16 * MIB,
            "CTX_LAB_MAX_CAPTURE_BODY_BYTES",
            "one body read back from a capture file (a longer one comes back cut, and flagged)",
        ),
        Limit(
            "capture_query_seconds",
            5,
            "CTX_LAB_MAX_CAPTURE_QUERY_SECONDS",
            "one query of a capture file read back",
            unit="seconds",
        ),
        Limit(
            "collect_seconds",
            20,
            "CTX_LAB_MAX_COLLECT_SECONDS",
            "the time one directory or glob of a build may take to expand",
            unit="seconds",
        ),
    )
}


def limit(name: str) -> int:
    """The value in force of limit ``name``."""
    return LIMITS[name].value()
