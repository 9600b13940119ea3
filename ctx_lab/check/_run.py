"""The rules applied to one session: its anatomy (every call's categories and items, the
provider's reported input and cache) and the compactions its recording holds.

Where a call's input is measured, the provider's reported input is used when the recording has
it, else ctx_lab's count (each finding says which); a session without usage skips the rules that
need it and says so.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from ..wire import to_wire
from ._rules import Rule, RuleSet

__all__ = ["Finding", "check_session"]


@dataclass(frozen=True)
class Finding:
    """One rule broken: where (session, call counted from 1 as every command counts them),
    what (category), by how much."""

    code: str
    rule: str
    session: str
    call: int
    category: str
    message: str
    value: float
    threshold: float
    claim: str = "estimated"  # how the value was made (ctx_lab/claims.py): billed or estimated

    def to_dict(self) -> dict[str, Any]:
        """The finding as JSON (its fields, by the declaration: :func:`ctx_lab.wire.to_wire`)."""
        return to_wire(self)


@dataclass(frozen=True)
class _Call:
    index: int
    row: dict[str, Any]
    items: Sequence[Any]

    @property
    def input(self) -> int:
        reported = self.row["reported_input"]
        return int(reported if reported is not None else self.row["total"])

    @property
    def measured(self) -> str:
        return "reported" if self.row["reported_input"] is not None else "counted"

    @property
    def claim(self) -> str:
        """The input's claim: billed when reported, else counted (estimated)."""
        return "billed" if self.row["reported_input"] is not None else "estimated"


def check_session(
    source: str, anatomy: Any, compactions: Sequence[int], rules: RuleSet
) -> tuple[list[Finding], list[str]]:
    """The findings of ``rules`` on one session's ``anatomy`` (a
    :class:`~ctx_lab.anatomy.SessionAnatomy`) whose recording compacted before the calls
    ``compactions``; and notes (rules that could not apply)."""
    calls = [
        _Call(i, row, call.items)
        for i, (row, call) in enumerate(zip(anatomy.rows(), anatomy.calls, strict=True))
    ]
    findings: list[Finding] = []
    notes: list[str] = []
    for rule in rules.enabled():
        check = _CHECKS[rule.name]
        findings += check(source, calls, set(compactions), rule, notes)
    findings.sort(key=lambda f: (f.call, f.code))
    return findings, notes


def _segments(calls: Sequence[_Call], compactions: set[int]) -> Iterator[list[_Call]]:
    """The calls between compactions."""
    segment: list[_Call] = []
    for call in calls:
        if call.row["call"] in compactions and segment:
            yield segment
            segment = []
        segment.append(call)
    if segment:
        yield segment


def _sized(source: str, calls: Sequence[_Call], rule: Rule, notes: list[str]) -> list[_Call]:
    """The calls whose model's window is known: a model no registry knows gets assumed limits,
    and a finding made from them would be invented (the anatomy's warning names the model)."""
    known = [c for c in calls if not c.row.get("limits_assumed")]
    if len(known) < len(calls):
        models = sorted({c.row["model"] for c in calls if c.row.get("limits_assumed")})
        notes.append(
            f"{source}: {rule.code} {rule.name}: not applied to {len(calls) - len(known)} "
            f"calls of {', '.join(models)} (no registry knows its window)"
        )
    return known


def _fill(source: str, calls: Sequence[_Call], compactions: set[int], rule: Rule,
          notes: list[str]) -> list[Finding]:  # fmt: skip
    percent = rule.value("percent")
    found = []
    calls = _sized(source, calls, rule, notes)
    for segment in _segments(calls, compactions):
        over = [c for c in segment if c.row["window"] and c.input > percent / 100 * c.row["window"]]
        if over:
            first, peak = over[0], max(over, key=lambda c: c.input)
            share = 100 * first.input / first.row["window"]
            message = (
                f"input {first.input:,} ({first.measured}) is {share:.1f} % of the "
                f"{first.row['window']:,}-token window, above {percent:g} %, without a "
                f"compaction; {len(over)} calls above it, peak {peak.input:,} at call "
                f"{peak.row['call']}"
            )
            found.append(_finding(rule, source, first, "window", message, share, percent,
                                  first.claim))  # fmt: skip
    return found


def _cache_hit_rate(source: str, calls: Sequence[_Call], compactions: set[int], rule: Rule,
                    notes: list[str]) -> list[Finding]:  # fmt: skip
    after, rate = int(rule.value("after")), rule.value("rate")
    measured = [
        c for c in calls
        if c.index >= after and c.row["cache_read"] is not None and c.row["reported_input"]
    ]  # fmt: skip
    if not measured:
        notes.append(f"{source}: {rule.code} {rule.name}: no call after {after} reports its cache")
        return []
    read = sum(c.row["cache_read"] for c in measured)
    total = sum(c.row["reported_input"] for c in measured)
    hit = read / total
    if hit >= rate:
        return []
    message = (
        f"{hit:.1%} of the input of calls {measured[0].row['call']}–{measured[-1].row['call']} "
        f"was read from the prompt cache ({read:,} of {total:,} reported), below {rate:.0%}"
    )
    return [_finding(rule, source, measured[0], "cache", message, hit, rate, "billed")]


def _tool_result(source: str, calls: Sequence[_Call], compactions: set[int], rule: Rule,
                 notes: list[str]) -> list[Finding]:  # fmt: skip
    limit = rule.value("tokens")
    seen: set[str] = set()
    found = []
    for call in calls:
        for item in call.items:
            if item.category != "tool_result" or item.digest in seen:
                continue
            seen.add(item.digest)
            if item.tokens > limit:
                how = "exact" if item.exact else "estimated"
                message = (
                    f"tool result of {item.name} is {item.tokens:,} tokens ({how}), over "
                    f"{limit:,.0f}"
                )
                found.append(_finding(rule, source, call, "tool_result", message,
                                      item.tokens, limit))  # fmt: skip
    return found


def _tool_definitions(source: str, calls: Sequence[_Call], compactions: set[int], rule: Rule,
                      notes: list[str]) -> list[Finding]:  # fmt: skip
    percent = rule.value("percent")
    over = []
    for call in calls:
        tools = call.row["tools"] + call.row["mcp_tools"]
        if call.row["total"] and tools > percent / 100 * call.row["total"]:
            over.append((call, tools, 100 * tools / call.row["total"]))
    if not over:
        return []
    call, tools, share = over[0]
    message = (
        f"tool definitions are {tools:,} of {call.row['total']:,} counted tokens "
        f"({share:.1f} %), above {percent:g} %; in {len(over)} of {len(calls)} calls"
    )
    return [_finding(rule, source, call, "tools", message, share, percent)]


def _memory_dropped(source: str, calls: Sequence[_Call], compactions: set[int], rule: Rule,
                    notes: list[str]) -> list[Finding]:  # fmt: skip
    found = []
    before: set[str] = set()
    for call in calls:
        now = {i.name for i in call.items if i.category == "memory"}
        for name in sorted(before - now):
            message = f"memory file {name} was sent before call {call.row['call']} and not in it"
            found.append(_finding(rule, source, call, "memory", message, 0, 0))
        before = now
    return found


def _over_budget(source: str, calls: Sequence[_Call], compactions: set[int], rule: Rule,
                 notes: list[str]) -> list[Finding]:  # fmt: skip
    found = []
    calls = _sized(source, calls, rule, notes)
    for segment in _segments(calls, compactions):
        over = [c for c in segment if c.row["budget"] and c.input > c.row["budget"]]
        if over:
            first = over[0]
            budget = first.row["budget"]
            message = (
                f"input {first.input:,} ({first.measured}) is over {first.row['model']}'s "
                f"effective budget of {budget:,} by {first.input - budget:,}"
                f"; {len(over)} calls over it before the next compaction"
            )
            found.append(_finding(rule, source, first, "budget", message, first.input,
                                  first.row["budget"], first.claim))  # fmt: skip
    return found


def _cache_miss(source: str, calls: Sequence[_Call], compactions: set[int], rule: Rule,
                notes: list[str]) -> list[Finding]:  # fmt: skip
    limit = rule.value("tokens")
    found = []
    for previous, call in pairwise(calls):
        read, before = call.row["cache_read"], previous.row["reported_input"]
        if read is None or before is None or call.row["call"] in compactions:
            continue  # no cache reported, or a compaction: a new prefix is expected
        missed = before - read
        if missed > limit:
            # the one cache engine's cause where the session was simulated; else the body diff
            cause = (
                f"{call.row['cache_cause']}: {call.row['cache_reason']}"
                if call.row.get("cache_cause")
                else call.row["cache_break"]
                or "the prefix was unchanged: the provider's cache expired or was evicted"
            )
            message = (
                f"{missed:,} tokens of call {previous.row['call']}'s input were not read "
                f"from the cache (read {read:,} of {before:,}): {cause}"
            )
            found.append(_finding(rule, source, call, "cache", message, missed, limit, "billed"))
    return found


def _finding(rule: Rule, source: str, call: _Call, category: str, message: str,
             value: float, threshold: float, claim: str = "estimated") -> Finding:  # fmt: skip
    return Finding(
        code=rule.code,
        rule=rule.name,
        session=source,
        call=int(call.row["call"]),
        category=category,
        message=message,
        value=round(float(value), 4),
        threshold=float(threshold),
        claim=claim,
    )


_CHECKS = {
    "fill": _fill,
    "cache-hit-rate": _cache_hit_rate,
    "tool-result": _tool_result,
    "tool-definitions": _tool_definitions,
    "memory-dropped": _memory_dropped,
    "over-budget": _over_budget,
    "cache-miss": _cache_miss,
}
