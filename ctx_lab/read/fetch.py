"""Fetching bytes: local files under allowed roots, and HTTP(S) with a size cap enforced while
streaming (compressed bodies included), a total deadline, and a guard against private network
addresses that is applied to every redirect hop."""

from __future__ import annotations

import hashlib
import ipaddress
import socket
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

from ..errors import (
    AccessDenied,
    FetchError,
    InputFileError,
    LimitExceeded,
    PathOutsideRoot,
    ReadError,
)
from ..files import confine

__all__ = ["Fetched", "HttpFetcher", "is_http", "read_local", "resolve_local"]

REDIRECTS = {301, 302, 303, 307, 308}
USER_AGENT = "ctx-lab-reader/1 (+https://pypi.org/project/ctx-lab/)"
Resolver = Callable[..., Sequence[tuple[Any, ...]]]


@dataclass(frozen=True)
class Fetched:
    """What a fetch returned: the final URL, body, type and validators (or 'not modified')."""

    url: str
    body: bytes
    content_type: str
    etag: str | None = None
    last_modified: str | None = None
    not_modified: bool = False

    @property
    def validators(self) -> tuple[str, ...]:
        """ETag and Last-Modified, when the server sent them."""
        return tuple(v for v in (self.etag, self.last_modified) if v)


def is_http(uri: str) -> bool:
    """True for http:// and https:// URIs."""
    return uri.lower().startswith(("http://", "https://"))


def resolve_local(uri: str, roots: Iterable[Path]) -> Path:
    """The local file a path or ``file:`` URI names, which must lie under one of ``roots``
    (:func:`ctx_lab.files.confine`); relative paths are taken from the first root."""
    roots = list(roots)
    if uri.lower().startswith("file:"):
        parts = urlsplit(uri)
        if parts.netloc not in ("", "localhost"):
            raise AccessDenied(f"{uri}: file URIs on other hosts are not read")
        raw = unquote(parts.path)
    else:
        raw = uri
    path = Path(raw)
    if not path.is_absolute() and roots:
        path = Path(roots[0]) / path
    for root in roots:
        try:
            return confine(root, path, what=uri)
        except PathOutsideRoot:
            continue
        except InputFileError:
            continue  # a root that is no directory (any longer) allows nothing
    allowed = ", ".join(str(r) for r in roots) or "(none)"
    raise PathOutsideRoot(f"{uri}: outside the allowed roots ({allowed})")


def read_local(path: Path, max_bytes: int) -> tuple[bytes, tuple[str, ...]]:
    """The file's bytes and validators (size, mtime, content hash)."""
    try:
        stat = path.stat()
        if not path.is_file():
            raise ReadError(f"{path}: not a file")
        if stat.st_size > max_bytes:
            raise LimitExceeded(f"{path} is {stat.st_size} bytes; the limit is {max_bytes}")
        data = path.read_bytes()
    except FileNotFoundError:
        raise ReadError(f"{path}: no such file") from None
    except OSError as exc:
        raise ReadError(f"{path}: cannot read ({exc.strerror})") from None
    digest = hashlib.sha256(data).hexdigest()[:16]
    return data, (f"size={len(data)}", f"mtime={stat.st_mtime_ns}", f"sha256={digest}")


def _blocked(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return bool(
        ip.is_private
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_reserved
        or ip.is_multicast
        or ip.is_unspecified
    )


class HttpFetcher:
    """GET over HTTP(S) with redirects followed by hand, so every hop is checked."""

    def __init__(
        self,
        *,
        max_bytes: int = 25 * 1024 * 1024,
        deadline: float = 30.0,
        max_redirects: int = 5,
        allow_private: bool = False,
        allowed_networks: Iterable[str] = (),
        resolver: Resolver = socket.getaddrinfo,
        clock: Callable[[], float] = time.monotonic,
        session: Any = None,
    ) -> None:
        self.max_bytes = max_bytes
        self.deadline = deadline
        self.max_redirects = max_redirects
        self.allow_private = allow_private
        self.allowed_networks = [ipaddress.ip_network(n, strict=False) for n in allowed_networks]
        self.resolver = resolver
        self.clock = clock
        self._session = session

    @property
    def session(self) -> Any:
        """A requests Session that ignores proxy and netrc settings from the environment."""
        if self._session is None:
            import requests

            self._session = requests.Session()
            self._session.trust_env = False
        return self._session

    def check_address(self, url: str) -> None:
        """Refuse hosts that resolve to loopback, private, link-local or other special
        addresses (unless allowed)."""
        if self.allow_private:
            return
        parts = urlsplit(url)
        host = parts.hostname
        if not host:
            raise FetchError(f"{url}: no host")
        try:
            infos = self.resolver(host, parts.port or 443, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError) as exc:
            raise FetchError(f"{url}: cannot resolve {host} ({exc})") from None
        for info in infos:
            ip = ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])
            if any(ip in net for net in self.allowed_networks):
                continue
            if _blocked(ip):
                raise AccessDenied(
                    f"{url}: {host} resolves to {ip}, a private or local address; "
                    "pass allow_private=True (CLI: --allow-private) to read it"
                )

    def fetch(self, url: str, etag: str | None = None, last_modified: str | None = None) -> Fetched:
        """Fetch ``url`` (conditionally, when validators are given)."""
        import requests

        started = self.clock()
        current = url
        for _ in range(self.max_redirects + 1):
            if not is_http(current):
                raise FetchError(f"{url}: redirected to a non-HTTP location {current}")
            self.check_address(current)
            remaining = self.deadline - (self.clock() - started)
            if remaining <= 0:
                raise LimitExceeded(f"{url}: the {self.deadline:g} s deadline passed")
            headers = {"User-Agent": USER_AGENT, "Accept-Encoding": "gzip, deflate"}
            if current == url and etag:
                headers["If-None-Match"] = etag
            if current == url and last_modified:
                headers["If-Modified-Since"] = last_modified
            try:
                response = self.session.get(
                    current,
                    headers=headers,
                    stream=True,
                    allow_redirects=False,
                    timeout=(min(10.0, remaining), remaining),
                )
            except requests.exceptions.Timeout:
                raise LimitExceeded(
                    f"{url}: no answer within the {self.deadline:g} s deadline"
                ) from None
            except requests.exceptions.RequestException as exc:
                raise FetchError(f"{url}: {exc.__class__.__name__}: {exc}") from None
            try:
                if response.status_code in REDIRECTS and response.headers.get("Location"):
                    current = urljoin(current, response.headers["Location"])
                    continue
                if response.status_code == 304:
                    return Fetched(current, b"", "", etag, last_modified, not_modified=True)
                if response.status_code >= 400:
                    raise FetchError(
                        f"{url}: HTTP {response.status_code} {response.reason or ''}".rstrip()
                    )
                body = self._read_body(response, url, started)
                return Fetched(
                    current,
                    body,
                    response.headers.get("Content-Type", ""),
                    response.headers.get("ETag"),
                    response.headers.get("Last-Modified"),
                )
            finally:
                response.close()
        raise FetchError(f"{url}: more than {self.max_redirects} redirects")

    def _read_body(self, response: Any, url: str, started: float) -> bytes:
        import requests
        from urllib3.exceptions import HTTPError as Urllib3Error

        declared = response.headers.get("Content-Length")
        if declared and declared.isdigit() and int(declared) > self.max_bytes:
            raise LimitExceeded(f"{url}: {declared} bytes; the limit is {self.max_bytes}")
        chunks: list[bytes] = []
        size = 0
        raw = response.raw
        try:
            while True:
                if self.clock() - started > self.deadline:
                    raise LimitExceeded(
                        f"{url}: the body did not arrive within {self.deadline:g} s"
                    )
                chunk = raw.read1(64 * 1024, decode_content=True)
                if not chunk:
                    break
                size += len(chunk)
                if size > self.max_bytes:
                    raise LimitExceeded(
                        f"{url}: the body (decompressed) exceeds the {self.max_bytes}-byte limit"
                    )
                chunks.append(chunk)
        except (Urllib3Error, requests.exceptions.RequestException, OSError) as exc:
            if self.clock() - started > self.deadline or "timed out" in str(exc).lower():
                raise LimitExceeded(
                    f"{url}: the body did not arrive within {self.deadline:g} s"
                ) from None
            raise FetchError(f"{url}: reading the body failed: {exc}") from None
        return b"".join(chunks)
