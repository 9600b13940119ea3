"""Hostile inputs are bounded: size limits named with their variable, deep nesting and floods
degrade or fail cleanly, never a hang, a traceback or a RecursionError (hardening rows 10-12,
14). Limits are lowered for the test instead of timing anything."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.hardening  # a theme of the hardening rounds


def test_cli_over_a_limit_exits_1_without_a_traceback(run_cli, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("CTX_LAB_MAX_FILE_BYTES", "1000")
    (tmp_path / "big.txt").write_text("x" * 5000)
    for argv in (["tokens", str(tmp_path / "big.txt")], ["compress", str(tmp_path / "big.txt")]):
        code, _, err = run_cli(*argv)
        assert code == 1 and "CTX_LAB_MAX_FILE_BYTES" in err and "Traceback" not in err


@pytest.mark.parametrize(
    "now", ["9999-12-31T23:59:59-12:00", "0001-01-01T00:00:00+14:00", "yesterday"]
)
def test_out_of_range_times_are_usage_errors(run_cli, now: str) -> None:
    code, _, err = run_cli("packet", "--example", "--now", now)
    assert code == 2 and "ISO 8601" in err and "Traceback" not in err


def test_long_and_odd_names_are_errors_not_crashes(run_cli, tmp_path: Path) -> None:
    long_name = "n" * 300 + ".txt"
    for argv in (
        ["tokens", str(tmp_path / long_name)],
        ["page", long_name, "--root", str(tmp_path)],
        ["read", long_name, "--root", str(tmp_path)],
        ["read", "http://127.0.0.1:99999/"],
        ["read", "http://[::1/"],
        ["read", "http://" + "a" * 300 + ".example/"],
        ["models", "m" * 300],
    ):
        code, _, err = run_cli(*argv)
        assert code in (0, 1, 2) and "Traceback" not in err, argv
