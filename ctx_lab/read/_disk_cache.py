"""Extracted documents kept on disk between processes, so that a CLI or REST continuation of
a large PDF or HTML file costs a JSON load instead of a new extraction.

One file per document in the user cache directory (``$XDG_CACHE_HOME/ctx-lab/documents``),
named by a hash of the resolved path, its size and modification time, and the extractor
version: a changed file, or a new extractor, simply misses. Entries are written atomically
(a reader never sees half a file) and the folder is kept under a byte bound by removing the
least recently used entries. Only local files are cached (a web page has no stable identity
to key by); a damaged or foreign entry is a miss, never an error.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from ..errors import CtxLabError
from ..files import user_cache_dir, write_atomic
from ._extract import EXTRACTOR_VERSION, Document

__all__ = ["DEFAULT_DISK_BYTES", "DiskDocumentCache"]

DEFAULT_DISK_BYTES = 256 * 1024 * 1024
_SUFFIX = ".doc.json"


class DiskDocumentCache:
    """Extracted local documents under ``folder`` (default: the user cache directory's
    ``documents``), at most ``max_bytes`` in all; documents over a quarter of that are not
    kept."""

    def __init__(self, folder: str | os.PathLike[str] | None = None, max_bytes: int | None = None):
        self.folder = Path(folder) if folder is not None else user_cache_dir() / "documents"
        self.max_bytes = DEFAULT_DISK_BYTES if max_bytes is None else max_bytes

    @staticmethod
    def _key(path: Path, size: int, mtime_ns: int) -> str:
        raw = "\x00".join((EXTRACTOR_VERSION, os.fspath(path), str(size), str(mtime_ns)))
        return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:32]

    def get(self, path: Path, uri: str, size: int, mtime_ns: int) -> Document | None:
        """The document extracted from ``path`` at this size and modification time, if kept."""
        entry = self.folder / (self._key(path, size, mtime_ns) + _SUFFIX)
        try:
            with open(entry, encoding="utf-8", errors="surrogatepass") as handle:
                data: Any = json.load(handle)
        except (OSError, ValueError):
            return None
        if not (
            isinstance(data, dict)
            and data.get("version") == EXTRACTOR_VERSION
            and data.get("path") == os.fspath(path)
            and data.get("uri") == uri
            and data.get("size") == size
            and data.get("mtime_ns") == mtime_ns
        ):
            return None
        try:
            doc = Document(
                uri=uri,
                kind=str(data["kind"]),
                content_type=str(data["content_type"]),
                text=str(data["text"]),
                pages=tuple(str(p) for p in data["pages"]),
                validators=tuple(str(v) for v in data["validators"]),
                cache_id=str(data["cache_id"]),
            )
        except (KeyError, TypeError):
            return None
        with contextlib.suppress(OSError):
            os.utime(entry)  # recently used: the last to be evicted
        return doc

    def put(self, path: Path, size: int, mtime_ns: int, doc: Document) -> None:
        """Keep ``doc``; a cache that cannot be written is skipped (reads never fail on it)."""
        if doc.size * 4 > self.max_bytes:  # characters: at least as many bytes on disk
            return
        payload = json.dumps(
            {
                "version": EXTRACTOR_VERSION,
                "path": os.fspath(path),
                "uri": doc.uri,
                "size": size,
                "mtime_ns": mtime_ns,
                "kind": doc.kind,
                "content_type": doc.content_type,
                "text": doc.text,
                "pages": list(doc.pages),
                "validators": list(doc.validators),
                "cache_id": doc.cache_id,
            },
            ensure_ascii=False,
        ).encode("utf-8", "surrogatepass")
        try:
            self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            write_atomic(self.folder / (self._key(path, size, mtime_ns) + _SUFFIX), payload)
            self._evict()
        except (OSError, CtxLabError):
            return

    def _evict(self) -> None:
        entries = []
        for entry in self.folder.glob("*" + _SUFFIX):
            try:
                info = entry.stat()
            except OSError:
                continue
            entries.append((info.st_mtime_ns, info.st_size, entry))
        total = sum(size for _, size, _ in entries)
        for _, size, entry in sorted(entries):
            if total <= self.max_bytes:
                return
            try:
                entry.unlink()
            except OSError:
                continue
            total -= size
