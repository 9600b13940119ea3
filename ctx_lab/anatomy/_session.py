"""The anatomy of a session: every call's categories over time, what is new, carried over and
dropped since the call before, the longest stable prefix (what a prompt cache can reuse), what
the provider reported as read from and written to its cache — and where caching broke, and
why: a changed system prompt, a timestamp in it, a reordered or changed tool list, an edited
earlier message.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..display import RichResult, csv_text, escape, html_table, text_table
from ..errors import UsageError
from ..wire import to_wire
from ._claims import SESSION_CLAIM, row_claim
from ._piece import CATEGORIES
from ._request import AnatomyItem, RequestAnatomy

__all__ = ["Body", "CallDiff", "SessionAnatomy", "cache_break", "diff_calls"]

# a recorded request: (call id, body, response, provider, notes) — as a capture file holds it
Body = tuple[int, Mapping[str, Any], Mapping[str, Any] | None, str, tuple[str, ...]]

_VOLATILE = re.compile(r"\d")  # a prompt that differs only in digits changed a date or time


@dataclass(frozen=True)
class CallDiff:
    """One call against the call before it: items new, carried over and dropped (tokens),
    the stable prefix (tokens of the leading items both share, in order), and the reason the
    cache broke, when the prefix is shorter than the previous call."""

    new: int
    carried: int
    dropped: int
    stable_prefix: int
    cache_break: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The diff as JSON (its fields, by the declaration: :func:`ctx_lab.wire.to_wire`)."""
        return to_wire(self)


def _prefix_items(items: Sequence[AnatomyItem]) -> list[AnatomyItem]:
    """The items a prompt cache sees in order (the tokens priming the reply come after it)."""
    return [i for i in items if not (i.category == "framing" and i.name == "reply")]


def _system(items: Sequence[AnatomyItem]) -> list[AnatomyItem]:
    """The system prompt: Anthropic's ``system`` and Responses' instructions (before the
    messages), or Chat Completions' role-``system``/``developer`` messages."""
    return [i for i in items if i.category == "system"]


def _front(items: Sequence[AnatomyItem], category: str) -> list[AnatomyItem]:
    return [i for i in items if i.message == -1 and i.category == category]


def cache_break(before: RequestAnatomy, after: RequestAnatomy, texts: Sequence[str] = ()) -> str:
    """Why ``after`` does not start with all of ``before`` — ``""`` when it does. ``texts``
    may hold the two calls' system prompts (``[before, after]``) to tell a timestamp from an
    edit."""
    a, b = _prefix_items(before.items), _prefix_items(after.items)
    first, _ = _first_difference(a, b)
    if first is None:
        return "" if len(b) >= len(a) else "the request is shorter than the call before"
    return _break_reason(a, b, a[first], texts)


def _first_difference(a: Sequence[AnatomyItem], b: Sequence[AnatomyItem]) -> tuple[int | None, int]:
    """Where ``b`` first differs from ``a`` (None: never, within the shorter) and the tokens
    of ``b`` before it. Consecutive calls of a session share their items (the same objects),
    so the common prefix is checked by identity first."""
    prefix = 0
    for k, (x, y) in enumerate(zip(a, b, strict=False)):
        if x is not y and x.digest != y.digest:
            return k, prefix
        prefix += y.tokens
    return None, prefix


def _break_reason(
    a: Sequence[AnatomyItem], b: Sequence[AnatomyItem], where: AnatomyItem, texts: Sequence[str]
) -> str:
    """Why the prefix ``b`` breaks from ``a`` at ``where``."""
    tools_a = [i for i in a if i.category in ("tools", "mcp_tools")]
    tools_b = [i for i in b if i.category in ("tools", "mcp_tools")]
    if [t.digest for t in tools_a] != [t.digest for t in tools_b]:
        if sorted(t.digest for t in tools_a) == sorted(t.digest for t in tools_b):
            return "the tool list was reordered"
        names_a = {t.name for t in tools_a}
        names_b = {t.name for t in tools_b}
        added, removed = sorted(names_b - names_a), sorted(names_a - names_b)
        parts = [f"added {', '.join(added)}" if added else "", f"removed {', '.join(removed)}"
                 if removed else ""]  # fmt: skip
        changed = ", ".join(p for p in parts if p) or "a definition changed"
        return f"the tool definitions changed ({changed})"
    if [s.digest for s in _system(a)] != [s.digest for s in _system(b)]:
        if len(texts) == 2 and _VOLATILE.sub("0", texts[0]) == _VOLATILE.sub("0", texts[1]):
            return "a timestamp (or other number) in the system prompt changed"
        return "the system prompt changed"
    if [s.digest for s in _front(a, "memory")] != [s.digest for s in _front(b, "memory")]:
        return "a memory file changed"
    return (
        f"an earlier message changed (message {where.message}, {where.category}): the history "
        "was edited or compacted"
    )


def diff_calls(
    before: RequestAnatomy, after: RequestAnatomy, texts: Sequence[str] = ()
) -> CallDiff:
    """``after`` against ``before`` (see :class:`CallDiff`)."""
    old = {i.digest: i.tokens for i in before.items}
    seen: set[str] = set()
    new = carried = 0
    for i in after.items:
        seen.add(i.digest)
        if i.digest in old:
            carried += i.tokens
        else:
            new += i.tokens
    dropped = sum(t for d, t in old.items() if d not in seen)
    a, b = _prefix_items(before.items), _prefix_items(after.items)
    first, prefix = _first_difference(a, b)
    if first is None:
        reason = "" if len(b) >= len(a) else "the request is shorter than the call before"
    else:
        reason = _break_reason(a, b, a[first], texts)
    return CallDiff(new, carried, dropped, prefix, reason)


@dataclass(frozen=True, kw_only=True)
class SessionAnatomy(RichResult):
    """Every call's :class:`RequestAnatomy` and its :class:`CallDiff` against the one before;
    ``replayed`` holds, per call, the context ctx_lab's working-context manager would have
    sent at the same budget (from :func:`~ctx_lab.conversation.replay_report`), where the
    session can be replayed."""

    source: str
    calls: tuple[RequestAnatomy, ...]
    diffs: tuple[CallDiff | None, ...]
    replayed: tuple[int | None, ...] = ()
    warnings: tuple[str, ...] = field(default=())
    # what ``--format otlp`` exports: the recorded session it was made from, when it was one,
    # else a callable giving the request bodies (``Body``) it was made from
    transcript: Any = field(default=None, compare=False, repr=False)
    bodies: Any = field(default=None, compare=False, repr=False)
    # what each span of ``--format otlp`` carries of the messages (choices.OtlpContent)
    otlp_content: str = field(default="delta", compare=False, repr=False)
    # per call, the one cache engine's prediction and cause (ctx_lab.conversation
    # simulate_cache: a CacheCall), where the session could be simulated
    cache: tuple[Any, ...] = ()

    payload_kind = "anatomy_session"

    def rows(self) -> list[dict[str, Any]]:
        """One row per call: totals, categories, the report and the diff."""
        out = []
        for i, (call, diff) in enumerate(zip(self.calls, self.diffs, strict=True)):
            categories = call.categories()
            row: dict[str, Any] = {
                "call": call.call if call.call is not None else i,
                "model": call.model,
                "total": call.total,
                "hidden": call.hidden,
                "used": call.used,
                "budget": call.budget,
                "window": call.window,
                "autocompact_at": call.autocompact_at,
                "limits_assumed": call.limits_assumed,
                **{c: categories.get(c, 0) for c in CATEGORIES},
                "reported_input": call.reported_input,
                "difference": call.difference,
                "cache_read": call.cache_read,
                "cache_write": call.cache_write,
                "cost_usd": call.cost_usd,
                "new": diff.new if diff else call.total,
                "carried": diff.carried if diff else 0,
                "dropped": diff.dropped if diff else 0,
                "stable_prefix": diff.stable_prefix if diff else 0,
                "cache_break": diff.cache_break if diff else "",
                "replayed": self.replayed[i] if i < len(self.replayed) else None,
                **_engine_columns(self.cache[i] if i < len(self.cache) else None),
            }
            out.append(row)
        return out

    def largest(self, n: int = 10) -> list[dict[str, Any]]:
        """The ``n`` largest single items of the session (each counted where it first
        appears)."""
        seen: set[str] = set()
        found = []
        for call in self.calls:
            for item in call.items:
                if item.digest not in seen:
                    seen.add(item.digest)
                    found.append((call.call, item))
        found.sort(key=lambda pair: -pair[1].tokens)
        return [
            {"call": c, "category": i.category, "name": i.name, "tokens": i.tokens}
            for c, i in found[:n]
        ]

    def breaks(self) -> list[dict[str, Any]]:
        """The calls where caching broke, and why."""
        return [
            {"call": r["call"], "reason": r["cache_break"], "stable_prefix": r["stable_prefix"]}
            for r in self.rows()
            if r["cache_break"]
        ]

    def advice(self) -> list[Any]:
        """The avoidable costs of the session, the largest saving first
        (:func:`ctx_lab.anatomy._advice.session_advice`)."""
        from ._advice import session_advice

        return session_advice(self)

    def to_dict(self) -> dict[str, Any]:
        """The rows, the breaks, the largest items, and every call's anatomy. Hand-written: rows,
        breaks and the largest items are computed across the calls."""
        return {
            "source": self.source,
            "rows": [{**r, "claim": row_claim(r)} for r in self.rows()],
            "breaks": self.breaks(),
            "largest": self.largest(),
            "advice": [a.to_dict() for a in self.advice()],
            "calls": [c.to_dict() for c in self.calls],
            "warnings": list(self.warnings),
            "claim": SESSION_CLAIM,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SessionAnatomy:
        """The inverse of :meth:`to_dict`."""
        calls = tuple(RequestAnatomy.from_dict(c) for c in data.get("calls", ()))
        rows = data.get("rows", ())
        diffs = tuple(
            None
            if i == 0
            else CallDiff(
                r["new"], r["carried"], r["dropped"], r["stable_prefix"], r["cache_break"]
            )
            for i, r in enumerate(rows)
        )
        return cls(
            source=data["source"],
            calls=calls,
            diffs=diffs,
            replayed=tuple(r.get("replayed") for r in rows),
            warnings=tuple(data.get("warnings", ())),
            cache=tuple(_EngineRow.of(r) for r in rows),
        )

    _COLUMNS = ("call", "total", "new", "carried", "dropped", "stable_prefix", "reported_input",
                "difference", "cache_read", "cache_break")  # fmt: skip

    def _table(self) -> list[list[object]]:
        return [["" if r[c] is None else r[c] for c in self._COLUMNS] for r in self.rows()]

    def to_text(self) -> str:
        """A table per call, then the breaks and the largest items."""
        parts = [
            f"{self.source}: {len(self.calls)} calls; counted [estimated], reported [billed]",
            text_table(list(self._COLUMNS), self._table()),
        ]
        largest = ", ".join(
            f"call {x['call']} {x['category']} {x['name'] or ''} {x['tokens']:,}".replace("  ", " ")
            for x in self.largest(5)
        )
        parts.append(f"largest items: {largest}")
        advice = self.advice()
        if advice:
            parts.append(f"largest avoidable cost: {advice[0].line()}")
            parts.extend(f"  then: {a.line()}" for a in advice[1:3])
        priced = [c.cost_usd for c in self.calls if c.cost_usd is not None]
        if priced:
            parts.append(
                f"input cost ${sum(priced):.4f} over {len(priced)} of {len(self.calls)} calls "
                "(the reported cache split priced where recorded) [billed]"
            )
        return "\n".join(parts)

    def to_csv(self) -> str:
        """Every row's columns."""
        rows = self.rows()
        columns = list(rows[0]) if rows else ["call"]
        return csv_text(columns, [[r[c] for c in columns] for r in rows])

    def render(self, fmt: str = "text") -> str:
        """``text``, ``csv``, ``json`` or ``otlp`` (OpenTelemetry traces, :mod:`._otlp`)."""
        if fmt == "csv":
            return self.to_csv()
        if fmt == "otlp":
            return self.to_otlp_json()
        return super().render(fmt)

    def to_otlp(self) -> dict[str, Any]:
        """The session as OTLP/JSON traces: a span per call with its usage and composition and,
        as :attr:`otlp_content` says, its messages (:func:`ctx_lab.anatomy._otlp.otlp_traces`)."""
        from ._otlp import otlp_body_traces, otlp_traces

        if self.transcript is not None:
            return otlp_traces(self.transcript, self.calls, self.source, self.otlp_content)
        if self.bodies is not None:
            return otlp_body_traces(self.bodies(), self.calls, self.source)
        raise UsageError(f"{self.source}: nothing recorded to export")

    def otlp_chunks(self) -> Iterator[str]:
        """:meth:`to_otlp` as one line of JSON (the OTLP file exporter's shape), made and
        handed over a span at a time."""
        import json

        if self.transcript is not None:
            from ._otlp import otlp_chunks

            yield from otlp_chunks(self.transcript, self.calls, self.source, self.otlp_content)
            return
        yield json.dumps(self.to_otlp(), ensure_ascii=False, separators=(",", ":")) + "\n"

    def to_otlp_json(self) -> str:
        """:meth:`to_otlp` as one line of JSON (the OTLP file exporter's shape)."""
        return "".join(self.otlp_chunks())

    def render_chunks(self, fmt: str = "text") -> Iterator[str]:
        """:meth:`render` in pieces, for a writer that streams: an OTLP export a span at a
        time, any other format whole."""
        if fmt == "otlp":
            yield from self.otlp_chunks()
        else:
            yield self.render(fmt)

    def html_body(self) -> str:
        """The per-call table."""
        head = f"<h4 data-ctx-anatomy-session>{escape(self.source)}: {len(self.calls)} calls</h4>"
        return head + html_table(list(self._COLUMNS), self._table(), numeric=(1, 2, 3, 4, 5, 6))

    def ledger(self) -> Any:
        """A DataFrame: one row per call."""
        import pandas as pd

        return pd.DataFrame(self.rows())

    def plot(self, ax: Any = None) -> Any:
        """The categories over time (stacked area) with the window, budget and autocompact
        lines, and what ctx_lab would have kept. Returns the Figure."""
        from ._plots import plot_session

        return plot_session(self, ax=ax)


# the cache engine's columns of a row: what cache --sizes usage predicts for the call
ENGINE_COLUMNS = ("cache_read_predicted", "cache_write_predicted", "cache_cause", "cache_reason")


def _engine_columns(found: Any) -> dict[str, Any]:
    if found is None:
        return dict.fromkeys(ENGINE_COLUMNS)
    return {
        "cache_read_predicted": found.cache_read,
        "cache_write_predicted": found.cache_write,
        "cache_cause": found.miss_cause,
        "cache_reason": found.miss_reason,
    }


@dataclass(frozen=True)
class _EngineRow:
    """The engine's columns read back from a row (what :func:`_engine_columns` wrote)."""

    cache_read: int | None
    cache_write: int | None
    miss_cause: str | None
    miss_reason: str | None

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> _EngineRow | None:
        if row.get("cache_read_predicted") is None:
            return None
        return cls(row["cache_read_predicted"], row.get("cache_write_predicted"),
                   row.get("cache_cause"), row.get("cache_reason"))  # fmt: skip
