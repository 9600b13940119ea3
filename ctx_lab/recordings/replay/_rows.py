"""Rows kept as columns: a report of one row per call and model (a replay of 100k calls on
three models has 300k) holds each field once per row in a typed array where it can, not a
dict per row — a row is made when it is read."""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, overload

__all__ = ["RowTable"]

_INT64 = (-(2**63), 2**63)


def _kind(value: object) -> str:
    """The column kind a value fits: ``b`` bool, ``q`` 64-bit int, ``d`` float, ``o`` any."""
    if type(value) is bool:
        return "b"
    if type(value) is int and _INT64[0] <= value < _INT64[1]:
        return "q"
    if type(value) is float:
        return "d"
    return "o"


class RowTable(Sequence[dict[str, Any]]):
    """A sequence of rows (dicts with the same keys) stored by column.

    Numbers and flags go into arrays (8 bytes a value, never walked by the garbage collector)
    until a value of another type arrives — then that column becomes a list; a row whose
    keys differ from the first row's is kept whole. Reading a row makes a new dict.
    """

    __slots__ = ("_columns", "_keys", "_kinds", "_length", "_odd")

    def __init__(self, rows: Iterable[Mapping[str, Any]] = ()) -> None:
        self._keys: tuple[str, ...] | None = None
        self._kinds: list[str] = []
        self._columns: list[Any] = []
        self._length = 0
        self._odd: dict[int, dict[str, Any]] = {}  # rows whose keys differ, by position
        for row in rows:
            self.append(row)

    def append(self, row: Mapping[str, Any]) -> None:
        """Add a row at the end."""
        if self._keys is None:
            self._keys = tuple(row)
            self._kinds = [_kind(v) for v in row.values()]
            self._columns = [[] if k == "o" else array(k) for k in self._kinds]
        if len(row) != len(self._keys) or tuple(row) != self._keys:
            self._odd[self._length] = dict(row)
            for c, kind in enumerate(self._kinds):  # a placeholder keeps positions aligned
                self._columns[c].append(False if kind == "b" else 0)
        else:
            for c, value in enumerate(row.values()):
                kind = self._kinds[c]
                if kind != "o" and _kind(value) != kind:
                    self._widen(c)
                self._columns[c].append(value)
        self._length += 1

    def _widen(self, c: int) -> None:
        """Column ``c`` as a list of the values it held (of their own type)."""
        column = self._columns[c]
        self._columns[c] = [bool(v) for v in column] if self._kinds[c] == "b" else list(column)
        self._kinds[c] = "o"

    def column(self, key: str) -> Sequence[Any]:
        """Every row's value of ``key`` (rows kept whole included), in row order."""
        assert self._keys is not None or not self._length
        if self._keys is None:
            return []
        if key not in self._keys:
            return [self._odd.get(i, {}).get(key) for i in range(self._length)]
        c = self._keys.index(key)
        values: Sequence[Any] = self._columns[c]
        if self._kinds[c] == "b":
            values = [bool(v) for v in values]
        if not self._odd:
            return values
        values = list(values)
        for i, row in self._odd.items():
            values[i] = row.get(key)
        return values

    def _row(self, i: int) -> dict[str, Any]:
        odd = self._odd.get(i)
        if odd is not None:
            return dict(odd)
        assert self._keys is not None
        return {
            key: (bool(col[i]) if kind == "b" else col[i])
            for key, kind, col in zip(self._keys, self._kinds, self._columns, strict=True)
        }

    @overload
    def __getitem__(self, i: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, i: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, i: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(i, slice):
            return [self._row(j) for j in range(*i.indices(self._length))]
        if i < 0:
            i += self._length
        if not 0 <= i < self._length:
            raise IndexError("row index out of range")
        return self._row(i)

    def __len__(self) -> int:
        return self._length

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return (self._row(i) for i in range(self._length))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"RowTable({self._length} rows)"
