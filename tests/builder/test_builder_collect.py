"""Collecting a build's files on real checkouts: virtualenvs, node_modules, caches, links that
leave the tree, git failures and hostile globs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ctx_lab.builder import build_context
from ctx_lab.builder._collect import collect_paths
from ctx_lab.errors import LimitExceeded, PathOutsideRoot

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _source(tree: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tree)], check=True)
    (tree / ".gitignore").write_text(".venv/\n.venv-test/\nnode_modules/\n*.log\n")
    (tree / "pkg").mkdir()
    (tree / "pkg" / "core.py").write_text("def core():\n    return 1\n")
    (tree / "pkg" / "util.py").write_text("def util():\n    return 2\n")
    (tree / "README.md").write_text("# Project\n\nWhat it does.\n")


def _virtualenv(where: Path) -> None:
    (where / "bin").mkdir(parents=True)
    (where / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (where / "bin" / "python").symlink_to(sys.executable)  # resolves outside the tree
    site = where / "lib" / "python3.11" / "site-packages" / "big"
    site.mkdir(parents=True)
    for i in range(50):
        (site / f"m{i}.py").write_text(f"def f{i}():\n    return {i}\n")


def _clutter(tree: Path) -> None:
    _virtualenv(tree / ".venv")
    _virtualenv(tree / ".venv-test")
    _virtualenv(tree / "env")  # not in .gitignore: found by its pyvenv.cfg
    modules = tree / "labextension" / "node_modules" / "left-pad"
    modules.mkdir(parents=True)
    (modules / "index.js").write_text("module.exports = () => 1;\n")
    (tree / "labextension" / "index.ts").write_text("export const x = 1;\n")
    for cache in ("__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache", "dist"):
        (tree / "pkg" / cache).mkdir()
        (tree / "pkg" / cache / "junk.py").write_text("junk = 1\n")
    (tree / "usr").symlink_to("/usr")


def test_a_checkout_with_virtualenvs_builds_the_same_blocks_as_a_clean_clone(
    tmp_path: Path,
) -> None:
    clean, cluttered = tmp_path / "clean", tmp_path / "cluttered"
    for tree in (clean, cluttered):
        tree.mkdir()
        _source(tree)
        (tree / "labextension").mkdir()
        (tree / "labextension" / "index.ts").write_text("export const x = 1;\n")
    _clutter(cluttered)
    plain = build_context("x", ["."], budget=8000, root=clean)
    busy = build_context("x", ["."], budget=8000, root=cluttered)
    assert [b.block for b in busy.blocks] == [b.block for b in plain.blocks]
    assert "file:pkg/core.py" in [b.block for b in busy.blocks]
    warnings = "\n".join(busy.warnings)
    assert "usr: a symlink leading outside the tree; skipped" in warnings
    skipped = next(w for w in busy.warnings if "never source" in w)
    for name in (".venv", ".venv-test", "env", "labextension/node_modules", "pkg/__pycache__"):
        assert name in skipped
    assert sum("never source" in w for w in busy.warnings) == 1  # listed once
    assert "git check-ignore" not in warnings


def test_confined_builds_skip_links_leaving_the_root_instead_of_failing(tmp_path: Path) -> None:
    _source(tmp_path)
    _clutter(tmp_path)
    (tmp_path / "pkg" / "passwd").symlink_to("/etc/passwd")
    result = build_context("x", ["."], budget=8000, root=tmp_path, confined=True)
    blocks = [b.block for b in result.blocks]
    assert "file:pkg/core.py" in blocks and "file:pkg/passwd" not in blocks
    assert any("pkg/passwd: a symlink leading outside the tree" in w for w in result.warnings)
    assert not any("/etc/passwd" in w for w in result.warnings)


def test_a_never_source_directory_named_explicitly_counts(tmp_path: Path) -> None:
    _source(tmp_path)
    _clutter(tmp_path)
    files, _ = collect_paths(["pkg/__pycache__", "pkg/dist/junk.py"], tmp_path)
    assert [p.relative_to(tmp_path).as_posix() for p in files] == [
        "pkg/__pycache__/junk.py",
        "pkg/dist/junk.py",
    ]
    files, warnings = collect_paths(["env"], tmp_path)  # a virtualenv, named
    assert len(files) == 50 + 1  # its modules and pyvenv.cfg; bin/python leaves the tree
    assert any("env/bin/python: a symlink leading outside the tree" in w for w in warnings)


def test_a_failing_git_is_a_warning_that_says_what_failed(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()  # not a repository: git check-ignore exits 128
    (tmp_path / "a.py").write_text("a = 1\n")
    files, warnings = collect_paths(["."], tmp_path)
    assert [p.name for p in files] == ["a.py"]
    assert any("git check-ignore" in w and "failed (exit 128" in w for w in warnings), warnings


def test_globs_are_checked_before_they_are_expanded(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("a = 1\n")
    for pattern in ("/etc/shado?", "../*", "~/*", "sub/../../*"):
        with pytest.raises(PathOutsideRoot) as caught:
            collect_paths([pattern], tmp_path, confined=True)
        assert "shadow" not in str(caught.value)


def test_symlink_loops_give_each_file_once(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("a = 1\n")
    (tmp_path / "loop").symlink_to(".")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.py").write_text("b = 1\n")
    (tmp_path / "sub" / "back").symlink_to("..")
    (tmp_path / "again.py").symlink_to("a.py")
    for patterns in (["."], ["**/*.py"], ["**/*.py", ".", "loop/a.py"]):
        files, _ = collect_paths(patterns, tmp_path, confined=True)
        names = sorted(os.path.relpath(p, tmp_path) for p in files)
        assert names == ["a.py", "sub/b.py"], patterns


def test_glob_semantics(tmp_path: Path) -> None:
    for name in ("src/a.py", "src/deep/b.py", "src/.hidden/c.py", "src/d.txt", "e.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x = 1\n")

    def rel(pattern: str) -> list[str]:
        files, _ = collect_paths([pattern], tmp_path)
        return sorted(os.path.relpath(p, tmp_path) for p in files)

    assert rel("src/*.py") == ["src/a.py"]
    assert rel("src/**/*.py") == ["src/a.py", "src/deep/b.py"]
    assert rel("**/*.py") == ["e.py", "src/a.py", "src/deep/b.py"]
    assert rel("src/.hidden/*.py") == ["src/.hidden/c.py"]
    assert rel("src/*") == ["src/a.py", "src/d.txt"]
    assert rel("?.py") == ["e.py"]


def test_expansion_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for i in range(30):
        (tmp_path / f"f{i}.py").write_text("x = 1\n")
    monkeypatch.setenv("CTX_LAB_MAX_COLLECT_FILES", "10")
    with pytest.raises(LimitExceeded, match="CTX_LAB_MAX_COLLECT_FILES"):
        collect_paths(["**/*.py"], tmp_path)
    with pytest.raises(LimitExceeded, match="CTX_LAB_MAX_COLLECT_FILES"):
        collect_paths(["."], tmp_path)


def test_what_gitignore_leaves_out_is_said_once_per_pattern(tmp_path: Path) -> None:
    """A folder inside another work tree's ignored folder (a library under ~/.pyenv/versions,
    which pyenv's checkout ignores) built from nothing without a word: the files left out are
    counted in one line, naming the work tree above the root whose .gitignore it is."""
    outer = tmp_path / "outer"
    subprocess.run(["git", "init", "-q", str(outer)], check=True)
    (outer / ".gitignore").write_text("/vendor/\n*.gen.py\n")
    library = outer / "vendor" / "lib"
    library.mkdir(parents=True)
    for i in range(5):
        (library / f"m{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    (outer / "pkg").mkdir()
    (outer / "pkg" / "a.py").write_text("def a():\n    return 1\n")
    (outer / "pkg" / "b.gen.py").write_text("def b():\n    return 2\n")

    inside = build_context("x", ["."], budget=8000, root=library)
    assert not [b for b in inside.blocks if b.block.startswith("file:")]
    said = [w for w in inside.warnings if "ignored by git" in w]
    assert said == [
        f".: 5 files ignored by git (.gitignore of the work tree {outer.resolve()}, above this "
        "folder), left out (m0.py, m1.py, m2.py and 2 more); name a file to include it"
    ]

    # confined (REST, MCP): the client is not shown the directories above its root
    _, confined = collect_paths(["."], library, confined=True)
    assert [w for w in confined if "ignored by git" in w] == [
        ".: 5 files ignored by git (.gitignore of a work tree above this folder), left out "
        "(m0.py, m1.py, m2.py and 2 more); name a file to include it"
    ]

    own = build_context("x", ["pkg"], budget=8000, root=outer)
    assert [b.block for b in own.blocks if b.block.startswith("file:")] == ["file:pkg/a.py"]
    assert [w for w in own.warnings if "ignored by git" in w] == [
        "pkg: 1 file ignored by git (.gitignore), left out (pkg/b.gen.py); name a file to "
        "include it"
    ]
    named = build_context("x", ["pkg/b.gen.py"], budget=8000, root=outer)
    assert [w for w in named.warnings if "ignored by git" in w] == [
        "pkg/b.gen.py: ignored by git (.gitignore), included because it was named"
    ]
