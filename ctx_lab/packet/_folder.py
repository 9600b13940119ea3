"""Which files a project's ``.context/`` holds for ctx's layout: the top-level files in their
read order, the theme folders and ``steering/`` — and how each is labelled."""

from __future__ import annotations

from pathlib import Path

from ..errors import ContextNotFound
from ..files import entry_kind

__all__ = [
    "KNOWN_FOLDERS",
    "READ_ORDER",
    "STEERING_FOLDER",
    "THEME_FOLDERS",
    "context_files",
    "find_context_dir",
    "label_of",
]

READ_ORDER = (
    "CONSTITUTION.md",
    "TASKS.md",
    "CONVENTIONS.md",
    "ARCHITECTURE.md",
    "DECISIONS.md",
    "LEARNINGS.md",
    "GLOSSARY.md",
    "AGENT_PLAYBOOK.md",
)
# top-level file → its theme folder (one theme per file, the same entry format)
THEME_FOLDERS = {
    "CONVENTIONS.md": "conventions",
    "DECISIONS.md": "decisions",
    "LEARNINGS.md": "learnings",
}
STEERING_FOLDER = "steering"


def find_context_dir(path: Path) -> Path:
    """``path`` itself when it is a ``.context/``, else its ``.context/`` (or ContextNotFound)."""
    kind = entry_kind(path)
    if kind == "missing":
        raise ContextNotFound(f"{path}: no such directory")
    if kind != "dir":
        raise ContextNotFound(f"{path}: not a directory")
    if path.name == ".context":
        return path
    candidate = path / ".context"
    if entry_kind(candidate) == "dir":
        return candidate
    raise ContextNotFound(
        f"{path} has no .context/ directory; pass the project directory or its .context/"
    )


def _listing(folder: Path) -> list[Path]:
    """The ``*.md`` files directly inside ``folder``, by name (none when it is no directory)."""
    if entry_kind(folder) != "dir":
        return []
    try:
        names = sorted(p for p in folder.iterdir() if p.suffix == ".md")
    except OSError:
        return []
    return [p for p in names if entry_kind(p) == "file"]


def context_files(context_dir: Path) -> list[Path]:
    """Every file :func:`~ctx_lab.packet.load_context` reads from ``context_dir``: the
    top-level files of :data:`READ_ORDER`, the other top-level ``*.md`` (another layout's own
    files), then each theme folder's and ``steering/``'s ``*.md`` by name."""
    files = [context_dir / name for name in READ_ORDER if entry_kind(context_dir / name) == "file"]
    files += [p for p in _listing(context_dir) if p.name not in READ_ORDER]
    for folder in (*THEME_FOLDERS.values(), STEERING_FOLDER):
        files.extend(_listing(context_dir / folder))
    return files


KNOWN_FOLDERS = {*THEME_FOLDERS.values(), STEERING_FOLDER, "archive", "templates"}


def label_of(context_dir: Path, file: Path) -> str:
    """``.context/…``: how warnings and packets name a file of ``context_dir``."""
    return ".context/" + file.relative_to(context_dir).as_posix()
