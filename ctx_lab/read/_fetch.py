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
    FileTooLarge,
    InputFileError,
    LimitExceeded,
    PathOutsideRoot,
    ReadError,
    ResourceNotFound,
)
from ..files import FileIdentity, confine, identity, read_bytes
from ..limits import LIMITS
from ._addresses import IPAddress, blocked_reason, parse_ip

__all__ = [
    "Fetched",
    "HttpFetcher",
    "Target",
    "is_http",
    "parse_target",
    "read_local",
    "resolve_local",
]

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


def local_validators(version: FileIdentity) -> tuple[str, str]:
    """What a local file's document is checked against before it is read again: its size and
    modification time (the content hash follows them in the document's validators)."""
    return f"size={version.size}", f"mtime={version.mtime_ns}"


def read_local(path: Path, max_bytes: int) -> tuple[bytes, tuple[str, ...]]:
    """The file's bytes and validators (size, mtime, content hash)."""
    try:
        version = identity(path)
        data = read_bytes(path, limit=max_bytes, kind="read")
    except FileNotFoundError:
        raise ResourceNotFound(f"{path}: no such file") from None
    except FileTooLarge as exc:
        raise LimitExceeded(str(exc)) from None
    except (OSError, InputFileError) as exc:
        raise ReadError(f"{path}: cannot read ({getattr(exc, 'strerror', None) or exc})") from None
    digest = hashlib.sha256(data).hexdigest()[:16]
    return data, (*local_validators(version._replace(size=len(data))), f"sha256={digest}")


@dataclass(frozen=True)
class Target:
    """One URL as the client will use it: parsed once, by the same parser for the address
    check and the request, so they cannot disagree about the host."""

    scheme: str
    host: str
    port: int
    request_uri: str
    url: str

    @property
    def host_header(self) -> str:
        """The ``Host`` header: the name (IPv6 in brackets), with the port when not default."""
        name = f"[{self.host}]" if ":" in self.host else self.host
        default = 443 if self.scheme == "https" else 80
        return name if self.port == default else f"{name}:{self.port}"


def parse_target(url: str) -> Target:
    """Parse an http(s) URL strictly: no credentials, no backslashes or control characters in
    it, a host, a port in 1–65535. :class:`FetchError` otherwise."""
    from urllib3.exceptions import LocationParseError
    from urllib3.util import parse_url

    if any(ch in url for ch in "\\\r\n\t\x00") or any(ord(ch) < 32 for ch in url):
        raise FetchError(f"{url!r}: not a valid URL (backslash or control character)")
    try:
        parsed = parse_url(url)
    except (LocationParseError, ValueError) as exc:
        raise FetchError(f"{url!r}: not a valid URL ({exc})") from None
    scheme = (parsed.scheme or "").lower()
    if scheme not in ("http", "https"):
        raise FetchError(f"{url!r}: only http:// and https:// URLs are fetched")
    if parsed.auth is not None:
        raise FetchError(f"{url!r}: URLs with credentials (user@host) are not fetched")
    host = (parsed.host or "").strip("[]").lower()
    if not host:
        raise FetchError(f"{url!r}: no host")
    port = parsed.port or (443 if scheme == "https" else 80)
    if not 0 < port < 65536:
        raise FetchError(f"{url!r}: port {port} is out of range")
    return Target(scheme, host, port, parsed.request_uri or "/", parsed.url)


class HttpFetcher:
    """GET over HTTP(S), every hop checked and connected to the address that was checked.

    Each hop's host is resolved once; every address it resolves to must be globally routable
    (:mod:`.addresses`; ``allow_private`` or ``allowed_networks`` widen that), and the
    connection goes to that very address — the ``Host`` header, TLS SNI and certificate check
    keep the original name — so neither a second DNS answer (rebinding) nor a URL the client
    parses differently can lead elsewhere. Redirects are followed by hand, each hop checked.
    The deadline covers the whole fetch, redirects and a slow body included.
    """

    def __init__(
        self,
        *,
        max_bytes: int | None = None,
        deadline: float = 30.0,
        max_redirects: int = 5,
        allow_private: bool = False,
        allowed_networks: Iterable[str] = (),
        resolver: Resolver = socket.getaddrinfo,
        clock: Callable[[], float] = time.monotonic,
        session: Any = None,
    ) -> None:
        self.max_bytes = LIMITS["read"].value() if max_bytes is None else max_bytes
        self.deadline = deadline
        self.max_redirects = max_redirects
        self.allow_private = allow_private
        self.allowed_networks = [ipaddress.ip_network(n, strict=False) for n in allowed_networks]
        self.resolver = resolver
        self.clock = clock
        del session  # accepted for compatibility; connections are made per checked address

    def addresses(self, target: Target) -> list[IPAddress]:
        """The addresses ``target``'s host resolves to, all checked; :class:`AccessDenied`
        when any is not allowed."""
        try:
            infos = self.resolver(target.host, target.port, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError) as exc:
            raise FetchError(f"{target.url}: cannot resolve {target.host} ({exc})") from None
        found: list[IPAddress] = []
        for info in infos:
            try:
                ip = parse_ip(str(info[4][0]))
            except ValueError:
                continue
            if ip not in found:
                found.append(ip)
        if not found:
            raise FetchError(f"{target.url}: {target.host} has no address")
        if not self.allow_private:
            for ip in found:
                why = blocked_reason(ip, self.allowed_networks)
                if why is not None:
                    raise AccessDenied(
                        f"{target.url}: {target.host} resolves to {ip}, a private or local "
                        f"address ({why}); pass allow_private=True (CLI: --allow-private) "
                        "to read it"
                    )
        return found

    def check_address(self, url: str) -> None:
        """Refuse a URL whose host is not allowed (see :meth:`addresses`)."""
        self.addresses(parse_target(url))

    def _left(self, started: float, url: str) -> float:
        left = self.deadline - (self.clock() - started)
        if left <= 0:
            raise LimitExceeded(f"{url}: the {self.deadline:g} s deadline passed")
        return left

    def fetch(self, url: str, etag: str | None = None, last_modified: str | None = None) -> Fetched:
        """Fetch ``url`` (conditionally, when validators are given)."""
        started = self.clock()
        current = url
        for _ in range(self.max_redirects + 1):
            target = parse_target(current)
            ip = self.addresses(target)[0]
            left = self._left(started, url)
            headers = {
                "Host": target.host_header,
                "User-Agent": USER_AGENT,
                "Accept-Encoding": "gzip, deflate",
            }
            if current == url and etag:
                headers["If-None-Match"] = etag
            if current == url and last_modified:
                headers["If-Modified-Since"] = last_modified
            response = self._request(target, ip, headers, left, url)
            try:
                location = response.headers.get("Location")
                if response.status in REDIRECTS and location:
                    current = urljoin(target.url, location)
                    continue
                if response.status == 304:
                    return Fetched(current, b"", "", etag, last_modified, not_modified=True)
                if response.status >= 400:
                    raise FetchError(
                        f"{url}: HTTP {response.status} {response.reason or ''}".rstrip()
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
                response.release_conn()
                response.close()
        raise FetchError(f"{url}: more than {self.max_redirects} redirects")

    def _request(
        self, target: Target, ip: IPAddress, headers: dict[str, str], left: float, url: str
    ) -> Any:
        import urllib3
        from urllib3.exceptions import HTTPError as Urllib3Error

        timeout = urllib3.Timeout(connect=min(10.0, left), read=left)
        if target.scheme == "https":
            import certifi

            pool: Any = urllib3.HTTPSConnectionPool(
                str(ip),
                target.port,
                timeout=timeout,
                retries=False,
                maxsize=1,
                server_hostname=target.host,
                assert_hostname=target.host,
                cert_reqs="CERT_REQUIRED",
                ca_certs=certifi.where(),
            )
        else:
            pool = urllib3.HTTPConnectionPool(
                str(ip), target.port, timeout=timeout, retries=False, maxsize=1
            )
        try:
            return pool.urlopen(
                "GET",
                target.request_uri,
                headers=headers,
                redirect=False,
                preload_content=False,
                decode_content=True,
                assert_same_host=False,
            )
        except Urllib3Error as exc:
            # urllib3's NewConnectionError is a ConnectTimeoutError too: a refusal is no timeout
            if (
                isinstance(exc, urllib3.exceptions.NewConnectionError)
                and "timed out" not in str(exc).lower()
            ):
                why = getattr(exc, "__cause__", None) or getattr(exc, "reason", None)
                reason = (
                    "the connection was refused"
                    if "refused" in str(exc).lower()
                    else f"cannot connect ({getattr(why, 'strerror', None) or exc})"
                )
                raise FetchError(f"{url}: {reason}") from None
            if isinstance(exc, TimeoutError | urllib3.exceptions.TimeoutError) or (
                "timed out" in str(exc).lower()
            ):
                raise LimitExceeded(
                    f"{url}: no answer within the {self.deadline:g} s deadline"
                ) from None
            raise FetchError(f"{url}: {exc.__class__.__name__}: {exc}") from None

    def _read_body(self, response: Any, url: str, started: float) -> bytes:
        from urllib3.exceptions import HTTPError as Urllib3Error

        declared = response.headers.get("Content-Length")
        if declared and declared.isdigit() and int(declared) > self.max_bytes:
            raise LimitExceeded(f"{url}: {declared} bytes; the limit is {self.max_bytes}")
        chunks: list[bytes] = []
        size = 0
        try:
            while True:
                left = self.deadline - (self.clock() - started)
                if left <= 0:
                    raise LimitExceeded(
                        f"{url}: the body did not arrive within {self.deadline:g} s"
                    )
                _limit_wait(response, left)
                chunk = response.read1(64 * 1024, decode_content=True)
                if not chunk:
                    break
                size += len(chunk)
                if size > self.max_bytes:
                    raise LimitExceeded(
                        f"{url}: the body (decompressed) exceeds the {self.max_bytes}-byte limit"
                    )
                chunks.append(chunk)
        except (Urllib3Error, OSError) as exc:
            if self.clock() - started > self.deadline or "timed out" in str(exc).lower():
                raise LimitExceeded(
                    f"{url}: the body did not arrive within {self.deadline:g} s"
                ) from None
            raise FetchError(f"{url}: reading the body failed: {exc}") from None
        return b"".join(chunks)


def _limit_wait(response: Any, seconds: float) -> None:
    """Let the next read wait at most ``seconds``, so a trickling body cannot outlast the
    deadline one slow read at a time."""
    connection = getattr(response, "connection", None)
    sock = getattr(connection, "sock", None)
    if sock is not None:
        sock.settimeout(max(seconds, 0.001))
