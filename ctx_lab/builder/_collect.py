"""Collecting files for the builder from paths, directories and glob patterns.

A directory or glob is expanded without following symlinked directories, skips directories that
are never source (virtual environments, ``node_modules``, caches, build output — unless named),
skips symlinks that leave the tree with a warning naming the link, stops at a bound on matches
and on time, and honours ``.gitignore`` inside a git work tree (a failing ``git`` is a warning
saying what failed, never silence).
"""

from __future__ import annotations

import fnmatch
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterable, Iterator
from functools import lru_cache
from pathlib import Path

from ..display import first_of
from ..errors import CtxLabError, LimitExceeded, PathOutsideRoot
from ..files import RealPaths, check_path_text, confine, display_path, entry_kind, real_path
from ..limits import LIMITS, limit

__all__ = ["NEVER_SOURCE_DIRS", "collect_paths", "display_path"]

#: Directories skipped when a directory or glob is expanded (named explicitly, they count).
#: A directory holding ``pyvenv.cfg`` (any virtual environment) is skipped too.
NEVER_SOURCE_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        "node_modules",
        "__pycache__",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        ".tox",
        "dist",
        "build",
        ".ipynb_checkpoints",
    }
)
_VCS_DIRS = frozenset({".git", ".hg", ".svn"})
_MAGIC = re.compile(r"[*?\[]")


def _never_source(directory: Path, name: str) -> bool:
    return name in NEVER_SOURCE_DIRS or os.path.isfile(os.path.join(directory, name, "pyvenv.cfg"))


@lru_cache(maxsize=256)
def _segment_regex(segment: str) -> re.Pattern[str]:
    return re.compile(fnmatch.translate(segment))


def _step(states: set[int], name: str, parts: tuple[str, ...]) -> set[int]:
    """Pattern positions reachable after matching one more path segment ``name``."""
    nxt: set[int] = set()
    for i in states:
        if i >= len(parts):
            continue
        part = parts[i]
        if part == "**":
            if not name.startswith("."):
                nxt.add(i)  # ** swallows this segment and may go on
            nxt |= _step({i + 1}, name, parts)
        elif (name.startswith(".") and not part.startswith(".")) and _MAGIC.search(part):
            continue  # wildcards do not match hidden names, as in glob
        elif _segment_regex(part).match(name):
            nxt.add(i + 1)
    return nxt


def _closure(states: set[int], parts: tuple[str, ...]) -> set[int]:
    """``states`` plus the positions after trailing ``**`` (which may match nothing)."""
    out = set(states)
    for i in sorted(states):
        j = i
        while j < len(parts) and parts[j] == "**":
            j += 1
            out.add(j)
    return out


class _Walk:
    """One expansion: its deadline, match cap, skipped directories and outside links."""

    def __init__(self, tree: Path, what: str, warnings: list[str]) -> None:
        self.tree = real_path(tree)
        self.what = what
        self.warnings = warnings
        self.cap = limit("collect_files")
        self.deadline = time.monotonic() + limit("collect_seconds")
        self.found = 0
        self.skipped: dict[str, None] = {}

    def tick(self) -> None:
        if time.monotonic() > self.deadline:
            raise LimitExceeded(
                f"{self.what}: expanding took longer than "
                f"{LIMITS['collect_seconds'].describe()}; name fewer or narrower paths"
            )

    def count(self) -> None:
        self.found += 1
        if self.found > self.cap:
            raise LimitExceeded(
                f"{self.what}: matches more files than {LIMITS['collect_files'].describe()}; "
                "name fewer or narrower paths"
            )

    def file_or_none(self, path: Path, label: str) -> Path | None:
        """``path`` when it is a regular file inside the tree; a link leaving it → warning."""
        if path.is_symlink():
            try:
                target = real_path(path)
            except CtxLabError:  # a loop or a name the system refuses
                self.warnings.append(f"{label}: a symlink that cannot be resolved; skipped")
                return None
            if not (target == self.tree or self.tree in target.parents):
                self.warnings.append(f"{label}: a symlink leading outside the tree; skipped")
                return None
        return path if entry_kind(path) == "file" else None

    def walk(
        self, start: Path, label: str, parts: tuple[str, ...] | None, named: set[str]
    ) -> Iterator[Path]:
        """Files below ``start`` (matching ``parts`` when a glob), in sorted order; ``label``
        names ``start`` in warnings."""
        states0 = _closure({0}, parts) if parts is not None else set()
        prefix = "" if label in ("", ".") else label.rstrip("/")
        stack: list[tuple[Path, str, set[int]]] = [(start, prefix, states0)]
        while stack:
            self.tick()
            directory, rel, states = stack.pop()
            try:
                with os.scandir(directory) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError:
                continue
            subdirs: list[tuple[Path, str, set[int]]] = []
            for entry in entries:
                self.tick()
                child_rel = f"{rel}/{entry.name}" if rel else entry.name
                path = Path(entry.path)
                nxt: set[int] = set()
                if parts is not None:
                    nxt = _closure(_step(states, entry.name, parts), parts)
                    if not nxt:
                        continue
                if entry.is_symlink():
                    if parts is not None and len(parts) not in nxt:
                        if entry.is_dir():
                            self.file_or_none(path, child_rel)  # warns when it leaves
                        continue
                    if entry.is_dir():
                        self.file_or_none(path, child_rel)  # never followed
                        continue
                    found = self.file_or_none(path, child_rel)
                    if found is not None:
                        self.count()
                        yield found
                    continue
                if entry.is_dir(follow_symlinks=False):
                    if parts is not None and all(i >= len(parts) for i in nxt):
                        continue  # the pattern ends here: nothing below can match
                    if entry.name not in named and _never_source(directory, entry.name):
                        if entry.name not in _VCS_DIRS:  # never worth a word
                            self.skipped.setdefault(child_rel, None)
                        continue
                    subdirs.append((path, child_rel, nxt))
                elif entry.is_file(follow_symlinks=False) and (parts is None or len(parts) in nxt):
                    self.count()
                    yield path
            # depth first, in name order
            stack.extend(reversed(subdirs))

    def report(self) -> None:
        if self.skipped:
            names = list(self.skipped)
            shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
            self.warnings.append(
                f"{self.what}: skipped {len(names)} director{'y' if len(names) == 1 else 'ies'} "
                f"that are never source ({shown}); name one to include it"
            )


def _refuse_outside_pattern(pattern: str) -> None:
    if pattern.startswith("~") or os.path.isabs(pattern) or ".." in Path(pattern).parts:
        raise PathOutsideRoot(f"{pattern!r}: absolute, '..' and '~' patterns are not allowed here")


def _expand(pattern: str, base: Path, warnings: list[str], confined: bool) -> list[Path]:
    check_path_text(pattern, what="path")
    magic = bool(_MAGIC.search(pattern))
    if magic:
        if confined:
            _refuse_outside_pattern(pattern)
        anchor = Path(pattern).anchor
        parts = Path(pattern).parts[1:] if anchor else Path(pattern).parts
        literal: list[str] = []
        for part in parts:
            if _MAGIC.search(part):
                break
            literal.append(part)
        start = Path(anchor) if anchor else base
        start = start.joinpath(*literal)
        rest = tuple(parts[len(literal) :])
        tree = base if confined else start
        walk = _Walk(tree, pattern, warnings)
        if confined and not (
            real_path(start) == walk.tree or walk.tree in real_path(start).parents
        ):
            raise PathOutsideRoot(f"{pattern!r} leads outside the root")
        named = {p for p in rest if not _MAGIC.search(p) and p != "**"} | set(literal)
        label = Path(anchor).joinpath(*literal).as_posix() if anchor else "/".join(literal)
        files = list(walk.walk(start, label, rest, named)) if start.is_dir() else []
        walk.report()
        if not files:
            warnings.append(f"{pattern}: no files match")
        return files
    path = Path(pattern) if os.path.isabs(pattern) else base / pattern
    if confined:
        confine(base, path, what=pattern)
    if path.is_dir():
        walk = _Walk(base if confined else path, pattern, warnings)
        files = list(walk.walk(path, Path(pattern).as_posix(), None, set(Path(pattern).parts)))
        walk.report()
        return files
    if path.is_file():
        return [path]
    warnings.append(f"{pattern}: no such file or directory; skipped")
    return []


def _work_tree(directory: Path, known: dict[Path, Path | None], paths: RealPaths) -> Path | None:
    """The git work tree holding ``directory`` (a parent with ``.git``), found on the file
    system and remembered per directory: one ``git`` call per repository, not per file."""
    walked: list[Path] = []
    current: Path | None = paths.directory(directory)
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


def _in_repo(path: Path, top: Path, paths: RealPaths) -> str | None:
    """``path`` relative to the work tree ``top`` as git names it (its directory resolved, the
    file itself not: a symlink is ignored or not by its own name)."""
    try:
        return (paths.directory(path.parent) / path.name).relative_to(top).as_posix()
    except ValueError:
        return None


def _git_ignored(files: list[Path], warnings: list[str], paths: RealPaths) -> dict[Path, Path]:
    """Which of ``files`` git ignores, each with the work tree whose ``.gitignore`` says so."""
    git = shutil.which("git")
    if git is None or not files:
        return {}
    by_repo: dict[Path, dict[str, Path]] = {}
    tops: dict[Path, Path | None] = {}
    for p in files:
        top = _work_tree(p.parent, tops, paths)
        if top is None:
            continue
        name = _in_repo(p, top, paths)
        if name is not None:
            by_repo.setdefault(top, {})[name] = p
    ignored: dict[Path, Path] = {}
    for repo, members in by_repo.items():
        listing = "\0".join(members) + "\0"
        try:
            done = subprocess.run(
                [git, "check-ignore", "--stdin", "-z"],
                cwd=repo,
                input=listing,
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            warnings.append(
                f"git check-ignore in {repo.name}/ failed ({exc}); .gitignore not applied"
            )
            continue
        if done.returncode not in (0, 1):  # 1: nothing ignored
            reason = (done.stderr.strip().splitlines() or ["no message"])[0][:300]
            warnings.append(
                f"git check-ignore in {repo.name}/ failed (exit {done.returncode}: {reason}); "
                ".gitignore not applied"
            )
            continue
        ignored.update((members[name], repo) for name in done.stdout.split("\0") if name in members)
    return ignored


def collect_paths(
    patterns: Iterable[str],
    base: str | os.PathLike[str] = ".",
    *,
    confined: bool = False,
    paths: RealPaths | None = None,
) -> tuple[list[Path], list[str]]:
    """Files named by ``patterns`` (paths, directories, globs), de-duplicated in order (a file
    reached through several links counts once). Files found by expanding a directory or glob
    honour ``.gitignore`` (one ``git check-ignore`` per repository) and skip
    :data:`NEVER_SOURCE_DIRS`; a file named on its own is included even when ignored, with a
    warning. Warnings also name patterns that matched nothing, skipped directories and links
    leaving the tree. With ``confined`` every named path must lie inside ``base``
    (:class:`~ctx_lab.errors.PathOutsideRoot`), and glob patterns may not be absolute or use
    ``..`` or ``~``. Expansions are bounded (:class:`~ctx_lab.errors.LimitExceeded`).
    ``paths``: the resolver to use (the caller's, to resolve the same directories once)."""
    root = Path(base)
    paths = RealPaths() if paths is None else paths
    warnings: list[str] = []
    seen: dict[Path, Path] = {}  # real path → path as found
    named: set[Path] = set()  # files named one by one: included even when ignored
    found_by: dict[Path, str] = {}  # path as found → the pattern that found it first
    for pattern in patterns:
        expanded = _expand(pattern, root, warnings, confined)
        single = not _MAGIC.search(pattern) and len(expanded) == 1
        for path in expanded:
            real = paths(path)
            if real in seen:
                continue
            seen[real] = path
            found_by[path] = pattern
            if single and not (root / pattern).is_dir():
                named.add(path)
    candidates = list(seen.values())
    ignored = _git_ignored(candidates, warnings, paths)
    kept = []
    left_out: dict[tuple[str, Path], list[str]] = {}  # (pattern, work tree) → ignored files
    for p in candidates:
        if p not in ignored:
            kept.append(p)
        elif p in named:
            kept.append(p)
            warnings.append(
                f"{paths.display(p, root)}: ignored by git (.gitignore), included because it "
                "was named"
            )
        else:
            left_out.setdefault((found_by[p], ignored[p]), []).append(paths.display(p, root))
    real_root = paths.directory(root)
    warnings += [
        _ignored_warning(pattern, files, top in real_root.parents, None if confined else top)
        for (pattern, top), files in left_out.items()
    ]
    return kept, warnings


def _ignored_warning(pattern: str, files: list[str], above: bool, top: Path | None) -> str:
    """One line for the files of a directory or glob that ``.gitignore`` leaves out (a folder
    inside another project's ignored folder would otherwise build from nothing, without a
    word). ``above``: the ignoring work tree lies above the root — named (``top``) unless the
    build is confined to its root, whose parents a client is not shown."""
    count = "1 file" if len(files) == 1 else f"{len(files):,} files"
    where = ""
    if above:
        where = f" of the work tree {top}, above" if top is not None else " of a work tree above"
        where += " this folder"
    return (
        f"{pattern}: {count} ignored by git (.gitignore{where}), left out "
        f"({first_of(files)}); name a file to include it"
    )
