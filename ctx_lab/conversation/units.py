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

__all__ = ["UnitIndex"]


class UnitIndex:
    """Incremental tool units over a history's entries (anything with ``.message``)."""

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

    def update(self, entries: Sequence[Any]) -> None:
        """Read the entries added since the last update (all of them if the history changed
        otherwise)."""
        if self.count > len(entries) or (
            self.count and entries[self.count - 1].message is not self._last
        ):
            self._reset()
        for position in range(self.count, len(entries)):
            message = entries[position].message
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
        self.count = len(entries)
        self._last = entries[-1].message if entries else None

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
