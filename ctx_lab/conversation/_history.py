"""The append-only conversation history: entries (messages with token counts) and summaries
that replace contiguous ranges of them. Nothing is ever deleted.

Why one module over ~400 lines: the history's invariants (ids, summary ranges, runs, checkpoints,
validation of a saved file) are checked in one place, next to the code that could break them.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, MutableSequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, overload

from ..errors import CtxLabError, HistoryCorrupted
from ..validate import whole_number
from ._messages import Message

__all__ = [
    "FORMAT_VERSION",
    "MAX_TOKEN_COUNT",
    "Entries",
    "FullHistory",
    "HistoryEntry",
    "Summary",
    "format_time",
    "parse_time",
]

FORMAT_VERSION = 1
#: The largest token count a message may have: more than any message holds, and small enough
#: that the history's 64-bit columns and running totals never overflow
MAX_TOKEN_COUNT = 10**12


def format_time(moment: datetime) -> str:
    """RFC 3339 in UTC with a ``Z``."""
    aware = moment if moment.tzinfo else moment.astimezone()
    return aware.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def parse_time(text: str) -> datetime:
    """Inverse of :func:`format_time`; only an aware ISO 8601 time in a sane range."""
    if not isinstance(text, str):
        raise TypeError(f"a time must be an ISO 8601 string, got {type(text).__name__}")
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        raise ValueError(f"{text!r} has no time zone")
    moment.astimezone(UTC)  # raises OverflowError for times at the very edge of the calendar
    return moment


def _resolve(forward: dict[int, int], summary_id: int) -> int:
    """The summary that replaced ``summary_id`` (following replacements, shortened on the
    way so later look-ups take one step)."""
    target = summary_id
    while target in forward:
        target = forward[target]
    while summary_id in forward and forward[summary_id] != target:
        forward[summary_id], summary_id = target, forward[summary_id]
    return target


@dataclass(frozen=True, eq=False, slots=True)
class HistoryEntry:
    """One message in history, its token count, and the summary that covers it (if any).

    ``summary_id`` is live: when a wider summary replaces the one an entry was written with,
    the history records the replacement once (``forward``) instead of rewriting every entry,
    so folding a long history into a new summary costs what the new messages cost."""

    id: int
    message: Message
    token_count: int
    created_at: datetime
    written_summary_id: int | None = None
    stream_step_id: int | None = None
    forward: dict[int, int] | None = field(default=None, repr=False)

    @property
    def summary_id(self) -> int | None:
        """The summary that covers this message now (None: none)."""
        sid = self.written_summary_id
        if sid is None or not self.forward:
            return sid
        return _resolve(self.forward, sid)

    @property
    def is_summarized(self) -> bool:
        """True when a summary covers this message."""
        return self.written_summary_id is not None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HistoryEntry):
            return NotImplemented
        return (
            self.id,
            self.message,
            self.token_count,
            self.created_at,
            self.summary_id,
            self.stream_step_id,
        ) == (
            other.id,
            other.message,
            other.token_count,
            other.created_at,
            other.summary_id,
            other.stream_step_id,
        )

    __hash__ = None  # type: ignore[assignment]  # equal entries may change: not hashable

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "id": self.id,
            "message": self.message.to_dict(),
            "token_count": self.token_count,
            "summary_id": self.summary_id,
            "created_at": format_time(self.created_at),
            "stream_step_id": self.stream_step_id,
        }


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)
_NONE = -1  # no summary id


class Entries(MutableSequence[HistoryEntry]):
    """A history's entries held as columns: the messages, and arrays of token counts, creation
    times (microseconds since the epoch, for times in UTC) and the summary each was written
    with; ids are positions. A message costs its list slot and three array items (32 bytes)
    instead of an object, a timestamp and an id (~200 bytes). Indexing makes a
    :class:`HistoryEntry` on access; ``messages`` and ``tokens`` are the columns themselves,
    for code that reads one of them across many entries."""

    __slots__ = (
        "_micros",
        "_steps",
        "_times",
        "_written",
        "forward",
        "messages",
        "tokens",
        "version",
    )

    def __init__(self, forward: dict[int, int], entries: Iterable[HistoryEntry] = ()) -> None:
        self.messages: list[Message] = []
        self.tokens = array("q")
        self._micros = array("q")
        self._times: dict[int, datetime] = {}  # times not in UTC (naive, other zones), as given
        self._written = array("q")
        self._steps: dict[int, int] = {}  # stream step ids, for the messages that have one
        self.forward = forward  # the history's replacements (see HistoryEntry.summary_id)
        self.version = 0  # changes with every change, for caches keyed on the entries
        for entry in entries:
            self.append(entry)

    def __len__(self) -> int:
        return len(self.messages)

    def _entry(self, i: int) -> HistoryEntry:
        written = self._written[i]
        at = self._times.get(i)
        return HistoryEntry(
            id=i,
            message=self.messages[i],
            token_count=self.tokens[i],
            created_at=at if at is not None else _EPOCH + self._micros[i] * _MICROSECOND,
            written_summary_id=None if written == _NONE else written,
            stream_step_id=self._steps.get(i),
            forward=self.forward,
        )

    @overload
    def __getitem__(self, index: int) -> HistoryEntry: ...

    @overload
    def __getitem__(self, index: slice) -> list[HistoryEntry]: ...

    def __getitem__(self, index: int | slice) -> HistoryEntry | list[HistoryEntry]:
        if isinstance(index, slice):
            return [self._entry(i) for i in range(*index.indices(len(self)))]
        n = len(self.messages)
        if not -n <= index < n:
            raise IndexError("history entry index out of range")
        return self._entry(index % n)

    def __iter__(self) -> Iterator[HistoryEntry]:
        for i in range(len(self.messages)):
            yield self._entry(i)

    def add(
        self,
        message: Message,
        tokens: int,
        at: datetime,
        summary_id: int | None = None,
        step_id: int | None = None,
    ) -> int:
        """Append a message's row; returns its id (its position)."""
        whole_number(tokens, "token_count", maximum=MAX_TOKEN_COUNT)
        i = len(self.messages)
        self.messages.append(message)
        self.tokens.append(tokens)
        self._micros.append(0)
        self._written.append(_NONE)
        self._fill(i, at, summary_id, step_id)
        return i

    def _fill(self, i: int, at: datetime, summary_id: int | None, step_id: int | None) -> None:
        """Row ``i``'s time, summary and step (its message and count already in place)."""
        self._times.pop(i, None)
        if at.tzinfo is UTC:
            self._micros[i] = (at - _EPOCH) // _MICROSECOND
        else:
            self._times[i] = at
        self._written[i] = _NONE if summary_id is None else summary_id
        self._steps.pop(i, None)
        if step_id is not None:
            self._steps[i] = step_id
        self.version += 1

    def written(self, i: int) -> int | None:
        """The summary message ``i`` was written with (None: none)."""
        found = self._written[i]
        return None if found == _NONE else found

    def write(self, i: int, summary_id: int | None) -> None:
        """Point message ``i`` at ``summary_id`` (as written; replacements resolve it)."""
        self._written[i] = _NONE if summary_id is None else summary_id
        self.version += 1

    def summary_ids(self) -> Iterator[int | None]:
        """Each message's summary now, in order (replacements followed once per summary)."""
        forward = self.forward
        resolved: dict[int, int] = {}
        for sid in self._written:
            if sid == _NONE:
                yield None
            elif not forward:
                yield sid
            else:
                found = resolved.get(sid)
                if found is None:
                    found = resolved[sid] = _resolve(forward, sid)
                yield found

    def step_ids(self) -> Iterable[int]:
        """The stream step ids messages were pushed with."""
        return self._steps.values()

    def _check(self, index: int, entry: HistoryEntry) -> None:
        if entry.id != index:
            raise ValueError(
                f"entry {entry.id} cannot stand at position {index}: ids are positions"
            )

    def __setitem__(self, index: Any, value: Any) -> None:
        if isinstance(index, slice):
            raise TypeError("history entries are replaced one at a time")
        n = len(self.messages)
        if not -n <= index < n:
            raise IndexError("history entry index out of range")
        i = index % n
        self._check(i, value)
        whole_number(value.token_count, "token_count", maximum=MAX_TOKEN_COUNT)
        self.messages[i] = value.message
        self.tokens[i] = value.token_count
        self._fill(i, value.created_at, value.summary_id, value.stream_step_id)

    def __delitem__(self, index: int | slice) -> None:
        n = len(self.messages)
        if isinstance(index, slice):
            start, stop, step = index.indices(n)
            if step == 1 and stop >= n:  # the tail: what rollbacks and pops remove
                self.truncate(min(start, n))
                return
            doomed = set(range(start, stop, step))
        else:
            if not -n <= index < n:
                raise IndexError("history entry index out of range")
            doomed = {index % n}
        if doomed and min(doomed) < n - len(doomed):
            raise ValueError("only the last entries can be removed: ids are positions")
        self.truncate(n - len(doomed))

    def truncate(self, length: int) -> None:
        """Keep the first ``length`` entries."""
        del self.messages[length:], self.tokens[length:], self._micros[length:]
        del self._written[length:]
        for column in (self._times, self._steps):
            for i in [i for i in column if i >= length]:
                del column[i]
        self.version += 1

    def insert(self, index: int, value: HistoryEntry) -> None:
        """Only at the end (:meth:`append`): ids are positions."""
        if index < len(self.messages):
            raise ValueError("entries are only appended: ids are positions")
        self._check(len(self.messages), value)
        self.add(
            value.message,
            value.token_count,
            value.created_at,
            value.summary_id,
            value.stream_step_id,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Entries | list | tuple):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Entries({list(self)!r})"


@dataclass(frozen=True)
class Summary:
    """A summary of the messages ``[start, end)``."""

    id: int
    start: int
    end: int
    content: str
    token_count: int
    original_tokens: int
    created_at: datetime
    generated_by: str

    def to_dict(self) -> dict[str, Any]:
        """JSON form (``covers`` is half-open)."""
        return {
            "id": self.id,
            "covers": {"start": self.start, "end": self.end},
            "content": self.content,
            "token_count": self.token_count,
            "original_tokens": self.original_tokens,
            "created_at": format_time(self.created_at),
            "generated_by": self.generated_by,
        }


def _assign(runs: list[list[Any]], start: int, end: int, summary_id: int) -> list[list[Any]]:
    """``runs`` with ``[start, end)`` pointing at ``summary_id`` (runs outside kept, runs cut at
    the edges split)."""
    out: list[list[Any]] = []
    placed = False
    for low, high, sid in runs:
        if high <= start or low >= end:
            if low >= end and not placed:
                out.append([start, end, summary_id])
                placed = True
            out.append([low, high, sid])
            continue
        if low < start:
            out.append([low, start, sid])
        if not placed:
            out.append([start, end, summary_id])
            placed = True
        if high > end:
            out.append([end, high, sid])
    if not placed:
        out.append([start, end, summary_id])
    merged: list[list[Any]] = []
    for run in out:
        if merged and merged[-1][2] == run[2] and merged[-1][1] == run[0]:
            merged[-1][1] = run[1]
        else:
            merged.append(run)
    return merged


@dataclass
class FullHistory:
    """Entries and summaries with sequential ids (0, 1, 2 …)."""

    entries: Entries = field(default_factory=lambda: Entries({}))
    summaries: list[Summary] = field(default_factory=list)
    # runs of entries that share a summary id: [start, end, summary_id], kept up to date by
    # push, pop_if_last and add_summary, rebuilt when the lists were changed another way
    _runs: list[list[Any]] = field(default_factory=list, repr=False, compare=False)
    _runs_key: tuple[Any, ...] = field(default=(), repr=False, compare=False)
    # summary → the wider summary that replaced it; shared by this history's entries
    forward: dict[int, int] = field(default_factory=dict, repr=False, compare=False)
    # the summary ids entries had before the open checkpoint rewrote them, oldest first
    # (None: no checkpoint)
    _undo: list[tuple[int, int | None]] | None = field(default=None, repr=False, compare=False)

    def checkpoint(self) -> tuple[int, int, dict[int, int]]:
        """Start recording changes, so :meth:`rollback` can undo them (one at a time)."""
        self._undo = []
        return len(self.entries), len(self.summaries), dict(self.forward)

    def rollback(self, checkpoint: tuple[int, int, dict[int, int]]) -> None:
        """Put entries, summaries and replacements back as they were at ``checkpoint``."""
        entries_then, summaries_then, forward_then = checkpoint
        for position, written in reversed(self._undo or []):
            self.entries.write(position, written)
        self.entries.truncate(entries_then)
        del self.summaries[summaries_then:]
        self.forward.clear()
        self.forward.update(forward_then)
        self._undo = []
        self._runs_key = ()  # rebuilt on next use

    def release(self, checkpoint: tuple[int, int, dict[int, int]]) -> None:
        """Stop recording changes for ``checkpoint``."""
        self._undo = None

    def __post_init__(self) -> None:
        self.adopt()

    def adopt(self) -> None:
        """Hold the entries as this history's columns, pointing at its replacements (entries
        given as a list, or taken from another history, keep the summary they resolve to
        there)."""
        entries = self.entries
        if not isinstance(entries, Entries) or entries.forward is not self.forward:
            self.entries = Entries(self.forward, list(entries))

    @property
    def next_message_id(self) -> int:
        """The id the next message will get."""
        return len(self.entries)

    @property
    def next_summary_id(self) -> int:
        """The id the next summary will get."""
        return len(self.summaries)

    def __len__(self) -> int:
        return len(self.entries)

    def _key(self) -> tuple[Any, ...]:
        return (id(self.entries), self.entries.version, len(self.summaries))

    def runs(self) -> list[list[Any]]:
        """``[start, end, summary_id]`` runs covering every entry in order (adjacent entries
        with the same summary id, or none, share a run). Do not modify the result."""
        if self._runs_key != self._key():
            runs: list[list[Any]] = []
            for i, sid in enumerate(self.entries.summary_ids()):
                if runs and runs[-1][2] == sid and runs[-1][1] == i:
                    runs[-1][1] = i + 1
                else:
                    runs.append([i, i + 1, sid])
            self._runs, self._runs_key = runs, self._key()
        return self._runs

    def active_summaries(self) -> set[int]:
        """Ids of the summaries some entry points to."""
        return {run[2] for run in self.runs() if run[2] is not None}

    def push(self, message: Message, tokens: int, at: datetime, step_id: int | None = None) -> int:
        """Append a message; returns its id."""
        valid = self._runs_key == self._key()
        entry_id = self.entries.add(message, tokens, at, None, step_id)
        if valid:
            runs = self._runs
            if runs and runs[-1][2] is None and runs[-1][1] == entry_id:
                runs[-1][1] += 1
            else:
                runs.append([entry_id, entry_id + 1, None])
            self._runs_key = self._key()
        return entry_id

    def pop_if_last(self, message_id: int) -> Message | None:
        """Remove the last message if it has ``message_id`` and no summary covers it."""
        entries = self.entries
        last = len(entries) - 1
        if last < 0 or last != message_id or entries.written(last) is not None:
            return None
        message = entries.messages[last]
        entries.truncate(last)
        self._runs_key = ()  # rebuilt on next use
        return message

    def add_summary(self, summary: Summary) -> int:
        """Add a summary and point the entries it covers at it."""
        if summary.id != self.next_summary_id:
            raise CtxLabError(f"summary id {summary.id} is not the next id {self.next_summary_id}")
        if not 0 <= summary.start < summary.end <= len(self.entries):
            raise CtxLabError(f"summary range [{summary.start}, {summary.end}) is out of bounds")
        runs = self.runs()
        entries = self.entries
        forward = self.forward
        summaries = self.summaries
        self.summaries.append(summary)
        for low, high, sid in runs:
            if high <= summary.start or low >= summary.end:
                continue
            inner = summaries[sid] if sid is not None else None
            if inner is not None and summary.start <= inner.start and inner.end <= summary.end:
                forward[sid] = summary.id  # every entry of it is inside: one record
                continue
            for i in range(max(low, summary.start), min(high, summary.end)):
                if self._undo is not None:
                    self._undo.append((i, entries.written(i)))
                entries.write(i, summary.id)
        self._runs = _assign(runs, summary.start, summary.end, summary.id)
        self._runs_key = self._key()
        return summary.id

    def has_step_id(self, step_id: int) -> bool:
        """True when a message was pushed with this stream step id."""
        return step_id in self.entries.step_ids()

    def orphaned_summaries(self) -> list[int]:
        """Summaries no entry points to any more (replaced by a wider summary)."""
        used = self.active_summaries()
        return [s.id for s in self.summaries if s.id not in used]

    def total_tokens(self) -> int:
        """Sum of all messages' token counts."""
        return sum(self.entries.tokens)

    # -- persistence ------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The design's JSON: entries, summaries and the next ids."""
        return {
            "entries": [e.to_dict() for e in self.entries],
            "summaries": [s.to_dict() for s in self.summaries],
            "next_message_id": self.next_message_id,
            "next_summary_id": self.next_summary_id,
        }

    @classmethod
    def from_dict(cls, data: Any) -> FullHistory:
        """Validate and restore; :class:`HistoryCorrupted` names the first violation."""
        if not isinstance(data, dict):
            raise HistoryCorrupted("the history is not a JSON object")
        raw_entries, raw_summaries = data.get("entries"), data.get("summaries")
        if not isinstance(raw_entries, list) or not isinstance(raw_summaries, list):
            raise HistoryCorrupted("entries and summaries must be lists")
        entries = [_entry(i, raw) for i, raw in enumerate(raw_entries)]
        summaries = [_summary(i, raw, len(entries)) for i, raw in enumerate(raw_summaries)]
        if data.get("next_message_id") != len(entries):
            raise HistoryCorrupted(
                f"next_message_id is {data.get('next_message_id')!r} but there are "
                f"{len(entries)} entries"
            )
        if data.get("next_summary_id") != len(summaries):
            raise HistoryCorrupted(
                f"next_summary_id is {data.get('next_summary_id')!r} but there are "
                f"{len(summaries)} summaries"
            )
        for entry in entries:
            sid = entry.summary_id
            if sid is None:
                continue
            if not 0 <= sid < len(summaries):
                raise HistoryCorrupted(f"entry {entry.id} points to missing summary {sid}")
            s = summaries[sid]
            if not s.start <= entry.id < s.end:
                raise HistoryCorrupted(
                    f"entry {entry.id} points to summary {sid}, which covers [{s.start}, {s.end})"
                )
        referenced = {e.summary_id for e in entries if e.summary_id is not None}
        for s in summaries:
            if s.id not in referenced:
                continue  # orphaned by a wider summary: allowed
            for entry in entries[s.start : s.end]:
                if entry.summary_id != s.id:
                    raise HistoryCorrupted(
                        f"summary {s.id} covers [{s.start}, {s.end}) but entry {entry.id} "
                        f"points to {entry.summary_id!r}"
                    )
        history = cls(summaries=summaries)
        for e in entries:
            history.entries.add(
                e.message, e.token_count, e.created_at, e.summary_id, e.stream_step_id
            )
        return history


def _need(cond: bool, message: str) -> None:
    if not cond:
        raise HistoryCorrupted(message)


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _entry(index: int, raw: Any) -> HistoryEntry:
    _need(isinstance(raw, dict), f"entry {index} is not an object")
    _need(raw.get("id") == index, f"entry {index} has id {raw.get('id')!r}; ids must be 0, 1, 2 …")
    _need(
        _count(raw.get("token_count")) and raw["token_count"] <= MAX_TOKEN_COUNT,
        f"entry {index} has an invalid token_count",
    )
    sid = raw.get("summary_id")
    _need(sid is None or _count(sid), f"entry {index} has an invalid summary_id")
    step = raw.get("stream_step_id")
    _need(step is None or isinstance(step, int), f"entry {index} has an invalid stream_step_id")
    try:
        message = Message.from_dict(raw["message"])
        created = parse_time(raw["created_at"])
    except (KeyError, TypeError, ValueError, OverflowError, CtxLabError) as exc:
        raise HistoryCorrupted(f"entry {index} is malformed ({exc})") from None
    return HistoryEntry(
        id=index,
        message=message,
        token_count=raw["token_count"],
        created_at=created,
        written_summary_id=sid,
        stream_step_id=step,
        forward=None,
    )


def _summary(index: int, raw: Any, entry_count: int) -> Summary:
    _need(isinstance(raw, dict), f"summary {index} is not an object")
    _need(
        raw.get("id") == index, f"summary {index} has id {raw.get('id')!r}; ids must be sequential"
    )
    covers = raw.get("covers")
    _need(isinstance(covers, dict), f"summary {index} has no covers range")
    start, end = covers.get("start"), covers.get("end")
    _need(_count(start) and _count(end), f"summary {index} has an invalid covers range")
    _need(start < end, f"summary {index} covers an empty range [{start}, {end})")
    _need(
        end <= entry_count, f"summary {index} covers [{start}, {end}) beyond {entry_count} entries"
    )
    _need(
        isinstance(raw.get("content"), str) and raw["content"].strip() != "",
        f"summary {index} is empty",
    )
    _need(_count(raw.get("token_count")), f"summary {index} has an invalid token_count")
    _need(_count(raw.get("original_tokens")), f"summary {index} has an invalid original_tokens")
    try:
        created = parse_time(raw["created_at"])
    except (KeyError, TypeError, ValueError, OverflowError) as exc:
        raise HistoryCorrupted(f"summary {index} is malformed ({exc})") from None
    return Summary(
        id=index,
        start=start,
        end=end,
        content=raw["content"],
        token_count=raw["token_count"],
        original_tokens=raw["original_tokens"],
        created_at=created,
        generated_by=str(raw.get("generated_by", "")),
    )
