"""Collecting files for the builder from paths, directories and glob patterns, respecting
``.gitignore`` when inside a git work tree."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
from collections.abc import Iterable
from pathlib import Path

from ..files import confine, display_path, real_path

__all__ = ["collect_paths", "display_path"]


_SKIP_DIRS = {".git", ".hg", ".svn"}


def _expand(pattern: str, base: Path, warnings: list[str], confined: bool) -> list[Path]:
    def inside(found: list[Path]) -> list[Path]:
        if confined:
            for path in found:
                confine(base, path, what=pattern)
        return found

    if any(ch in pattern for ch in "*?["):
        found = sorted(
            Path(p)
            for p in glob.glob(
                str(base / pattern) if not os.path.isabs(pattern) else pattern, recursive=True
            )
        )
        files = inside([p for p in found if p.is_file()])
        if not files:
            warnings.append(f"{pattern}: no files match")
        return files
    path = Path(pattern) if os.path.isabs(pattern) else base / pattern
    if confined:
        confine(base, path, what=pattern)
    if path.is_dir():
        return inside(
            sorted(
                p
                for p in path.rglob("*")
                if p.is_file() and not (_SKIP_DIRS & set(p.relative_to(path).parts))
            )
        )
    if path.is_file():
        return [path]
    warnings.append(f"{pattern}: no such file or directory; skipped")
    return []


def _work_tree(directory: Path, known: dict[Path, Path | None]) -> Path | None:
    """The git work tree holding ``directory`` (a parent with ``.git``), found on the file
    system and remembered per directory: one ``git`` call per repository, not per file."""
    walked: list[Path] = []
    current: Path | None = real_path(directory)
    found: Path | None = None
    while current is not None:
        if current in known:
            found = known[current]
            break
        walked.append(current)
        if (current / ".git").exists():
            found = current
            break
        current = current.parent if current.parent != current else None
    for path in walked:
        known[path] = found
    return found


def _git_ignored(paths: list[Path]) -> set[Path]:
    git = shutil.which("git")
    if git is None or not paths:
        return set()
    ignored: set[Path] = set()
    by_repo: dict[str, list[Path]] = {}
    tops: dict[Path, Path | None] = {}
    for p in paths:
        top = _work_tree(p.parent, tops)
        if top is not None:
            by_repo.setdefault(str(top), []).append(p)
    for repo, members in by_repo.items():
        listing = "\0".join(str(real_path(p)) for p in members) + "\0"
        done = subprocess.run(
            [git, "check-ignore", "--stdin", "-z"],
            cwd=repo,
            input=listing,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        ignored |= {real_path(name) for name in done.stdout.split("\0") if name}
    return ignored


def collect_paths(
    patterns: Iterable[str], base: str | os.PathLike[str] = ".", *, confined: bool = False
) -> tuple[list[Path], list[str]]:
    """Files named by ``patterns`` (paths, directories, globs), de-duplicated in order. Files
    found by expanding a directory or glob honour ``.gitignore`` (one ``git check-ignore`` per
    repository); a file named on its own is included even when ignored, with a warning. Warnings
    also name patterns that matched nothing. With ``confined`` every
    file, after expansion and symlink resolution, must lie inside ``base``
    (:class:`~ctx_lab.errors.PathOutsideRoot`)."""
    root = Path(base)
    warnings: list[str] = []
    seen: dict[Path, None] = {}
    named: set[Path] = set()  # files named one by one: included even when ignored
    for pattern in patterns:
        expanded = _expand(pattern, root, warnings, confined)
        single = not any(ch in pattern for ch in "*?[") and len(expanded) == 1
        for path in expanded:
            if _SKIP_DIRS & set(path.parts):
                continue
            seen.setdefault(path, None)
            if single and path.is_file() and not (root / pattern).is_dir():
                named.add(path)
    candidates = list(seen)
    ignored = _git_ignored(candidates)
    kept = []
    for p in candidates:
        if real_path(p) not in ignored:
            kept.append(p)
        elif p in named:
            kept.append(p)
            warnings.append(
                f"{display_path(p, root)}: ignored by git (.gitignore), included because it "
                "was named"
            )
    return kept, warnings
