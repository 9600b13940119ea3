"""The record of a call: its bodies decoded for the file (incrementally, never past the limit)
and the thread that commits finished calls in batches."""

from __future__ import annotations

import queue
import sqlite3
import sys
import threading
import time
import zlib
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from ..anatomy import CaptureStore

__all__ = ["Recorder"]


class _Decoder:
    """The record's copy of a body: decoded incrementally (gzip, deflate, brotli) and never
    more than ``limit`` bytes — a small compressed answer that inflates to gigabytes stops at
    the limit, and is flagged cut."""

    def __init__(self, encoding: str, limit: int) -> None:
        self.limit = limit
        self.kept = bytearray()
        self.cut = False
        self.failed = False
        self.raw = 0
        self._z: Any = None
        self._br: Any = None
        if encoding in ("gzip", "x-gzip"):
            self._z = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            self._z = zlib.decompressobj()
        elif encoding == "br":
            try:
                import brotli  # type: ignore[import-untyped,unused-ignore]

                self._br = brotli.Decompressor()
            except ImportError:  # kept as it came
                self.failed = True
        self.encoded = self._z is not None or self._br is not None

    def feed(self, chunk: bytes) -> None:
        self.raw += len(chunk)
        room = self.limit - len(self.kept)
        if self.cut or room <= 0:
            self.cut = self.cut or bool(chunk)
            return
        if not self.encoded:
            self.kept += chunk[:room]
            self.cut = len(chunk) > room
            return
        try:
            if self._z is not None:
                self.kept += self._z.decompress(chunk, room)
                self.cut = bool(self._z.unconsumed_tail)
            else:
                self.kept += self._br.process(chunk, output_buffer_limit=room)
                if len(self.kept) >= self.limit:  # the limit may be passed by one buffer
                    del self.kept[self.limit :]
                    self.cut = not self._br.is_finished()
        except Exception:  # a body that does not decode is kept as the bytes that came
            self.encoded, self.failed = False, True
            self.kept = self.kept[:0]
            self.cut = True

    def body(self) -> tuple[bytearray, int, bool]:
        """The kept bytes (not copied), the size they stand for, and whether they were cut."""
        if self.encoded and not self.cut:
            return self.kept, len(self.kept), False
        return self.kept, self.raw, self.cut or len(self.kept) < self.raw


class Recorder:
    """Commits finished calls from a thread of its own, batching the rows of calls that end
    together into one transaction; a full disk is said once a minute, never raised."""

    def __init__(self, store: CaptureStore, warn: Callable[[str], None] | None = None) -> None:
        self.store = store
        self.warn = warn or (lambda text: print(text, file=sys.stderr, flush=True))
        self.lost = 0
        self._said = -1e9
        self._queue: queue.SimpleQueue[tuple[dict[str, Any], Future[bool]] | None] = (
            queue.SimpleQueue()
        )
        self._thread = threading.Thread(target=self._run, name="ctx-lab-recorder", daemon=True)
        self._thread.start()

    def submit(self, row: dict[str, Any]) -> Future[bool]:
        """Queue a row; the future is True once committed, False when it could not be."""
        done: Future[bool] = Future()
        self._queue.put((row, done))
        return done

    def close(self) -> None:
        """Commit what is queued, then stop."""
        self._queue.put(None)
        self._thread.join(60)

    def _run(self) -> None:
        while True:
            first = self._queue.get()
            if first is None:
                return
            batch = [first]
            while len(batch) < 256:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    self._commit(batch)
                    return
                batch.append(more)
            self._commit(batch)

    def _commit(self, batch: list[tuple[dict[str, Any], Future[bool]]]) -> None:
        try:
            self.store.record_many([row for row, _ in batch])
            ok = True
        except (sqlite3.Error, OSError) as exc:
            ok = False
            self.lost += len(batch)
            self._say(exc)
        for _, done in batch:
            done.set_result(ok)

    def _say(self, exc: BaseException) -> None:
        now = time.monotonic()
        if now - self._said < 60:
            return
        self._said = now
        full = getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL or (
            "disk is full" in str(exc) or "No space left" in str(exc)
        )
        reason = "disk full" if full else f"{type(exc).__name__}: {exc}"
        self.warn(
            f"ctx-lab capture: not recorded: {reason}, {self.lost} call(s) lost so far "
            "(forwarding goes on)"
        )
