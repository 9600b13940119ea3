"""The one file-access layer: every engine, store, route and command reads files through it.

* :func:`confine` — a path that must stay inside a root (symlinks resolved; ``..``, absolute
  paths, symlinks out, NUL bytes and non-regular files such as FIFOs refused);
* :func:`is_binary` — one content-sniffing rule for binary data;
* :func:`read_bytes` / :func:`read_text` — bounded reads with a clear error naming the limit;
* :func:`decode_text` / :func:`normalize_newlines` — one way to turn bytes into text;
* :func:`write_atomic` — readers see the old content or the new one, never half of it.

The size limit is :data:`DEFAULT_MAX_FILE_BYTES` unless ``CTX_LAB_MAX_FILE_BYTES`` raises it.

Why one module over ~400 lines: it is the one home of every file mechanism (ARCHITECTURE.md's
table points here); the checks share their helpers (confinement, special-file refusal, bounds),
and an architecture test finds any second copy elsewhere.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, NamedTuple

from .errors import CtxLabError, FileTooLarge, InputFileError, PathOutsideRoot
from .limits import LIMITS

__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "MAX_FILE_BYTES_ENV",
    "SNIFF_BYTES",
    "FileIdentity",
    "RealPaths",
    "check_path_text",
    "confine",
    "create_exclusive",
    "decode_text",
    "display_path",
    "entry_kind",
    "hide_root",
    "identity",
    "is_binary",
    "locked",
    "max_file_bytes",
    "normalize_newlines",
    "read_bytes",
    "read_text",
    "real_path",
    "resolve_root",
    "user_cache_dir",
    "write_atomic",
    "write_output",
]

DEFAULT_MAX_FILE_BYTES = LIMITS["file"].default
MAX_FILE_BYTES_ENV = LIMITS["file"].env
SNIFF_BYTES = 64 * 1024

Pathish = str | os.PathLike[str]


def max_file_bytes() -> int:
    """The size limit for reading one file: ``CTX_LAB_MAX_FILE_BYTES`` or 32 MiB."""
    return LIMITS["file"].value()


# -- confinement ---------------------------------------------------------------------------------


def resolve_root(root: Pathish) -> Path:
    """``root`` as an absolute directory with every symlink resolved (``~`` expanded)."""
    resolved = real_path(Path(root).expanduser())
    if not resolved.is_dir():
        raise InputFileError(f"{root}: not a directory")
    return resolved


def real_path(path: Pathish) -> Path:
    """``path`` made absolute with every symlink resolved (it need not exist);
    :class:`InputFileError` for names the system refuses (too long, symlink loops)."""
    try:
        return Path(path).resolve()
    except (
        OSError,
        RuntimeError,
    ) as exc:  # ENAMETOOLONG, ELOOP; 3.11 reports loops as RuntimeError
        reason = getattr(exc, "strerror", None) or str(exc)
        raise InputFileError(f"{os.fspath(path)[:200]}: {reason}") from None


class FileIdentity(NamedTuple):
    """What tells one version of a file from another: its path, device and inode, size and
    modification time (ns). Caches key by it; signatures list it."""

    path: str
    device: int
    inode: int
    size: int
    mtime_ns: int

    def token(self) -> str:
        """``size:mtime_ns`` — the part that changes when the file's content does."""
        return f"{self.size}:{self.mtime_ns}"


def identity(path: Pathish, info: os.stat_result | None = None) -> FileIdentity:
    """The :class:`FileIdentity` of ``path`` (from ``info`` when it was stat'ed already);
    raises :class:`OSError` as ``os.stat`` does."""
    info = info if info is not None else os.stat(path)
    return FileIdentity(os.fspath(path), info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


def entry_kind(path: Pathish) -> str:
    """``file``, ``dir``, ``other`` (FIFO, socket, device) or ``missing`` — never raising, for
    names the system refuses (too long, loops) too."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return "missing"
    if stat.S_ISREG(mode):
        return "file"
    return "dir" if stat.S_ISDIR(mode) else "other"


def display_path(path: Pathish, base: Pathish) -> str:
    """``path`` relative to ``base`` when it is below it (after resolving both), in POSIX form;
    otherwise ``path`` as given."""
    return _shown(real_path(path), real_path(base), path)


def _shown(real: Path, real_base: Path, path: Pathish) -> str:
    try:
        return real.relative_to(real_base).as_posix()
    except ValueError:
        return Path(path).as_posix()


class RealPaths:
    """:func:`real_path` for many files in few directories, each directory resolved once: a
    file's real path is its directory's real path and its name, unless the file is itself a
    symlink. For one walk or build — what it remembers goes stale when the tree changes."""

    def __init__(self) -> None:
        self._directories: dict[str, Path] = {}

    def directory(self, path: Pathish) -> Path:
        """The real path of the directory ``path``, resolved the first time it is asked for."""
        key = os.fspath(path)
        found = self._directories.get(key)
        if found is None:
            found = self._directories[key] = real_path(key)
        return found

    def __call__(self, path: Pathish) -> Path:
        """The real path of ``path`` (as :func:`real_path`)."""
        given = Path(path)
        if given.name in ("", ".", "..") or os.path.islink(given):
            return real_path(given)
        return self.directory(given.parent) / given.name

    def display(self, path: Pathish, base: Pathish) -> str:
        """:func:`display_path` with both paths resolved through this memo."""
        return _shown(self(path), self.directory(base), path)


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def check_path_text(text: str, *, what: str = "path") -> str:
    """``text`` when the system can take it as a path; :class:`PathOutsideRoot` for a NUL byte."""
    if "\x00" in text:
        raise PathOutsideRoot(f"{what}: {text!r} is not a valid path (NUL byte)")
    return text


def confine(root: Pathish, path: Pathish, *, what: str = "path") -> Path:
    """``path`` (relative to ``root``, or absolute) resolved, which must lie inside ``root``.

    Refused with :class:`PathOutsideRoot`: a NUL byte, anything that resolves outside the root
    — through ``..``, an absolute path or a symlink anywhere on the way — and existing entries
    that are neither regular files nor directories (FIFOs, sockets, devices), which would block
    or never end when read. A path that does not exist is returned resolved, so the caller says
    "not found" in its own words. ``what`` names the parameter in the message.
    """
    base = resolve_root(root)
    text = check_path_text(os.fspath(path), what=what)
    if text.startswith("~"):
        raise PathOutsideRoot(f"{what}: {text!r}: '~' is not expanded; use a path under {base}")
    candidate = Path(text)
    resolved = real_path(candidate if candidate.is_absolute() else base / candidate)
    if not _inside(resolved, base):
        raise PathOutsideRoot(f"{what}: {text!r} leads outside {base}")
    try:
        mode = resolved.stat().st_mode
    except OSError:
        return resolved
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise PathOutsideRoot(f"{what}: {text!r} is not a regular file or directory")
    return resolved


def _open_regular(path: Pathish) -> BinaryIO:
    """Open for reading without blocking on a FIFO; refuse anything but a regular file."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(21, "Is a directory")
        if not stat.S_ISREG(mode):
            raise InputFileError(f"{os.fspath(path)}: not a regular file")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


# -- binary detection ----------------------------------------------------------------------------

_SIGNATURES = (
    b"%PDF-",  # PDF and PDF-based formats (.ai)
    b"\x89PNG\r\n\x1a\n",
    b"\xff\xd8\xff",  # JPEG
    b"GIF87a",
    b"GIF89a",
    b"PK\x03\x04",  # zip, jar, docx, xlsx, wheel
    b"\x1f\x8b",  # gzip
    b"BZh",
    b"\xfd7zXZ\x00",
    b"\x28\xb5\x2f\xfd",  # zstd
    b"7z\xbc\xaf\x27\x1c",
    b"\x7fELF",
    b"\xcf\xfa\xed\xfe",  # Mach-O
    b"\xca\xfe\xba\xbe",  # Mach-O fat / Java class
    b"SQLite format 3\x00",
    b"\x00asm",  # WebAssembly
    b"RIFF",  # wav, avi, webp
    b"OggS",
    b"ID3",  # mp3
    b"wOFF",
    b"wOF2",
)
_TEXT_BOMS = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
_CONTROL = bytes(sorted(set(range(0x00, 0x09)) | set(range(0x0E, 0x1B)) | {0x1C, 0x1D, 0x1F, 0x7F}))
_HIGH = bytes(range(0x80, 0x100))


def _sniff(sample: bytes) -> bool:
    if not sample:
        return False
    if sample.startswith(_TEXT_BOMS):
        return False
    if sample.startswith(_SIGNATURES):
        return True
    if b"\x00" in sample:
        return True
    controls = len(sample) - len(sample.translate(None, _CONTROL))
    if controls * 10 > len(sample):
        return True
    try:
        sample.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start >= len(sample) - 3 and exc.reason == "unexpected end of data":
            return False  # the sample cut a character in two
        high = len(sample) - len(sample.translate(None, _HIGH))
        return high * 10 > len(sample) * 3
    return False


def is_binary(source: bytes | Pathish) -> bool:
    """True when ``source`` (bytes, or a file's path) holds binary data, not text.

    One rule everywhere, on the first :data:`SNIFF_BYTES` bytes: a known binary signature (PDF,
    images, archives, executables, SQLite …), a NUL byte, more than 10 % control characters,
    or invalid UTF-8 with more than 30 % high bytes. A UTF-16/32 byte-order mark means text.
    Given the bytes themselves (a file already read), a NUL byte anywhere in them counts too:
    text has none, and formats that start like text (PostScript-based ``.ai``, some
    archives) put their binary parts further in.
    """
    if isinstance(source, bytes | bytearray | memoryview):
        data = bytes(source)
        if _sniff(data[:SNIFF_BYTES]):
            return True
        return not data.startswith(_TEXT_BOMS) and data.find(b"\x00", SNIFF_BYTES) != -1
    try:
        with _open_regular(source) as handle:
            return _sniff(handle.read(SNIFF_BYTES))
    except OSError as exc:
        raise InputFileError(f"{os.fspath(source)}: cannot read ({exc.strerror})") from None


# -- reading -------------------------------------------------------------------------------------


def decode_text(data: bytes, label: str, warnings: list[str]) -> str:
    """Decode UTF-8 (a BOM is dropped; UTF-16/32 with a BOM too); on bad bytes decode with
    replacement and warn naming ``label`` and the line."""
    for bom, codec in ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32")):
        if data.startswith(bom):
            return data.decode(codec, errors="replace")
    for bom in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        if data.startswith(bom):
            return data.decode("utf-16", errors="replace")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        warnings.append(
            f"{label}: undecodable bytes at line {line} (byte {exc.start}); "
            "read after replacing them with U+FFFD"
        )
        return data.decode("utf-8-sig", errors="replace")


def normalize_newlines(text: str) -> str:
    """CRLF and lone CR become LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _read_capped(handle: BinaryIO, cap: int) -> bytes:
    """At most ``cap + 1`` bytes (one more tells a file over the cap): as many as the file
    holds asked for at once — never a buffer the size of the cap — then, if it grew or has no
    size (a pipe, /proc), the rest a chunk at a time."""
    try:
        size = os.fstat(handle.fileno()).st_size
    except (OSError, AttributeError, ValueError):
        size = 0
    want = min(size, cap) + 1
    first = handle.read(want)
    if len(first) < want:
        return bytes(first)
    parts, got = [first], len(first)
    while got <= cap:
        chunk = handle.read(min(1 << 20, cap + 1 - got))
        if not chunk:
            break
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts)


def read_bytes(path: Pathish, *, limit: int | None = None, kind: str = "file") -> bytes:
    """The bytes of ``path``, at most ``limit`` (default: the ``kind`` limit of
    :mod:`ctx_lab.limits`, e.g. ``file`` or ``page``).

    :class:`InputFileError` naming the file when it is missing, a directory, not a regular file
    or unreadable; :class:`FileTooLarge` naming the limit and how to raise it.
    """
    rule = LIMITS[kind]
    cap = rule.value() if limit is None else limit
    name = os.fspath(path)
    try:
        with _open_regular(path) as handle:
            data = _read_capped(handle, cap)
    except FileNotFoundError:
        raise InputFileError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise InputFileError(f"{name}: is a directory; pass files") from None
    except OSError as exc:
        raise InputFileError(f"{name}: cannot read ({exc.strerror})") from None
    if len(data) > cap:
        raise FileTooLarge(
            f"{name} is larger than {rule.describe(cap)}; raise it with {rule.env}=<bytes>"
        )
    return data


def read_text(
    path: Pathish,
    warnings: list[str] | None = None,
    *,
    label: str | None = None,
    limit: int | None = None,
    kind: str = "file",
) -> str:
    """Read a text file with :func:`decode_text` under the size limit of :func:`read_bytes`."""
    return decode_text(
        read_bytes(path, limit=limit, kind=kind),
        label or os.fspath(path),
        [] if warnings is None else warnings,
    )


# -- writing -------------------------------------------------------------------------------------


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's live process
    return True


def _sweep_leftovers(directory: Path, name: str) -> None:
    """Remove temporary files of earlier writes to ``name`` whose writer died (SIGKILL, power
    loss): their names carry the writer's process id."""
    prefix = f".{name}."
    try:
        candidates = [p for p in directory.iterdir() if p.name.startswith(prefix)]
    except OSError:
        return
    for leftover in candidates:
        parts = leftover.name[len(prefix) :].split(".")
        if len(parts) != 3 or parts[2] != "tmp" or not parts[0].isdigit():
            continue
        pid = int(parts[0])
        if pid != os.getpid() and not _alive(pid):
            with contextlib.suppress(OSError):
                leftover.unlink()


def _durable_temp(directory: Path, name: str, payload: bytes, mode: int | None) -> str:
    import tempfile  # 5 ms of start for every command, though only writes need it

    _sweep_leftovers(directory, name)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{name}.{os.getpid()}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            if mode is not None:
                os.fchmod(handle.fileno(), mode)
            os.fsync(handle.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise
    return tmp_name


def _fsync_directory(directory: Path) -> None:
    dir_fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    except OSError:
        pass  # some file systems cannot fsync a directory; the rename is still atomic
    finally:
        os.close(dir_fd)


def create_exclusive(path: Pathish, data: str | bytes, *, mode: int = 0o600) -> bool:
    """Create ``path`` with ``data`` only if it does not exist, atomically: the file appears
    complete or not at all (written and synced first, then linked into place). False when it
    existed already."""
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    payload = data.encode("utf-8") if isinstance(data, str) else data
    tmp_name = _durable_temp(directory, target.name, payload, mode)
    try:
        os.link(tmp_name, target)
    except FileExistsError:
        return False
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
    _fsync_directory(directory)
    return True


def write_atomic(path: Pathish, data: str | bytes, *, mode: int | None = None) -> Path:
    """Write ``data`` to ``path`` atomically: a unique temporary file in the same directory,
    fsync, rename over the target, fsync the directory. Readers see the old content or the new
    one; temporary files of writers that were killed are swept away by the next write.
    ``mode`` sets the file's permissions (default: the temporary file's, 0600)."""
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        raise CtxLabError(f"cannot write {target}: directory {directory} does not exist")
    payload = data.encode("utf-8") if isinstance(data, str) else data
    try:
        tmp_name = _durable_temp(directory, target.name, payload, mode)
        try:
            os.replace(tmp_name, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp_name)
            raise
    except OSError as exc:
        raise CtxLabError(f"cannot write {target}: {exc.strerror or exc}") from exc
    _fsync_directory(directory)
    return target


def user_cache_dir() -> Path:
    """ctx-lab's folder in the user cache directory: ``$XDG_CACHE_HOME/ctx-lab``, else
    ``~/.cache/ctx-lab`` (not created here)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ctx-lab"


def _umask_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def write_output(path: Pathish, data: str | bytes) -> Path:
    """Write a user-named output (``-o FILE``) without ever replacing what is not a file.

    A new file, or an existing regular file, is written atomically (:func:`write_atomic`); a
    new file gets the umask's permissions, an existing one keeps its own. A symbolic link is
    written through: its final target gets the same treatment (the link stays). A character
    device (``/dev/null``, a terminal) or a FIFO with a reader is written in place; a FIFO
    nobody reads, a directory, a block device or a socket is refused."""
    target = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    resolved = Path(os.path.realpath(target)) if target.is_symlink() else target
    try:
        info = os.stat(resolved)
    except FileNotFoundError:
        return write_atomic(resolved, payload, mode=_umask_mode())
    except OSError as exc:
        raise CtxLabError(f"cannot write {target}: {exc.strerror or exc}") from exc
    kind = info.st_mode
    if stat.S_ISREG(kind):
        return write_atomic(resolved, payload, mode=stat.S_IMODE(kind))
    if stat.S_ISCHR(kind) or stat.S_ISFIFO(kind):
        flags = os.O_WRONLY | getattr(os, "O_NOCTTY", 0)
        if stat.S_ISFIFO(kind):
            flags |= os.O_NONBLOCK  # no reader: refuse at once rather than wait for one
        try:
            fd = os.open(resolved, flags)
        except OSError as exc:
            reason = "nothing reads the FIFO" if exc.errno == 6 else exc.strerror or str(exc)
            raise CtxLabError(f"cannot write {target}: {reason}") from exc
        try:
            os.set_blocking(fd, True)
            view = memoryview(payload)
            while view:
                view = view[os.write(fd, view) :]
        except OSError as exc:
            raise CtxLabError(f"cannot write {target}: {exc.strerror or exc}") from exc
        finally:
            os.close(fd)
        return target
    what = (
        "a directory"
        if stat.S_ISDIR(kind)
        else "a block device"
        if stat.S_ISBLK(kind)
        else "a socket"
        if stat.S_ISSOCK(kind)
        else "not a regular file"
    )
    raise CtxLabError(f"cannot write {target}: it is {what}; name a file")


def hide_root(text: str, root: Pathish | None) -> str:
    """``text`` with a server's root written relative to itself: ``<root>/x`` → ``x``, the
    root alone → ``.`` (whole path components only: ``<root>x`` is another path). What REST
    and MCP send never says where the server's files are."""
    if root is None or not str(root) or str(root) == "/":
        return text
    base = re.escape(str(root).rstrip("/"))
    text = re.sub(base + "/", "", text)
    return re.sub(base + r"(?![\w.\-])", ".", text)


@contextlib.contextmanager
def locked(path: Pathish) -> Iterator[None]:
    """An exclusive lock on ``path`` across processes (POSIX ``flock`` on ``<path>.lock``,
    never following a symlink there): for read-check-write cycles of shared state files."""
    target = Path(path)
    lock = target.with_name(target.name + ".lock")
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except OSError as exc:
        raise CtxLabError(f"cannot lock {target}: {exc.strerror or exc}") from exc
    try:
        try:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX)
        except ImportError:  # pragma: no cover - not POSIX: the atomic write still holds
            pass
        yield
    finally:
        os.close(fd)
