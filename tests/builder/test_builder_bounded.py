"""Hostile inputs are bounded: size limits named with their variable, deep nesting and floods
degrade or fail cleanly, never a hang, a traceback or a RecursionError (hardening rows 10-12,
14). Limits are lowered for the test instead of timing anything."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctx_lab import commands

pytestmark = pytest.mark.hardening  # a theme of the hardening rounds


def test_an_oversized_file_becomes_a_reference_in_a_build(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("CTX_LAB_MAX_FILE_BYTES", "2000")
    (tmp_path / "small.py").write_text("def f():\n    return 1\n")
    (tmp_path / "huge.py").write_text("x = 1\n" * 1000)
    result = commands.build("task", ["small.py", "huge.py"], budget=5000, root=tmp_path)
    blocks = {b.path: b for b in result.blocks}
    assert blocks["huge.py"].policy_final == "reference"
    assert any("huge.py" in w and "CTX_LAB_MAX_FILE_BYTES" in w for w in result.warnings)
    assert "def f()" in result.prompt


def test_the_build_stops_reading_past_its_total(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("CTX_LAB_MAX_BUILD_BYTES", "5000")
    for i in range(5):
        (tmp_path / f"m{i}.py").write_text(f"# module {i}\n" + "y = 2\n" * 300)  # ~1.8 KB each
    read: list[str] = []
    from ctx_lab.builder import _build as build_module

    real = build_module.read_bytes

    def counting(path, *args, **kwargs):
        read.append(Path(path).name)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(build_module, "read_bytes", counting)
    result = commands.build("task", ["."], budget=50_000, root=tmp_path)
    assert len(read) <= 3
    unread = sum(b.policy_final == "reference" for b in result.blocks)
    assert unread >= 2
    # one warning for all of them (a 40,000-file tree printed 18,000 lines), counting them
    past = [w for w in result.warnings if "CTX_LAB_MAX_BUILD_BYTES" in w]
    assert len(past) == 1 and past[0].startswith(f"{unread} files referenced, not read")
    assert f"and {unread - 3} more" in past[0] if unread > 3 else "more" not in past[0]


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("deep.json", "[" * 100_000 + "]" * 100_000),
        ("deep.yaml", "a:\n" + "".join("  " * i + "- \n" for i in range(1, 3000))),
        ("deep.toml", "a = " + "[" * 50_000 + "]" * 50_000 + "\n"),
        ("deep.py", "x = " + "(" * 5000 + "1" + ")" * 5000 + "\n"),
        ("deep.ts", "const x = " + "[" * 20_000 + "]" * 20_000 + ";\n"),
        ("deep.go", "package p\nvar x = " + "(" * 20_000 + "1" + ")" * 20_000 + "\n"),
    ],
)
def test_deep_nesting_falls_back_instead_of_crashing(tmp_path: Path, name: str, text: str) -> None:
    (tmp_path / name).write_text(text)
    (tmp_path / "ok.py").write_text("def fine():\n    pass\n")
    preview = commands.compress(name, root=tmp_path)
    assert preview.policy in ("summarizable", "structural", "reference")
    result = commands.build("task", [name, "ok.py"], budget=100_000, root=tmp_path)
    assert {b.path for b in result.blocks} >= {name, "ok.py"}
