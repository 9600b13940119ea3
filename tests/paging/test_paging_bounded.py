"""Hostile inputs are bounded: size limits named with their variable, deep nesting and floods
degrade or fail cleanly, never a hang, a traceback or a RecursionError (hardening rows 10-12,
14). Limits are lowered for the test instead of timing anything."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctx_lab import commands
from ctx_lab.errors import FileTooLarge

pytestmark = pytest.mark.hardening  # a theme of the hardening rounds


def test_paging_a_file_over_the_page_limit_stops_before_reading(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("CTX_LAB_MAX_PAGE_BYTES", "100000")
    (tmp_path / "big.log").write_bytes(b"line of a big log\n" * 10_000)  # 180 KB
    with pytest.raises(FileTooLarge, match="CTX_LAB_MAX_PAGE_BYTES"):
        commands.page("big.log", lines=(1, 2), root=tmp_path)


@pytest.mark.parametrize(
    "state",
    [
        '{"max_pages": Infinity, "max_tokens": 8000}',
        '{"max_pages": 1e999, "max_tokens": 8000}',
        '{"max_pages": "10", "max_tokens": 8000}',
        '{"max_pages": -1, "max_tokens": 8000}',
        '{"max_pages": 10}',
        "[1, 2]",
        '{"max_pages": 10, "max_tokens": 8000, "pages_used": true}',
    ],
)
def test_a_mangled_paging_state_is_a_clear_error(run_cli, tmp_path: Path, state: str) -> None:
    (tmp_path / "state.json").write_text(state)
    (tmp_path / "a.txt").write_text("a\nb\n")
    code, _, err = run_cli(
        "page",
        str(tmp_path / "a.txt"),
        "--root",
        str(tmp_path),
        "--state",
        str(tmp_path / "state.json"),
    )
    assert code == 1 and "not a paging" in err and "Traceback" not in err
