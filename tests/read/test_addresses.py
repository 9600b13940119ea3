"""Round 3 of the attack on the surfaces that arrived since the last one: each finding of the
hardening issue (N1–N20) with the test that reproduces it."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.hardening  # a theme of the hardening rounds


@pytest.mark.parametrize(
    "address",
    [
        "::169.254.169.254",
        "::127.0.0.1",
        "::ffff:0:7f00:1",
        "::ffff:0:a9fe:a9fe",
        "3fff::1",
        "5f00::1",
        "2001:2::1",
        "::ffff:127.0.0.1",
        "64:ff9b::7f00:1",
        "2002:7f00:1::",
    ],
)
def test_ipv6_forms_carrying_private_ipv4_are_refused(address: str) -> None:
    from ctx_lab.read._addresses import blocked_reason, parse_ip

    assert blocked_reason(parse_ip(address)) is not None


def test_global_addresses_stay_reachable() -> None:
    from ctx_lab.read._addresses import blocked_reason, parse_ip

    for address in ("8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8"):
        assert blocked_reason(parse_ip(address)) is None, address


def test_a_refused_connection_says_so_not_the_deadline(tmp_path: Path) -> None:
    import socket

    from ctx_lab.errors import ReadError
    from ctx_lab.read import Reader

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # bound, never listening: connecting is refused
        reader = Reader([tmp_path], allow_private=True)
        with pytest.raises(ReadError, match="refused") as info:
            reader.read(f"http://127.0.0.1:{port}/x")
    assert "deadline" not in str(info.value)
