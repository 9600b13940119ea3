"""Writing files so that readers see the old content or the new one, never half of it."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from .errors import CtxLabError

__all__ = ["write_atomic"]


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> Path:
    """Write ``data`` to ``path`` atomically: a unique temporary file in the same directory,
    fsync, rename over the target, fsync the directory. Nothing partial is left behind."""
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        raise CtxLabError(f"cannot write {target}: directory {directory} does not exist")
    payload = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        if isinstance(exc, OSError):
            raise CtxLabError(f"cannot write {target}: {exc.strerror or exc}") from exc
        raise
    dir_fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    except OSError:
        pass  # some file systems cannot fsync a directory; the rename is still atomic
    finally:
        os.close(dir_fd)
    return target
