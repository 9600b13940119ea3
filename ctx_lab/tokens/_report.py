"""Counting the tokens of files and texts with one or more counters: :class:`TokenReport`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..display import RichResult, escape, html_table, text_table
from ..errors import CounterUnavailableError
from ..files import decode_text, is_binary, read_bytes
from ..wire import derived, to_wire, wire
from ._counters import CounterLike
from ._lookup import CounterInfo, counter_names, get_counter

__all__ = [
    "CounterList",
    "FileCount",
    "TextInput",
    "TokenReport",
    "count_texts",
    "read_text_file",
]


@dataclass(frozen=True)
class FileCount:
    """The byte size and per-counter token counts of one input."""

    path: str
    bytes: int = field(metadata=wire(minimum=0))
    counts: dict[str, int] = field(metadata=wire("tokens by counter"))

    def to_dict(self) -> dict[str, Any]:
        """``{"path", "bytes", "counts"}``."""
        return to_wire(self)


@dataclass(frozen=True, kw_only=True)
class TokenReport(RichResult):
    """Token counts of several inputs under several counters, with totals.

    ``unavailable`` maps counters that could not run here to the reason; ``warnings`` lists
    inputs that were decoded with replacement characters or skipped.
    """

    files: tuple[FileCount, ...]
    counters: tuple[str, ...]
    unavailable: dict[str, str] = field(
        default_factory=dict, metadata=wire("counters that could not run here, and why")
    )
    warnings: tuple[str, ...] = ()
    exact: dict[str, bool] = field(
        default_factory=dict,
        metadata=wire("per counter: whether its counts are exact (a tokenizer) or an estimate"),
    )

    payload_kind = "tokens"

    def __post_init__(self) -> None:
        # every counter says whether it is exact (an unknown one is not)
        object.__setattr__(
            self, "exact", {name: bool(self.exact.get(name, False)) for name in self.counters}
        )

    @property
    @derived({"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}})
    def total(self) -> dict[str, int]:
        """Sum of each counter over all inputs."""
        return {name: sum(f.counts[name] for f in self.files) for name in self.counters}

    def _rows(self) -> list[list[object]]:
        rows: list[list[object]] = [
            [f.path, f.bytes, *(f.counts[c] for c in self.counters)] for f in self.files
        ]
        if len(self.files) != 1:
            total = self.total
            rows.append(
                ["total", sum(f.bytes for f in self.files), *(total[c] for c in self.counters)]
            )
        return rows

    def to_text(self) -> str:
        """A table of inputs × counters, then the unavailable counters with their reasons."""
        lines = [text_table(["path", "bytes", *self.counters], self._rows())]
        lines += [f"{name}: unavailable — {reason}" for name, reason in self.unavailable.items()]
        return "\n".join(lines)

    def html_body(self) -> str:
        """The table plus unavailable counters."""
        n = len(self.counters)
        table = html_table(["path", "bytes", *self.counters], self._rows(), numeric=range(1, n + 2))
        missing = "".join(
            f'<div class="ctx-muted" data-ctx-unavailable="{escape(name)}">'
            f"{escape(name)}: unavailable — {escape(reason)}</div>"
            for name, reason in self.unavailable.items()
        )
        return f"<h4>Token counts</h4>{table}{missing}"


@dataclass(frozen=True)
class TextInput:
    """One input to count: a label (a path, ``-`` or ``<cell>``), its text and its size on disk."""

    label: str
    text: str
    size: int | None = None

    @property
    def bytes(self) -> int:
        """The size on disk when known, else the UTF-8 size of the text."""
        if self.size is not None:
            return self.size
        return len(self.text.encode("utf-8", "surrogatepass"))


def read_text_file(path: str | Path, warnings: list[str]) -> TextInput | None:
    """Read a text file for counting: None (with a warning) for binary files
    (:func:`ctx_lab.files.is_binary`).

    Raises :class:`InputFileError` naming the file when it is missing or unreadable.
    """
    data = read_bytes(path)
    if is_binary(data):
        warnings.append(f"{path}: binary content; skipped")
        return None
    return TextInput(str(path), decode_text(data, str(path), warnings), len(data))


def count_texts(
    texts: Sequence[TextInput | tuple[str, str]],
    counters: Sequence[CounterLike] | str = "cl100k",
    *,
    warnings: Sequence[str] = (),
) -> TokenReport:
    """Count inputs (or ``(label, text)`` pairs) with each counter (``"all"``: every one).

    With ``"all"`` a counter that cannot run here is reported in ``unavailable``; a single
    named counter that cannot run raises :class:`CounterUnavailableError`.
    """
    if isinstance(counters, str):
        wanted: list[CounterLike] = list(counter_names()) if counters == "all" else [counters]
        tolerate_missing = counters == "all"
    else:
        wanted, tolerate_missing = list(counters), False
    resolved = [get_counter(c) for c in wanted]
    inputs = [t if isinstance(t, TextInput) else TextInput(*t) for t in texts]
    all_texts = [t.text for t in inputs]
    columns: dict[str, list[int]] = {}
    unavailable: dict[str, str] = {}
    for counter in resolved:
        try:
            columns[counter.name] = counter.count_many(all_texts)
        except CounterUnavailableError as exc:
            if not tolerate_missing:
                raise
            unavailable[counter.name] = exc.reason
    names = tuple(columns)
    files = tuple(
        FileCount(t.label, t.bytes, {n: columns[n][i] for n in names}) for i, t in enumerate(inputs)
    )
    exact = {c.name: bool(c.exact) for c in resolved if c.name in columns}
    return TokenReport(
        files=files, counters=names, unavailable=unavailable, warnings=tuple(warnings), exact=exact
    )


def _kind(info: CounterInfo) -> str:
    """exact (checked against a second packaging, a hash or the provider), exact by its own
    packaging (nothing to check it against here), or estimate."""
    if not info.exact:
        return "estimate"
    return "exact" if info.verified_by else "exact (own packaging)"


@dataclass(frozen=True, kw_only=True)
class CounterList(RichResult):
    """Every token counter — built in, installed through the ``ctx_lab.counters`` entry points
    or registered — with whether it is exact and whether it works here (and why not)."""

    counters: tuple[CounterInfo, ...]

    payload_kind = "counters"

    def _rows(self) -> list[list[object]]:
        return [[c.name, _kind(c), "yes" if c.available else "no", c.reason] for c in self.counters]

    def to_text(self) -> str:
        """A table: name, exact or estimate, available, reason."""
        return text_table(["counter", "kind", "available", "reason"], self._rows())

    def html_body(self) -> str:
        """The same table in HTML."""
        return "<h4 data-ctx-counters>Token counters</h4>" + html_table(
            ["counter", "kind", "available", "reason"], self._rows()
        )
