"""Round 3 of the attack on the surfaces that arrived since the last one: each finding of the
hardening issue (N1–N20) with the test that reproduces it."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctx_lab.cli import main as cli_main

pytestmark = pytest.mark.hardening  # a theme of the hardening rounds


def test_hide_root_rewrites_whole_path_components_only() -> None:
    from ctx_lab.files import hide_root

    text = "/srv/root/a.md and /srv/root and /srv/rootx/b and '/srv/root'"
    assert hide_root(text, "/srv/root") == "a.md and . and /srv/rootx/b and '.'"
    assert hide_root(text, None) == text and hide_root("/x", "/") == "/x"


def test_a_name_too_long_is_a_typed_error_everywhere_in_the_cli(tmp_path: Path, capsys) -> None:
    long = "a" * 5000
    for argv in (
        ["build", "--task", "x", long],
        ["context", long],
        ["journal", "stats", long],
        ["packet", long],
    ):
        assert cli_main(argv) in (1, 2), argv
        err = capsys.readouterr().err
        assert "Traceback" not in err and "error:" in err, argv
