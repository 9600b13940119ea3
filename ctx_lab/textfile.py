"""Reading text files the same way everywhere: UTF-8 with a BOM dropped, bad bytes replaced
with a warning naming the file and line, binary files (NUL bytes) recognised."""

from __future__ import annotations

from pathlib import Path

from .errors import InputFileError

__all__ = ["decode_text", "normalize_newlines", "read_bytes", "read_text"]


def decode_text(data: bytes, label: str, warnings: list[str]) -> str:
    """Decode UTF-8 (a BOM is dropped); on bad bytes decode with replacement and warn."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        warnings.append(
            f"{label}: undecodable bytes at line {line} (byte {exc.start}); "
            "read after replacing them with U+FFFD"
        )
        return data.decode("utf-8-sig", errors="replace")


def normalize_newlines(text: str) -> str:
    """CRLF and lone CR become LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_bytes(path: str | Path) -> bytes:
    """The bytes of ``path``; :class:`InputFileError` naming it when missing or unreadable."""
    p = Path(path)
    try:
        return p.read_bytes()
    except FileNotFoundError:
        raise InputFileError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputFileError(f"{path}: is a directory; pass files") from None
    except OSError as exc:
        raise InputFileError(f"{path}: cannot read ({exc.strerror})") from None


def read_text(path: str | Path, warnings: list[str], *, label: str | None = None) -> str:
    """Read a text file with :func:`decode_text`."""
    return decode_text(read_bytes(path), label or str(path), warnings)
