"""Errors of the paginated reader: every one is a :class:`ReadError` (a ``CtxLabError``)."""

from __future__ import annotations

from ..errors import CtxLabError

__all__ = [
    "AccessDenied",
    "CorruptDocument",
    "FetchError",
    "LimitExceeded",
    "ReadError",
    "UnsupportedContent",
]


class ReadError(CtxLabError):
    """Reading a resource failed; the message says why and what to do."""


class UnsupportedContent(ReadError):
    """Neither text, HTML nor PDF (e.g. an image)."""


class CorruptDocument(ReadError):
    """A PDF that is damaged, not really a PDF, or encrypted."""


class FetchError(ReadError):
    """The HTTP request failed (status, connection, redirect loop)."""


class LimitExceeded(ReadError):
    """A safety limit stopped the read: size, deadline or page count."""


class AccessDenied(ReadError):
    """A path outside the allowed roots, or a private network address."""
