"""Errors of the paginated reader (defined in :mod:`ctx_lab.errors`; every one is a
:class:`~ctx_lab.errors.ReadError`)."""

from __future__ import annotations

from ..errors import (
    AccessDenied,
    CorruptDocument,
    FetchError,
    LimitExceeded,
    ReadError,
    UnsupportedContent,
)

__all__ = [
    "AccessDenied",
    "CorruptDocument",
    "FetchError",
    "LimitExceeded",
    "ReadError",
    "UnsupportedContent",
]
