"""Paginated reading of files, web pages and PDFs with an opaque cursor and a short-lived cache
(design: paginated-read-tool.md, refined by the paging issue)."""

from .._deprecated import module_getattr
from .errors import (
    AccessDenied,
    CorruptDocument,
    FetchError,
    LimitExceeded,
    ReadError,
    UnsupportedContent,
)
from .reader import DEFAULT_MAX_CHARS, MAX_CHARS_LIMIT, Reader, ReadResult, read

__all__ = [
    "DEFAULT_MAX_CHARS",
    "MAX_CHARS_LIMIT",
    "AccessDenied",
    "CorruptDocument",
    "FetchError",
    "LimitExceeded",
    "ReadError",
    "ReadResult",
    "Reader",
    "UnsupportedContent",
    "read",
]

# the agent tools moved to ctx_lab.tools (tools → paging → read)
__getattr__ = module_getattr(
    __name__,
    {name: f"ctx_lab.tools:{name}" for name in ("Toolbox", "page_tool", "read_tool")},
)
