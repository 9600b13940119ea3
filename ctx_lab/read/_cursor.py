"""Opaque, short, URL-safe continuation cursors: versioned JSON in base64url, signed.

A cursor carries the representation kind, a position and a short id of the cached extraction
it points into. It is signed with the reader's secret and bound to the URI, so a forged cursor,
or one made for another resource, is recognised and the read restarts from the beginning.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import CtxLabError, CursorInvalid
from ..files import create_exclusive, user_cache_dir, write_atomic

__all__ = [
    "CURSOR_VERSION",
    "Cursor",
    "decode_cursor",
    "encode_cursor",
    "user_cursor_secret",
]

CURSOR_VERSION = 1
_SIGNATURE_BYTES = 8


@dataclass(frozen=True)
class Cursor:
    """A position in one extracted text stream: a character offset, or (page, offset)."""

    kind: str
    cache_id: str
    offset: int = 0
    page: int = 0


def _sign(secret: bytes, uri: str, body: bytes) -> str:
    mac = hmac.new(secret, uri.encode("utf-8", "surrogatepass") + b"\x00" + body, hashlib.sha256)
    return base64.urlsafe_b64encode(mac.digest()[:_SIGNATURE_BYTES]).decode().rstrip("=")


def encode_cursor(cursor: Cursor, uri: str, secret: bytes) -> str:
    """The cursor as an opaque URL-safe string bound to ``uri``."""
    payload: dict[str, Any] = {"v": CURSOR_VERSION, "k": cursor.kind, "c": cursor.cache_id}
    if cursor.kind == "pdf":
        payload["p"] = cursor.page
    payload["o"] = cursor.offset
    body = json.dumps(payload, separators=(",", ":")).encode()
    encoded = base64.urlsafe_b64encode(body).decode().rstrip("=")
    return f"{encoded}.{_sign(secret, uri, body)}"


def decode_cursor(token: str, uri: str, secret: bytes) -> Cursor:
    """Parse and verify a cursor; :class:`CursorInvalid` says what is wrong with it."""
    if not isinstance(token, str) or not token or len(token) > 512:
        raise CursorInvalid("malformed cursor")
    encoded, _, signature = token.partition(".")
    try:
        body = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))
    except (binascii.Error, ValueError):
        raise CursorInvalid("malformed cursor (not base64url)") from None
    expected = _sign(secret, uri, body).encode()
    if not signature or not hmac.compare_digest(signature.encode("utf-8", "replace"), expected):
        raise CursorInvalid("cursor was not issued by this reader for this resource")
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise CursorInvalid("malformed cursor (not JSON)") from None
    if not isinstance(data, dict) or data.get("v") != CURSOR_VERSION:
        raise CursorInvalid("unsupported cursor version")
    kind, cache_id = data.get("k"), data.get("c")
    offset, page = data.get("o", 0), data.get("p", 0)
    if not isinstance(kind, str) or not isinstance(cache_id, str):
        raise CursorInvalid("malformed cursor fields")
    for value in (offset, page):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise CursorInvalid("malformed cursor position")
    return Cursor(kind, cache_id, offset, page)


KEY_BYTES = 16


def _read_key(key: Path) -> bytes | None:
    try:
        value = bytes.fromhex(key.read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        return None
    return value if len(value) == KEY_BYTES else None


def user_cursor_secret() -> bytes:
    """A per-user key for signing cursors that must survive the process (the CLI's), kept in
    ``$XDG_CACHE_HOME/ctx-lab/cursor.key`` (mode 0600).

    Created atomically — written in full to a temporary file, then linked into place only if
    no key exists yet — so a crash never leaves an empty or half key, and two processes
    starting at once agree on one key. A damaged key is replaced the same way.
    """
    base = user_cache_dir()
    key = base / "cursor.key"
    found = _read_key(key)
    if found is not None:
        return found
    base.mkdir(parents=True, exist_ok=True)
    fresh = secrets.token_bytes(KEY_BYTES).hex()
    if not create_exclusive(key, fresh, mode=0o600) and _read_key(key) is None:
        write_atomic(key, fresh, mode=0o600)  # a damaged key (older versions could leave one)
    value = _read_key(key)
    if value is None:
        raise CtxLabError(f"cannot create the cursor key {key}")
    return value
