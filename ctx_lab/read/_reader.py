"""``Reader.read(uri, cursor=None, max_chars=8000)``: read files, web pages and PDFs chunk by
chunk with an opaque cursor, over a short-lived cache of the extracted text."""

from __future__ import annotations

import os
import secrets
import time
from bisect import bisect_right
from collections.abc import Callable, Iterable
from typing import Any

from cachetools import LRUCache

from ..errors import CursorInvalid, ReadError, UsageError
from ..files import identity, real_path
from ..limits import DEFAULT_MAX_CHARS, LIMITS, MAX_CHARS_LIMIT
from ..validate import whole_number
from ._cache import DocumentCache
from ._cursor import Cursor, decode_cursor, encode_cursor
from ._disk_cache import DiskDocumentCache
from ._extract import (
    Document,
    classify,
    content_digest,
    decode_body,
    extract_html,
    extract_pdf,
    make_document,
)
from ._fetch import HttpFetcher, Resolver, is_http, local_validators, read_local, resolve_local
from ._paginate import chunk_pdf, chunk_starts, chunk_text, page_marker
from ._result import ReadResult

__all__ = ["DEFAULT_MAX_CHARS", "MAX_CHARS_LIMIT", "ReadResult", "Reader", "read"]


def _check_max_chars(max_chars: int) -> int:
    whole_number(max_chars, "max_chars")
    if max_chars < 1:
        raise UsageError(f"max_chars must be ≥ 1, got {max_chars}")
    return min(max_chars, MAX_CHARS_LIMIT)


class Reader:
    """Reads local files (under ``roots``) and http(s) resources, holding the cache and limits.

    ``allow_private`` lets http(s) reach loopback and private addresses (off by default, also
    after redirects). ``clock`` drives the cache's TTL and the fetch deadline (tests inject one).
    ``max_bytes`` and ``max_pdf_pages`` default to the ``read`` and ``pdf`` limits of
    :mod:`ctx_lab.limits` (``CTX_LAB_MAX_READ_BYTES``, ``CTX_LAB_MAX_PDF_PAGES``). ``secret``
    signs cursors (default: random per reader, so cursors only work with the reader that issued
    them). ``disk_cache`` keeps extracted local documents between processes (the CLI's and
    the REST server's readers use one in the user cache directory).
    """

    def __init__(
        self,
        roots: Iterable[str | os.PathLike[str]] | None = None,
        allow_private: bool = False,
        *,
        max_bytes: int | None = None,
        deadline: float = 30.0,
        max_pdf_pages: int | None = None,
        max_redirects: int = 5,
        cache_ttl: float = 300.0,
        cache_entries: int = 50,
        cache_bytes: int = 20 * 1024 * 1024,
        allowed_networks: Iterable[str] = (),
        allow_http: bool = True,
        clock: Callable[[], float] = time.monotonic,
        resolver: Resolver | None = None,
        session: Any = None,
        secret: bytes | None = None,
        disk_cache: DiskDocumentCache | None = None,
    ) -> None:
        self.roots = tuple(real_path(r) for r in (roots if roots is not None else [os.getcwd()]))
        self.max_bytes = LIMITS["read"].value() if max_bytes is None else max_bytes
        self.max_pdf_pages = LIMITS["pdf"].value() if max_pdf_pages is None else max_pdf_pages
        self.allow_http = allow_http
        self.cache = DocumentCache(cache_ttl, cache_entries, cache_bytes, clock)
        fetch_options: dict[str, Any] = {}
        if resolver is not None:
            fetch_options["resolver"] = resolver
        self.fetcher = HttpFetcher(
            max_bytes=self.max_bytes,
            deadline=deadline,
            max_redirects=max_redirects,
            allow_private=allow_private,
            allowed_networks=allowed_networks,
            clock=clock,
            session=session,
            **fetch_options,
        )
        self._secret = secret or secrets.token_bytes(16)
        self.disk_cache = disk_cache
        self._chunk_starts: LRUCache[tuple[str, int], list[int]] = LRUCache(maxsize=32)

    # -- documents --------------------------------------------------------------------------

    def document(self, uri: str) -> tuple[Document, bool]:
        """The extracted document for ``uri`` and whether it came from the cache."""
        if not isinstance(uri, str) or not uri.strip():
            raise UsageError("uri must be a non-empty string")
        if is_http(uri):
            return self._http_document(uri)
        if "://" in uri and not uri.lower().startswith("file:"):
            raise UsageError(f"{uri}: read supports local paths, file:, http:// and https:// URIs")
        return self._local_document(uri)

    def _local_document(self, uri: str) -> tuple[Document, bool]:
        path = resolve_local(uri, self.roots)
        key = path.as_uri()
        cached = self.cache.get(key)
        if cached is not None:
            try:
                now = local_validators(identity(path))
            except OSError:
                now = None
            if now and cached.validators[:2] == now:
                return cached, True  # same size and mtime: not read, not hashed again
        kept = None
        if self.disk_cache is not None:
            try:
                version = identity(path)
            except OSError:
                version = None
            if version is not None:
                kept = (version.size, version.mtime_ns)
                found = self.disk_cache.get(path, key, *kept)
                if found is not None:
                    self.cache.put(key, found)
                    return found, True
        data, validators = read_local(path, self.max_bytes)
        if cached is not None and cached.validators[: len(validators)] == validators:
            return cached, True
        kind, content_type = classify(None, data, path.name)
        doc = self._extract(key, kind, content_type, data, validators)
        self.cache.put(key, doc)
        if self.disk_cache is not None and kept is not None:
            self.disk_cache.put(path, *kept, doc)
        return doc, False

    def _http_document(self, uri: str) -> tuple[Document, bool]:
        if not self.allow_http:
            raise ReadError(f"{uri}: http(s) reads are switched off here")
        cached = self.cache.get(uri)
        if cached is not None and not any(
            v.startswith(("etag=", "lm=")) for v in cached.validators
        ):
            return cached, True  # nothing to revalidate with: trust it for its time to live
        etag = last_modified = None
        if cached is not None:
            etag = next((v[5:] for v in cached.validators if v.startswith("etag=")), None)
            last_modified = next((v[3:] for v in cached.validators if v.startswith("lm=")), None)
        fetched = self.fetcher.fetch(uri, etag, last_modified)
        if fetched.not_modified and cached is not None:
            self.cache.put(uri, cached)  # refresh its time to live
            return cached, True
        kind, content_type = classify(fetched.content_type, fetched.body, fetched.url)
        validators = tuple(
            v
            for v in (
                f"etag={fetched.etag}" if fetched.etag else "",
                f"lm={fetched.last_modified}" if fetched.last_modified else "",
            )
            if v
        )
        doc = self._extract(uri, kind, content_type, fetched.body, validators, fetched.content_type)
        self.cache.put(uri, doc)
        return doc, False

    def _extract(
        self,
        key: str,
        kind: str,
        content_type: str,
        data: bytes,
        validators: tuple[str, ...],
        declared: str | None = None,
    ) -> Document:
        if kind == "pdf":
            pages = extract_pdf(data, self.max_pdf_pages)
            digest = content_digest(*pages)
            return make_document(key, kind, content_type, (*validators, digest), pages=pages)
        text = decode_body(data, declared or content_type)
        if kind == "html":
            text = extract_html(text)
        digest = content_digest(text)
        return make_document(key, kind, content_type, (*validators, digest), text=text)

    def full_text(self, uri: str) -> str:
        """All extracted text of ``uri`` (PDF pages introduced by their markers)."""
        doc, _ = self.document(uri)
        if doc.kind == "pdf":
            total = len(doc.pages)
            return "".join(
                f"{page_marker(i, total)}{text}\n" for i, text in enumerate(doc.pages, 1)
            )
        return doc.text

    # -- reading ----------------------------------------------------------------------------

    def read(
        self,
        uri: str,
        cursor: str | None = None,
        max_chars: int = DEFAULT_MAX_CHARS,
        *,
        page: int | None = None,
    ) -> ReadResult:
        """The chunk of ``uri`` at ``cursor`` (the start when None), or from ``page``: a PDF's
        page, or the ``page``-th chunk of another document (1-based; past the end: the last,
        with a note). A cursor that is malformed, forged, for another resource, expired or
        outdated restarts from the beginning with ``cursor_reset=True`` and the reason."""
        asked = max_chars
        max_chars = _check_max_chars(max_chars)
        if page is not None:
            whole_number(page, "page")
            if page < 1:
                raise UsageError(f"page must be ≥ 1, got {page}")
            if cursor:
                raise UsageError("give a cursor or a page, not both")
        parsed: Cursor | None = None
        reason: str | None = None
        if cursor:
            try:
                parsed = decode_cursor(cursor, uri, self._secret)
            except CursorInvalid as exc:
                reason = str(exc)
        doc, hit = self.document(uri)
        if parsed is not None:
            if parsed.cache_id != doc.cache_id:
                reason, parsed = "the resource changed since the cursor was issued", None
            elif parsed.kind != doc.kind:
                reason, parsed = "the cursor is for another representation", None
            elif not self._in_bounds(doc, parsed):
                reason, parsed = "the cursor points outside the document", None
        note = None
        if page is not None:
            parsed, note = self._at_page(doc, page, max_chars)
        return self._chunk(uri, doc, parsed, max_chars, hit, reason, asked, note)

    def _starts(self, doc: Document, max_chars: int) -> list[int]:
        """Where each chunk of a text document starts (kept per extraction and chunk size)."""
        key = (doc.cache_id, max_chars)
        starts = self._chunk_starts.get(key)
        if starts is None:
            starts = self._chunk_starts[key] = chunk_starts(doc.text, max_chars)
        return starts

    def _at_page(self, doc: Document, page: int, max_chars: int) -> tuple[Cursor, str | None]:
        """The position of ``page`` (clamped to the last, with a note saying so)."""
        if doc.kind == "pdf":
            total, unit = len(doc.pages), "pages"
        else:
            starts = self._starts(doc, max_chars)
            total, unit = len(starts), "chunks"
        note = None
        if page > max(total, 1):
            word = "page" if doc.kind == "pdf" else "chunk"
            note = f"{word} {page:,} is past the end ({total:,} {unit}): the last {word}"
            page = max(total, 1)
        if doc.kind == "pdf":
            return Cursor("pdf", doc.cache_id, 0, min(page, total) - 1 if total else 0), note
        return Cursor(doc.kind, doc.cache_id, starts[page - 1]), note

    @staticmethod
    def _in_bounds(doc: Document, cursor: Cursor) -> bool:
        if doc.kind == "pdf":
            return cursor.page < len(doc.pages) and cursor.offset <= len(doc.pages[cursor.page])
        return cursor.offset < len(doc.text)

    def _chunk(
        self,
        uri: str,
        doc: Document,
        cursor: Cursor | None,
        max_chars: int,
        hit: bool,
        reason: str | None,
        asked: int | None = None,
        note: str | None = None,
    ) -> ReadResult:
        common: dict[str, Any] = {
            "note": note,
            "max_chars": max_chars,
            "max_chars_asked": asked if asked is not None and asked != max_chars else None,
            "uri": uri,
            "content_type": doc.content_type,
            "kind": doc.kind,
            "cursor_reset": reason is not None,
            "cursor_reason": reason,
            "cache_hit": hit,
        }
        if doc.kind == "pdf":
            page, offset = (cursor.page, cursor.offset) if cursor else (0, 0)
            chunk = chunk_pdf(doc.pages, page, offset, max_chars)
            total = len(doc.pages)
            following = None
            if chunk.next_position is not None:
                next_page, next_offset = chunk.next_position
                following = encode_cursor(
                    Cursor("pdf", doc.cache_id, next_offset, next_page), uri, self._secret
                )
            return ReadResult(
                content=chunk.content,
                truncated=following is not None,
                next_cursor=following,
                page_info={
                    "page_start": min(chunk.page_start, max(total, 1)),
                    "page_end": min(chunk.page_end, total),
                    "total_pages": total,
                },
                position={"unit": "pages", "start": page, "end": chunk.page_end, "total": total},
                **common,
            )
        start = cursor.offset if cursor else 0
        text_chunk = chunk_text(doc.text, start, max_chars)
        following = None
        if text_chunk.next_offset is not None:
            following = encode_cursor(
                Cursor(doc.kind, doc.cache_id, text_chunk.next_offset), uri, self._secret
            )
        starts = self._starts(doc, max_chars)
        return ReadResult(
            content=text_chunk.content,
            truncated=following is not None,
            next_cursor=following,
            position={
                "unit": "chars",
                "start": text_chunk.start,
                "end": text_chunk.end,
                "total": len(doc.text),
                "chunk": max(bisect_right(starts, text_chunk.start), 1),
                "chunks": len(starts),
            },
            **common,
        )


_default_reader: Reader | None = None


def read(uri: str, cursor: str | None = None, max_chars: int = DEFAULT_MAX_CHARS) -> ReadResult:
    """Read with the default reader (roots: the current directory; no private addresses)."""
    global _default_reader
    if _default_reader is None:
        _default_reader = Reader()
    return _default_reader.read(uri, cursor, max_chars)
