"""Paginated reading of files, web pages and PDFs with an opaque cursor and a short-lived cache
(design: paginated-read-tool.md, refined by the paging issue)."""

from ._cursor import user_cursor_secret
from ._disk_cache import DiskDocumentCache
from ._fetch import is_http
from ._reader import DEFAULT_MAX_CHARS, MAX_CHARS_LIMIT, Reader, ReadResult, read

__all__ = [
    "DEFAULT_MAX_CHARS",
    "MAX_CHARS_LIMIT",
    "DiskDocumentCache",
    "ReadResult",
    "Reader",
    "is_http",
    "read",
    "user_cursor_secret",
]
