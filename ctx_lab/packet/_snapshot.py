"""What to send a worker that does not share this file system: the bytes :func:`load_context`
would read for a project, and the names of the files it would only count in a warning."""

from __future__ import annotations

import os
from pathlib import Path

from ..files import confine, entry_kind, read_bytes
from ..limits import LIMITS
from ..token_budget import CONFIG_FILES
from ._agents import agent_memory
from ._folder import KNOWN_FOLDERS, context_files, find_context_dir, label_of
from ._records import unread_names

__all__ = ["context_snapshot"]


def context_snapshot(
    path: str | os.PathLike[str], *, root: str | os.PathLike[str] | None = None
) -> dict[str, bytes]:
    """The bytes :func:`load_context` would read for ``path``, by path relative to the project
    (``.context/DECISIONS.md``, ``.ctxrc``): what to send a worker that does not share this
    file system. Reads are bounded and confined exactly as :func:`load_context`'s."""
    start = confine(root, path, what="dir") if root is not None else Path(path)
    context_dir = find_context_dir(start)
    project = context_dir.parent
    files = context_files(context_dir)[: LIMITS["context_files"].value()]
    snapshot: dict[str, bytes] = {}
    for file in files:
        if root is not None:
            confine(root, file, what=label_of(context_dir, file))
        snapshot[label_of(context_dir, file)] = read_bytes(file)
    for name in CONFIG_FILES:
        if entry_kind(project / name) == "file":
            if root is not None:
                confine(root, project / name, what=name)
            snapshot[name] = read_bytes(project / name)
    for label in unread_names(context_dir, KNOWN_FOLDERS):  # their names, for the warnings
        snapshot.setdefault(label, b"")
    beside = agent_memory(project)  # other agents' memory beside .context/: named in a warning
    if beside is not None and beside[0] == project:
        for _, file in beside[1]:
            snapshot.setdefault(file.relative_to(project).as_posix(), b"")
    return snapshot
