"""Reading over HTTP against a server on 127.0.0.1 (sockets elsewhere are blocked in this run):
revalidation, size cap, gzip bomb, trickling body, private-address guard on redirects."""

from __future__ import annotations

import gzip
import socket
import time

import pytest
from werkzeug import Request, Response

from ctx_lab.errors import AccessDenied, FetchError, LimitExceeded, UnsupportedContent
from ctx_lab.read import Reader

LOOPBACK = ["127.0.0.1/32", "::1/128"]


@pytest.fixture
def reader() -> Reader:
    return Reader([], allowed_networks=LOOPBACK, deadline=5)


def test_sockets_elsewhere_are_blocked() -> None:
    from pytest_socket import SocketConnectBlockedError

    with pytest.raises(SocketConnectBlockedError):
        socket.create_connection(("10.255.255.1", 80), timeout=0.1)


def test_text_and_html(httpserver, reader) -> None:
    httpserver.expect_request("/t.txt").respond_with_data("hello " * 100, content_type="text/plain")
    httpserver.expect_request("/p.html").respond_with_data(
        "<html><body><article><h1>Title</h1><p>"
        + "Body text. " * 80
        + "</p></article></body></html>",
        content_type="text/html; charset=utf-8",
    )
    r = reader.read(httpserver.url_for("/t.txt"), max_chars=100)
    assert r.kind == "text" and r.truncated and len(r.content) <= 100
    page = reader.read(httpserver.url_for("/p.html"), max_chars=20_000)
    assert page.kind == "html" and "Body text." in page.content and "<p>" not in page.content


def test_etag_revalidation(httpserver, reader) -> None:
    state = {"etag": '"v1"', "body": "version one " * 200, "full": 0, "not_modified": 0}

    def handler(request: Request) -> Response:
        if request.headers.get("If-None-Match") == state["etag"]:
            state["not_modified"] += 1
            return Response(status=304)
        state["full"] += 1
        return Response(state["body"], content_type="text/plain", headers={"ETag": state["etag"]})

    httpserver.expect_request("/doc").respond_with_handler(handler)
    url = httpserver.url_for("/doc")
    first = reader.read(url, max_chars=300)
    second = reader.read(url, first.next_cursor, 300)
    assert not second.cursor_reset and second.cache_hit
    assert (state["full"], state["not_modified"]) == (1, 1)
    state.update(etag='"v2"', body="version two " * 200)
    third = reader.read(url, second.next_cursor, 300)
    assert third.cursor_reset and "changed" in third.cursor_reason
    assert third.content.startswith("version two")


def test_last_modified_revalidation(httpserver, reader) -> None:
    stamp = "Wed, 21 Oct 2026 07:28:00 GMT"
    hits = {"304": 0}

    def handler(request: Request) -> Response:
        if request.headers.get("If-Modified-Since") == stamp:
            hits["304"] += 1
            return Response(status=304)
        return Response("dated " * 300, content_type="text/plain", headers={"Last-Modified": stamp})

    httpserver.expect_request("/dated").respond_with_handler(handler)
    url = httpserver.url_for("/dated")
    first = reader.read(url, max_chars=200)
    assert reader.read(url, first.next_cursor, 200).cache_hit and hits["304"] == 1


def test_body_over_the_cap(httpserver) -> None:
    small = Reader([], allowed_networks=LOOPBACK, max_bytes=10_000)
    httpserver.expect_request("/big").respond_with_data("x" * 50_000, content_type="text/plain")
    with pytest.raises(LimitExceeded, match="10000"):
        small.read(httpserver.url_for("/big"))

    def chunked(request: Request) -> Response:  # no Content-Length: caught while streaming
        return Response((b"y" * 4096 for _ in range(20)), content_type="text/plain")

    httpserver.expect_request("/stream").respond_with_handler(chunked)
    with pytest.raises(LimitExceeded, match="exceeds"):
        small.read(httpserver.url_for("/stream"))


def test_gzip_bomb(httpserver) -> None:
    bomb = gzip.compress(b"\0" * (64 * 1024 * 1024), compresslevel=9)
    assert len(bomb) < 200_000
    httpserver.expect_request("/bomb").respond_with_data(
        bomb, content_type="text/plain", headers={"Content-Encoding": "gzip"}
    )
    capped = Reader([], allowed_networks=LOOPBACK, max_bytes=1024 * 1024)
    started = time.monotonic()
    with pytest.raises(LimitExceeded, match="decompressed"):
        capped.read(httpserver.url_for("/bomb"))
    assert time.monotonic() - started < 10


def test_trickling_body_hits_the_deadline(httpserver) -> None:
    def trickle(request: Request) -> Response:
        def body():
            for _ in range(100):
                yield b"x"
                time.sleep(0.1)

        return Response(body(), content_type="text/plain")

    httpserver.expect_request("/slow").respond_with_handler(trickle)
    hasty = Reader([], allowed_networks=LOOPBACK, deadline=0.8)
    started = time.monotonic()
    with pytest.raises(LimitExceeded, match="within"):
        hasty.read(httpserver.url_for("/slow"))
    assert time.monotonic() - started < 3


@pytest.mark.parametrize(
    "target", ["http://127.0.0.2:9/x", "http://10.1.2.3/x", "http://169.254.169.254/latest"]
)
def test_redirect_to_private_address_refused(httpserver, reader, target) -> None:
    httpserver.expect_request("/go").respond_with_data("", status=302, headers={"Location": target})
    with pytest.raises(AccessDenied, match="private or local"):
        reader.read(httpserver.url_for("/go"))


def test_private_origin_refused_by_default(httpserver) -> None:
    httpserver.expect_request("/x").respond_with_data("x")
    with pytest.raises(AccessDenied, match="allow_private"):
        Reader([]).read(httpserver.url_for("/x"))
    assert Reader([], allow_private=True).read(httpserver.url_for("/x")).content == "x"


def test_status_and_content_errors(httpserver, reader) -> None:
    httpserver.expect_request("/missing").respond_with_data("no", status=404)
    httpserver.expect_request("/img").respond_with_data(b"\x89PNG\r\n", content_type="image/png")
    httpserver.expect_request("/loop").respond_with_data(
        "", status=302, headers={"Location": "/loop"}
    )
    with pytest.raises(FetchError, match="404"):
        reader.read(httpserver.url_for("/missing"))
    with pytest.raises(UnsupportedContent, match="image/png"):
        reader.read(httpserver.url_for("/img"))
    with pytest.raises(FetchError, match="redirects"):
        reader.read(httpserver.url_for("/loop"))


def test_http_can_be_switched_off(httpserver) -> None:
    httpserver.expect_request("/x").respond_with_data("x")
    with pytest.raises(Exception, match="switched off"):
        Reader([], allow_private=True, allow_http=False).read(httpserver.url_for("/x"))
