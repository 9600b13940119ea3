"""Tool units kept up to date as a history grows: the id ranges from a tool call to the last
result answering it, merged where they overlap, so that working-context selection finds the
unit holding a message by bisection instead of rebuilding every unit on every call.

Semantics (those of :meth:`ContextManager.tool_units`): a result counts for the latest call
with its id; a call whose id was never answered reaches to the end of the history; ranges of
one message are not units.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

__all__ = ["IdRuns", "UnitIndex"]


class UnitIndex:
    """Incremental tool units over a history's messages (its ``entries.messages``)."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self.count = 0
        self._last: Any = None  # the last message read, to notice a history that changed
        self._uses: dict[str, int] = {}
        self._answered: set[str] = set()
        self._pending: dict[str, int] = {}  # never-answered call id → its call's position
        self._starts: list[int] = []  # closed (call, result) spans, merged, sorted
        self._ends: list[int] = []
        self.newest_user: int | None = None

    def update(self, messages: Sequence[Any]) -> None:
        """Read the messages added since the last update (all of them if the history changed
        otherwise)."""
        if self.count > len(messages) or (
            self.count and messages[self.count - 1] is not self._last
        ):
            self._reset()
        for position in range(self.count, len(messages)):
            message = messages[position]
            role, call_id = message.role, message.call_id
            if role == "tool_use" and call_id:
                self._uses[call_id] = position
                if call_id not in self._answered:
                    self._pending[call_id] = position
            elif role == "tool_result" and call_id in self._uses:
                self._answered.add(call_id)
                self._pending.pop(call_id, None)
                self._close(self._uses[call_id], position)
            elif role == "user":
                self.newest_user = position
        self.count = len(messages)
        self._last = messages[-1] if messages else None

    def _close(self, start: int, end: int) -> None:
        # ``end`` is the newest position: every closed span it overlaps is at the tail
        while self._ends and self._ends[-1] >= start:
            start = min(start, self._starts.pop())
            end = max(end, self._ends.pop())
        self._starts.append(start)
        self._ends.append(end)

    def _tail(self) -> tuple[int, int]:
        """``(k, start)``: closed spans from index ``k`` merge into the pending unit that
        starts at ``start`` and reaches to the end (``k = len`` and no unit when none)."""
        if not self._pending:
            return len(self._starts), -1
        start = min(self._pending.values())
        k = bisect_right(self._ends, start - 1)  # first closed span ending at or after start
        if k < len(self._starts):
            start = min(start, self._starts[k])
        return k, start

    def units(self) -> list[tuple[int, int]]:
        """Every unit, in order (inclusive ranges)."""
        k, start = self._tail()
        out = [(s, e) for s, e in zip(self._starts[:k], self._ends[:k], strict=True) if e > s]
        last = self.count - 1
        if start >= 0 and last > start:
            out.append((start, last))
        return out

    def containing(self, position: int) -> tuple[int, int] | None:
        """The unit holding ``position``, if any."""
        k, start = self._tail()
        last = self.count - 1
        if start >= 0 and position >= start:
            return (start, last) if last > start and position <= last else None
        i = bisect_right(self._starts, position, 0, k) - 1
        if i >= 0 and self._ends[i] >= position and self._ends[i] > self._starts[i]:
            return self._starts[i], self._ends[i]
        return None


class IdRuns(Sequence[int]):
    """Sorted, disjoint runs of message ids read as one sorted sequence of ids: a selection
    marks whole blocks, and listing a history's worth of ids one by one would cost more than
    the selection itself."""

    __slots__ = ("_offsets", "_starts", "_stops")

    def __init__(self, runs: Sequence[tuple[int, int]] = ()) -> None:
        self._starts: list[int] = []
        self._stops: list[int] = []
        self._offsets: list[int] = [0]
        for start, stop in runs:
            if stop <= start:
                continue
            if self._stops and start <= self._stops[-1]:
                if start < self._stops[-1]:
                    raise ValueError("runs must be sorted and disjoint")
                self._stops[-1] = stop  # adjacent: one run
                self._offsets[-1] += stop - start
                continue
            self._starts.append(start)
            self._stops.append(stop)
            self._offsets.append(self._offsets[-1] + stop - start)

    @property
    def runs(self) -> list[tuple[int, int]]:
        """The half-open runs."""
        return list(zip(self._starts, self._stops, strict=True))

    def __len__(self) -> int:
        return self._offsets[-1]

    def _at(self, index: int) -> int:
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("IdRuns index out of range")
        run = bisect_right(self._offsets, index) - 1
        return self._starts[run] + index - self._offsets[run]

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self._at(i) for i in range(*index.indices(len(self)))]
        return self._at(index)

    def __iter__(self) -> Any:
        for start, stop in zip(self._starts, self._stops, strict=True):
            yield from range(start, stop)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, IdRuns):
            return self.runs == other.runs
        if isinstance(other, Sequence) and not isinstance(other, str):
            return len(other) == len(self) and list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        if len(self) <= 20:
            return repr(list(self))
        return (
            f"[{self[0]}, {self[1]}, …, {self[-1]}] ({len(self):,} ids in {len(self._starts)} runs)"
        )
