"""A file block's text, kept as where to read it again rather than held.

A build of 40,000 files reads up to its byte limit (256 MB) and, until the prompt fits, held
every file's text — though most files end as a one-line reference and only a few hundred
are ever formed, counted again or rendered. Past :func:`keep_within` bytes of text (the
``build_text`` entry of :mod:`ctx_lab.limits`), a file block keeps its path, size, line
count and a digest of its bytes instead (:class:`Reread`); its ``text`` is read again when
asked, through a small cache, and refused with :class:`~ctx_lab.errors.InputFileError` when
the file has changed since the build first read it (a prompt never mixes two versions).
"""

from __future__ import annotations

import threading
import zlib
from dataclasses import dataclass, replace
from hashlib import blake2b
from typing import TYPE_CHECKING, Any

from cachetools import LRUCache

from ..errors import FileTooLarge, InputFileError
from ..files import decode_text, read_bytes
from ..limits import LIMITS

if TYPE_CHECKING:
    from ._blocks import ContentBlock

__all__ = [
    "PACK_OVER",
    "HeldText",
    "PackedText",
    "Reread",
    "digest",
    "held_by",
    "keep_within",
    "line_count",
    "replaced",
]

# texts read again, kept while their characters fit (a refill reads the same few files often)
_AGAIN: LRUCache[tuple[str, bytes], str] = LRUCache(maxsize=8 * 1024 * 1024, getsizeof=len)
_AGAIN_LOCK = threading.Lock()


def digest(data: bytes) -> bytes:
    """What identifies a file's bytes (16 bytes of BLAKE2b)."""
    return blake2b(data, digest_size=16).digest()


def line_count(text: str) -> int:
    """Lines as a reference counts them: a last line without its newline counts."""
    return text.count("\n") + (0 if text.endswith("\n") or not text else 1)


@dataclass(frozen=True, slots=True)
class Reread:
    """Where a file block's text is: its file (``path`` as opened, ``label`` as shown), the
    byte count and digest it had when the build read it, and its line count."""

    path: str
    label: str
    size: int
    digest: bytes
    lines: int

    def text(self) -> str:
        """The text again: the same bytes, decoded as the first read decoded them."""
        key = (self.path, self.digest)
        with _AGAIN_LOCK:
            found = _AGAIN.get(key)
        if found is not None:
            return found
        changed = InputFileError(f"{self.label}: changed while the build read it; build again")
        try:
            data = read_bytes(self.path, limit=self.size)
        except FileTooLarge:  # it grew
            raise changed from None
        except (OSError, InputFileError) as exc:
            raise InputFileError(f"{self.label}: could not be read again ({exc})") from None
        if len(data) != self.size or digest(data) != self.digest:
            raise changed
        text = decode_text(data, self.label, [])  # its warnings were given at the first read
        if len(text) <= _AGAIN.maxsize:
            with _AGAIN_LOCK:
                _AGAIN[key] = text
        return text


class _TextField:
    """A dataclass field kept in the instance's ``__dict__`` in another form than it is read
    (a data descriptor, so even a frozen dataclass sets it through ``__set__``); without a
    default, so the field stays required."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            raise AttributeError(self.name)  # what dataclasses reads as "no default"
        return self.read(obj.__dict__[self.name])

    def __set__(self, obj: Any, value: Any) -> None:
        obj.__dict__[self.name] = self.kept(obj, value)

    def read(self, kept: Any) -> str:
        """The text, from what is kept."""
        raise NotImplementedError

    def kept(self, obj: Any, value: Any) -> Any:
        """What is kept of a text given to ``obj``."""
        return value


class HeldText(_TextField):
    """The ``text`` field of a content block: a string, or a :class:`Reread` that gives it
    when asked."""

    def read(self, kept: Any) -> str:
        return kept.text() if isinstance(kept, Reread) else kept


def held_by(block: Any) -> Reread | None:
    """The block's :class:`Reread` when its text is kept as one, else None."""
    held = block.__dict__.get("text")
    return held if isinstance(held, Reread) else None


# a held block's form longer than this (characters) is kept compressed while it is fitted
PACK_OVER = 1024


class PackedText(_TextField):
    """The ``text`` of a block being fitted: a held block's form (skeleton, summary) longer
    than :data:`PACK_OVER` is kept zlib-compressed and given back whole when read — the
    skeletons of 22,000 files formed at once held 136 MB while a 40,000-file build was
    fitted. Other texts are kept as they are (small builds pay nothing)."""

    def read(self, kept: Any) -> str:
        if isinstance(kept, bytes):
            return zlib.decompress(kept).decode("utf-8", "surrogatepass")
        return kept

    def kept(self, state: Any, value: Any) -> Any:
        if len(value) > PACK_OVER and held_by(state.block) is not None:
            return zlib.compress(value.encode("utf-8", "surrogatepass"), 1)
        return value


def replaced(block: ContentBlock, **changes: Any) -> ContentBlock:
    """``dataclasses.replace`` that keeps a held text held (``replace`` reads every field,
    and reading a held text reads the file)."""
    return replace(block, **{"text": block.__dict__["text"], **changes})


def keep_within() -> int:
    """Bytes of file text a build keeps in memory before it keeps where to read it instead."""
    return LIMITS["build_text"].value()
