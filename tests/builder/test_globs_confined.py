"""Round 3 of the attack on the surfaces that arrived since the last one: each finding of the
hardening issue (N1–N20) with the test that reproduces it."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.hardening  # a theme of the hardening rounds


def test_globs_are_confined_before_expansion_and_leak_no_names(tmp_path: Path) -> None:
    from ctx_lab import commands
    from ctx_lab.errors import PathOutsideRoot

    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.py").write_text("x = 1\n")
    (root / "loop").symlink_to(".")
    (root / "bomb").mkdir()
    (root / "bomb" / "up").symlink_to("..")
    (root / "bomb" / "self").symlink_to("../bomb")
    for pattern in ("/etc/shado?", "/usr/**/zz", "../*", "~/.ssh/*", "bomb/../../*"):
        with pytest.raises(PathOutsideRoot) as info:
            commands.build("t", [pattern], root=root, budget=2000)
        assert "shadow" not in str(info.value) and "/etc/" not in str(info.value).replace(
            pattern, ""
        )
    result = commands.build("t", ["**/*.py", "loop/loop/a.py", "loop/a.py"], root=root, budget=2000)
    assert [b.path for b in result.blocks if b.source == "file"] == ["a.py"]
    deep = commands.build("t", ["bomb/**/zz"], root=root, budget=2000)
    assert not [b for b in deep.blocks if b.source == "file"]
