"""The reader attacked (servers on 127.0.0.1 only): URL tricks, rebinding, address spellings,
deadline, charsets, cursors that must advance."""

from __future__ import annotations

import ipaddress
import socket

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from werkzeug import Request, Response

from ctx_lab.errors import AccessDenied, FetchError, LimitExceeded
from ctx_lab.read import Reader
from ctx_lab.read._addresses import blocked_reason
from ctx_lab.read._fetch import HttpFetcher, parse_target

LOOPBACK = ["127.0.0.1/32", "::1/128"]


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def no_resolver(*args, **kwargs):
    raise AssertionError("the URL must be refused before any name is resolved")


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8765\\@8.8.8.8/",  # the guard must not see 8.8.8.8 while we connect to 127.0.0.1
        "http://8.8.8.8@127.0.0.1/",
        "http://user:pass@example.com/",
        "http://[::1/",
        "http://127.0.0.1:99999/",
        "http://exa\tmple.com/",
        "http://example.com/\r\nHost: evil",
        "ftp://example.com/",
        "http:///path-only",
    ],
)
def test_urls_that_parse_two_ways_are_refused_before_resolving(url: str) -> None:
    fetcher = HttpFetcher(resolver=no_resolver)
    with pytest.raises(FetchError):
        fetcher.fetch(url)


def test_the_cli_refuses_the_backslash_trick(run_cli) -> None:
    code, _, err = run_cli("read", "http://127.0.0.1:8765\\@8.8.8.8/")
    assert code == 1 and "backslash" in err and "Traceback" not in err


def test_a_redirect_with_the_backslash_trick_is_refused(httpserver) -> None:
    port = httpserver.port
    httpserver.expect_request("/go").respond_with_data(
        "", status=302, headers={"Location": f"http://127.0.0.1:{port}\\@8.8.8.8/"}
    )
    with pytest.raises(FetchError, match=r"backslash|credentials"):
        Reader([], allowed_networks=LOOPBACK).read(httpserver.url_for("/go"))


def test_the_checked_address_is_the_one_connected_to(httpserver) -> None:
    """DNS rebinding: the first answer is checked and used; a second lookup would answer with
    a private address, but there is no second lookup."""
    httpserver.expect_request("/doc").respond_with_data("rebound? no.", content_type="text/plain")
    calls: list[str] = []

    def rebinding(host, port, *args, **kwargs):
        calls.append(host)
        address = "127.0.0.1" if len(calls) == 1 else "10.0.0.7"
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]

    reader = Reader([], allowed_networks=["127.0.0.1/32"], resolver=rebinding)
    url = f"http://rebind.test:{httpserver.port}/doc"
    assert reader.read(url).content == "rebound? no."
    assert calls == ["rebind.test"]
    served = httpserver.log[-1][0]
    assert served.headers["Host"] == f"rebind.test:{httpserver.port}"


def test_every_answer_must_be_allowed() -> None:
    def mixed(host, port, *args, **kwargs):
        return [
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.216.34", port)),
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("169.254.169.254", port)),
        ]

    with pytest.raises(AccessDenied, match=r"169\.254\.169\.254"):
        HttpFetcher(resolver=mixed).fetch("http://mixed.test/")


@pytest.mark.parametrize(
    "address",
    [
        "100.100.100.200",  # shared address space: cloud metadata
        "100.64.0.1",
        "2002:7f00:1::",  # 6to4 of 127.0.0.1
        "2002:a9fe:a9fe::1",  # 6to4 of 169.254.169.254
        "fec0::1",
        "192.88.99.7",
        "::ffff:127.0.0.1",
        "::ffff:10.1.2.3",
        "64:ff9b::7f00:1",  # NAT64 of 127.0.0.1
        "64:ff9b::a9fe:a9fe",
        "64:ff9b:1::a00:1",
        "2001:0:4136:e378:8000:63bf:3fff:fdd2",  # Teredo
        "127.0.0.1",
        "0.0.0.0",
        "::",
        "::1",
        "10.0.0.1",
        "172.16.5.4",
        "192.168.1.1",
        "169.254.169.254",
        "fd00::1",
        "fe80::1",
        "ff02::1",
        "224.0.0.1",
        "198.18.0.1",
        "240.0.0.1",
        "255.255.255.255",
        "192.0.2.1",
    ],
)
def test_non_global_addresses_are_refused(address: str) -> None:
    assert blocked_reason(ipaddress.ip_address(address)) is not None


@pytest.mark.parametrize(
    "address", ["8.8.8.8", "93.184.216.34", "2606:4700:4700::1111", "2002:808:808::1"]
)
def test_global_addresses_pass(address: str) -> None:
    assert blocked_reason(ipaddress.ip_address(address)) is None


LOOPBACK_SPELLINGS = [
    "127.0.0.1",
    "127.1",
    "2130706433",
    "0x7f000001",
    "0x7f.0.0.1",
    "0177.0.0.1",
    "017700000001",
    "127.000.000.001",
    "[::1]",
    "[0:0:0:0:0:0:0:1]",
    "[::ffff:127.0.0.1]",
    "[::ffff:7f00:1]",
    "[2002:7f00:1::]",
    "[64:ff9b::127.0.0.1]",
    "0",
    "0.0.0.0",
    "localhost",
    "LOCALHOST",
    "10.1",
    "169.254.169.254",
    "0xa9fea9fe",
    "100.100.100.200",
]


@pytest.mark.parametrize("host", LOOPBACK_SPELLINGS)
def test_private_address_spellings_are_refused_without_connecting(host: str) -> None:
    """The real resolver turns every spelling into its address; none is connected to."""
    fetcher = HttpFetcher()
    with pytest.raises((AccessDenied, FetchError)) as info:
        fetcher.fetch(f"http://{host}:8/secret")
    assert "SocketConnectBlocked" not in type(info.value).__name__


@settings(max_examples=60, deadline=None)
@given(
    st.one_of(
        st.ip_addresses(v=4, network="127.0.0.0/8"),
        st.ip_addresses(v=4, network="10.0.0.0/8"),
        st.ip_addresses(v=4, network="100.64.0.0/10"),
        st.ip_addresses(v=4, network="169.254.0.0/16"),
        st.ip_addresses(v=6, network="fc00::/7"),
        st.ip_addresses(v=6, network="fe80::/10"),
    ),
    st.sampled_from(["plain", "mapped", "6to4", "nat64", "decimal"]),
)
def test_generated_private_addresses_are_refused(ip, form: str) -> None:
    if isinstance(ip, ipaddress.IPv4Address):
        value = int(ip)
        spelled = {
            "plain": str(ip),
            "mapped": f"[::ffff:{ip}]",
            "6to4": f"[2002:{value >> 16:x}:{value & 0xFFFF:x}::1]",
            "nat64": f"[64:ff9b::{ip}]",
            "decimal": str(value),
        }[form]
    else:
        spelled = f"[{ip}]"
    with pytest.raises((AccessDenied, FetchError)):
        HttpFetcher().fetch(f"http://{spelled}:9/")


def test_the_deadline_covers_the_whole_fetch(httpserver) -> None:
    """An injected clock: each hop and each part of the body costs simulated seconds; the
    30-second deadline is for the fetch, not for each read."""
    clock = Clock()

    def slow_redirect(request: Request) -> Response:
        clock.now += 20
        return Response("", status=302, headers={"Location": "/body"})

    def slow_body(request: Request) -> Response:
        def parts():
            for _ in range(5):
                clock.now += 4
                yield b"x" * 1000

        return Response(parts(), content_type="text/plain")

    httpserver.expect_request("/start").respond_with_handler(slow_redirect)
    httpserver.expect_request("/body").respond_with_handler(slow_body)
    reader = Reader([], allowed_networks=LOOPBACK, deadline=30, clock=clock)
    with pytest.raises(LimitExceeded, match="30 s"):
        reader.read(httpserver.url_for("/start"))


def test_a_read_never_waits_longer_than_the_deadline_left() -> None:
    from ctx_lab.read._fetch import _limit_wait

    class Sock:
        timeout = None

        def settimeout(self, value):
            self.timeout = value

    class Connection:
        sock = Sock()

    class Response:
        connection = Connection()

    _limit_wait(Response(), 2.5)
    assert Response.connection.sock.timeout == 2.5


@pytest.mark.parametrize(
    ("body", "content_type", "expected"),
    [
        (
            "Café crème brûlée".encode("iso-8859-1"),
            "text/plain; charset=iso-8859-1",
            "Café crème brûlée",
        ),
        ("Grüße".encode("utf-16"), "text/plain; charset=utf-16", "Grüße"),
        ("Grüße".encode("utf-16-le"), "text/plain; charset=utf-16le", "Grüße"),
        (
            "日本語のテキスト".encode("shift_jis"),
            "text/plain; charset=Shift_JIS",
            "日本語のテキスト",
        ),
        (
            b'<html><head><meta charset="windows-1252"></head><body><p>'
            + "na\xefve \u2014 d\xe9j\xe0 vu, ".encode("cp1252") * 30
            + b"</p></body></html>",
            "text/html",
            "naïve — déjà vu",
        ),
    ],
)
def test_declared_charsets_are_honoured(
    httpserver, body: bytes, content_type: str, expected: str
) -> None:
    httpserver.expect_request("/c").respond_with_data(body, content_type=content_type)
    text = Reader([], allowed_networks=LOOPBACK).read(httpserver.url_for("/c")).content
    assert expected in text and "\x00" not in text and "\ufffd" not in text


def _follow(reader: Reader, uri: str, max_chars: int = 200, limit: int = 500) -> list[str]:
    chunks, cursor = [], None
    for _ in range(limit):
        result = reader.read(uri, cursor, max_chars)
        assert not result.cursor_reset, result.cursor_reason
        chunks.append(result.content)
        if not result.truncated:
            return chunks
        cursor = result.next_cursor
    raise AssertionError("the cursor never reached the end")


def test_cursors_advance_without_validators(httpserver) -> None:
    """No ETag, no Last-Modified: following next_cursor still reaches the end."""
    text = "".join(f"line {i} of a page without validators\n" for i in range(300))
    httpserver.expect_request("/nv").respond_with_data(text, content_type="text/plain")
    chunks = _follow(
        Reader([], allowed_networks=LOOPBACK, cache_ttl=0.0), httpserver.url_for("/nv")
    )
    assert "".join(chunks).replace("\n", "") == text.replace("\n", "")


def test_cursors_advance_when_the_text_exceeds_the_cache(httpserver) -> None:
    text = "".join(f"paragraph {i}. " * 5 + "\n" for i in range(400))
    httpserver.expect_request("/big").respond_with_data(
        text, content_type="text/plain", headers={"ETag": '"e1"'}
    )
    reader = Reader([], allowed_networks=LOOPBACK, cache_bytes=1000)
    chunks = _follow(reader, httpserver.url_for("/big"), max_chars=4000)
    assert len(chunks) > 3


def test_a_cursor_does_not_continue_into_changed_text_of_the_same_length(httpserver) -> None:
    state = {"text": "a" * 1000}
    httpserver.expect_request("/same-length").respond_with_handler(
        lambda request: Response(state["text"], content_type="text/plain")
    )
    reader = Reader([], allowed_networks=LOOPBACK, cache_ttl=0.0)
    url = httpserver.url_for("/same-length")
    first = reader.read(url, max_chars=100)
    state["text"] = "b" * 1000
    again = reader.read(url, first.next_cursor, 100)
    assert again.cursor_reset and "changed" in again.cursor_reason and again.content.startswith("b")


def test_parse_target_keeps_the_host_header() -> None:
    target = parse_target("https://Example.COM/a/b?c=1#frag")
    assert (target.host, target.port, target.request_uri, target.host_header) == (
        "example.com",
        443,
        "/a/b?c=1",
        "example.com",
    )
    assert parse_target("http://[::1]:8080/").host_header == "[::1]:8080"
