"""Gzip-packed inputs: a recorded session stored as ``session.jsonl.gz`` is read as the text it
packs, decompressed a block at a time under the same size limit as the plain file (the limit
counts the unpacked bytes, so a small archive cannot unpack into more than the limit allows)."""

from __future__ import annotations

import os
import zlib

from .errors import FileTooLarge, InputFileError
from .files import Pathish, decode_text, read_bytes
from .limits import LIMITS

GZIP_MAGIC = b"\x1f\x8b"
_BLOCK = 1 << 20


def unpack(data: bytes, name: str, cap: int, rule_name: str = "recording") -> bytes:
    """The bytes a gzip member (or several, concatenated) packs, at most ``cap`` of them:
    :class:`FileTooLarge` past it, :class:`InputFileError` when the archive is damaged."""
    rule = LIMITS[rule_name]
    parts: list[bytes] = []
    got = 0
    rest = data
    try:
        while rest:
            inflater = zlib.decompressobj(wbits=31)
            pending = rest
            while pending and not inflater.eof:
                chunk = inflater.decompress(pending, min(_BLOCK, cap + 1 - got))
                pending = inflater.unconsumed_tail
                got += len(chunk)
                parts.append(chunk)
                if got > cap:
                    raise FileTooLarge(
                        f"{name} unpacks to more than {rule.describe(cap)}; raise it with "
                        f"{rule.env}=<bytes>"
                    )
            if not inflater.eof:
                raise InputFileError(f"{name}: the gzip archive is cut short")
            rest = inflater.unused_data.lstrip(b"\x00")
            if rest and not rest.startswith(GZIP_MAGIC):
                break  # trailing bytes after the last member, as gzip(1) ignores them
    except zlib.error as exc:
        raise InputFileError(f"{name}: not a readable gzip archive ({exc})") from None
    return b"".join(parts)


def read_unpacked_text(
    path: Pathish, warnings: list[str] | None = None, *, kind: str = "recording"
) -> str:
    """The text of ``path``, unpacked first when it is gzip (by its first bytes, whatever its
    name), under the ``kind`` size limit of :mod:`ctx_lab.limits` on the unpacked bytes."""
    name = os.fspath(path)
    data = read_unpacked_bytes(path, kind=kind)
    return decode_text(data, name, [] if warnings is None else warnings)


def read_unpacked_bytes(path: Pathish, *, kind: str = "recording") -> bytes:
    """The bytes of ``path``, unpacked first when it is gzip, under the ``kind`` size limit
    on the unpacked bytes (a reader that decodes line by line: a file's text as one string
    takes up to four bytes a character, for the whole file, when one character needs them)."""
    data = read_bytes(path, kind=kind)
    if data.startswith(GZIP_MAGIC):
        data = unpack(data, os.fspath(path), LIMITS[kind].value(), kind)
    return data
