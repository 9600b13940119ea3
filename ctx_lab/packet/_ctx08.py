"""The ``ctx-0.8`` profile: exactly what ``ctx agent`` 0.8.1 sends, bugs included.

Everything of this profile lives here — extraction, estimate, assembly, its Markdown and JSON
layout and the vocabulary of its rules — following ``ctx-parity.md`` (the reference outputs win
where it is silent). It shares with the design profile what behaves the same: the read order
and "effectively empty" test, the stop words, the recency brackets, the instruction.

Every item of the ledger names the ctx rule that decided its fate (:data:`RULES`), so a
comparison with the design profile (:func:`ctx_lab.packet.compare_profiles`) can say why the
two packets differ.

Why one module over ~400 lines: the profile is a faithful copy of one program's behaviour, read
side by side with ctx 0.8.1's source; splitting it would scatter what has to match as a whole.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from ..choices import CTX08_PROFILE
from ..clock import utc_now
from ..errors import UsageError
from ._context import READ_ORDER, ProjectContext
from ._layout import INSTRUCTION
from ._markdown import is_effectively_empty
from ._packet import AllocationRow, EntrySummary, LedgerRow, Packet, PacketEntry
from ._scoring import CTX_STOP_WORDS, recency_score

__all__ = ["COUNTER", "PROFILE", "RULES", "CtxPacket", "assemble_ctx08", "estimate"]

PROFILE = CTX08_PROFILE
COUNTER = "bytes/4"  # ctx's estimate: ceil(UTF-8 bytes / 4), the same as ctx_lab's bytes/4

# The vocabulary of the ledger's ``rule`` column: what ctx 0.8.1 does, in one name each.
RULES: dict[str, str] = {
    "tier-1": "read order (paths as printed) and the instruction always go in",
    "constitution-regex": "rules match only when the whole file is one `- [ ] rule` line",
    "task-regex": "tasks are lines `- [ ]` or `- []` only; `[x]`, `[X]`, `[-]` and `* [ ]` are not",
    "first-line-only": "only a task's first line is kept; continuation lines are dropped",
    "flattened-nesting": "nested tasks lose their indentation and parent",
    "file-order-fit": "fits its cap walking the file in order (no ranking)",
    "fit-stops-at-first": "the first item that does not fit its cap ends the section",
    "at-least-one-task": "the first task is kept even when it alone exceeds the cap",
    "dash-lines-anywhere": "every column-0 `- ` line is a convention, comment lines included",
    "budget-exhausted": "nothing was left after the earlier sections",
    "no-theme-folders": "decisions/, learnings/, conventions/ and steering/ are not read",
    "header-needs-time": "entry headers need `## [YYYY-MM-DD-HHMMSS] Title`",
    "unanchored-header": "a `[YYYY-MM-DD-HHMMSS] Title` header anywhere in a line starts an entry",
    "strikethrough-only-superseded": "only `~~Superseded` marks an entry superseded",
    "score-zero-skipped": "superseded entries (score 0) are left out entirely",
    "substring-relevance": "relevance counts keywords found anywhere in the entry, tags included",
    "split-30": "each side gets 30 % of what remains, the rest by size",
    "fill-80": "full entries may use 80 % of their side's share; the rest become titles",
    "uncapped-summaries": "titles under Also Noted are counted past the budget",
}

_CONSTITUTION = re.compile(r"\A-\s*\[([x ]?)\]\s*(.+)\Z")
_TASK = re.compile(r"^(\s*)-\s*\[([x ]?)]\s*(.+)$")
_CONVENTION = re.compile(r"^-\s*(.+)$")
_HEADER = re.compile(r"## \[(\d{4})-(\d{2})-(\d{2})-(\d{2})(\d{2})(\d{2})\] (.+)")
_WORD_SPLIT = re.compile(r"[^a-z0-9_-]+")
MAX_CONVENTIONS = 1000


def estimate(text: str) -> int:
    """ctx's token estimate: ``ceil(len(UTF-8 bytes) / 4)``."""
    return math.ceil(len(text.encode("utf-8", "surrogatepass")) / 4)


@dataclass(frozen=True)
class _Item:
    """One extracted string, where it came from, and its cost."""

    section: str
    text: str
    source: str
    line: int
    title: str = ""
    tokens: int = 0
    stamp: datetime | None = None
    superseded: bool = False


@dataclass
class _Fate:
    action: str
    rule: str
    reason: str


# -- extraction ---------------------------------------------------------------------------------


def _lines(text: str) -> list[str]:
    return text.split("\n")


def _constitution(text: str) -> list[_Item]:
    m = _CONSTITUTION.match(text)
    if m is None:
        return []
    return [_Item("constitution", m.group(2), ".context/CONSTITUTION.md", 1)]


def _tasks(text: str) -> list[_Item]:
    found = []
    for number, line in enumerate(_lines(text), 1):
        m = _TASK.match(line)
        if m and m.group(2) != "x":
            found.append(_Item("tasks", "- [ ] " + m.group(3), ".context/TASKS.md", number))
    return found


def _conventions(text: str) -> list[_Item]:
    found = []
    for number, line in enumerate(_lines(text), 1):
        m = _CONVENTION.match(line)
        if m and not m.group(1).startswith("#"):
            found.append(_Item("conventions", m.group(1), ".context/CONVENTIONS.md", number))
            if len(found) >= MAX_CONVENTIONS:
                break
    return found


def _entries(text: str, section: str, name: str) -> list[_Item]:
    lines = _lines(text)
    starts = [(i, m) for i, line in enumerate(lines) if (m := _HEADER.search(line))]
    found = []
    for n, (i, m) in enumerate(starts):
        end = starts[n + 1][0] if n + 1 < len(starts) else len(lines)
        block = lines[i:end]
        while block and not block[-1].strip():
            block.pop()
        year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
        try:
            stamp: datetime | None = datetime(year, month, day, hour, minute, second)
        except ValueError:
            stamp = None
        superseded = any(line.strip().startswith("~~Superseded") for line in block[1:])
        body = "\n".join(block)
        found.append(
            _Item(
                section=section,
                text=body,
                source=f".context/{name}",
                line=i + 1,
                title=m.group(7),
                tokens=0,
                stamp=stamp,
                superseded=superseded,
            )
        )
    return found


def _keywords(tasks: list[_Item]) -> list[str]:
    seen: dict[str, None] = {}
    for item in tasks:
        for word in _WORD_SPLIT.split(item.text.lower()):
            if len(word.encode()) >= 3 and word not in CTX_STOP_WORDS:
                seen.setdefault(word, None)
    return list(seen)


def _local(now: datetime) -> datetime:
    """``now`` in the process's local time zone (as ctx computes ages); a naive ``now`` is
    local already."""
    return now.astimezone()


def _recency(stamp: datetime | None, now: datetime) -> tuple[int | None, float]:
    if stamp is None:
        return None, recency_score(None)
    midnight = datetime(stamp.year, stamp.month, stamp.day).astimezone()
    days = math.floor((_local(now) - midnight).total_seconds() / 86400)
    return days, recency_score(days)


# -- the packet ---------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class CtxPacket(Packet):
    """A packet as ``ctx agent`` 0.8.1 makes it: its own Markdown and JSON (``native``), plus
    ctx_lab's ledger of why each item went where (with the ctx rule that decided it)."""

    native: Mapping[str, Any] = field(default_factory=dict)
    display_dir: str = ""

    @property
    def overshoot(self) -> int:
        """How many tokens over the budget ctx's own count is (its summaries are uncapped)."""
        return max(self.tokens_used - self.budget, 0)

    def to_markdown(self) -> str:
        """ctx's Markdown, byte for byte."""
        n = self.native
        out = [
            "# Context Packet\n",
            f"Generated: {n['generated']} | Budget: {n['budget']} tokens | "
            f"Used: ~{n['tokens_used']} tokens\n",
            "\n## Read These Files\n",
        ]
        out += [f"{i}. {path}\n" for i, path in enumerate(n["read_order"] or (), 1)]
        out.append("\n")

        def section(title: str, items: list[str] | None, block: bool = False) -> None:
            if not items:
                return
            out.append(f"## {title}\n")
            for item in items:
                out.append(f"{item}\n\n" if block else f"{item}\n")
            if not block:
                out.append("\n")

        section("Constitution (NEVER VIOLATE)", [f"- {r}" for r in n["constitution"]])
        section("Current Tasks", n["tasks"])
        section("Key Conventions", [f"- {c}" for c in n["conventions"] or ()])
        section("Recent Decisions", n["decisions"], block=True)
        section("Key Learnings", n.get("learnings"), block=True)
        section("Also Noted", [f"- {s}" for s in n.get("summaries") or ()])
        out.append(f"{n['instruction']}\n")
        return "".join(out)

    def parts(self) -> list[tuple[str, str]]:
        """The Markdown as one part (ctx does not count its layout)."""
        return [("packet", self.to_markdown())]

    def native_json(self) -> str:
        """ctx's JSON, byte for byte: its keys and order, nulls, 2-space indent, HTML-escaped
        ``<``, ``>`` and ``&`` as Go writes them."""
        text = json.dumps(dict(self.native), indent=2, ensure_ascii=False)
        for plain, escaped in (
            ("<", "\\u003c"),
            (">", "\\u003e"),
            ("&", "\\u0026"),
            ("\u2028", "\\u2028"),
            ("\u2029", "\\u2029"),
        ):
            text = text.replace(plain, escaped)
        return text + "\n"

    def render(self, fmt: str = "md") -> str:
        """``md`` (ctx's Markdown) or ``json`` (ctx's JSON)."""
        return self.native_json() if fmt == "json" else self.to_markdown()

    def to_dict(self) -> dict[str, Any]:
        """The packet payload (``profile`` ``ctx-0.8``) with ctx's own JSON under ``native``."""
        data = super().to_dict()
        data["native"] = dict(self.native)
        data["display_dir"] = self.display_dir
        data["overshoot"] = self.overshoot
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CtxPacket:
        """Restore a ctx-0.8 packet from :meth:`to_dict`."""
        base = Packet.from_dict({**data, "profile": "design"})
        fields = {name: getattr(base, name) for name in Packet.__dataclass_fields__}
        fields["profile"] = PROFILE
        return cls(
            **fields, native=dict(data.get("native") or {}), display_dir=data.get("display_dir", "")
        )


# -- assembly -----------------------------------------------------------------------------------


def _fit(
    items: list[_Item], cap: int, at_least_one: bool, fates: dict[tuple[str, int], _Fate]
) -> tuple[list[_Item], int]:
    """ctx's FitItems: in file order while the sum stays within ``cap``; stop at the first
    that does not fit; with ``at_least_one`` the first item goes in regardless."""
    taken: list[_Item] = []
    used = 0
    for item in items:
        if used + item.tokens > cap and not (at_least_one and not taken):
            fates[(item.source, item.line)] = _Fate(
                "dropped", "fit-stops-at-first", f"did not fit in the cap of {cap} tokens"
            )
            for later in items[len(taken) + 1 :]:
                fates[(later.source, later.line)] = _Fate(
                    "dropped", "fit-stops-at-first", "after the first item that did not fit"
                )
            break
        if used + item.tokens > cap:
            fates[(item.source, item.line)] = _Fate(
                "full", "at-least-one-task", f"kept although it exceeds the cap of {cap} tokens"
            )
        else:
            fates[(item.source, item.line)] = _Fate(
                "full", "file-order-fit", f"fits in the cap of {cap} tokens (file order)"
            )
        used += item.tokens
        taken.append(item)
    return taken, used


def default_display_dir(ctx: ProjectContext) -> str:
    """The directory ctx prints: the absolute ``.context/`` path."""
    return os.path.abspath(ctx.context_dir)


def assemble_ctx08(
    ctx: ProjectContext,
    budget: int,
    now: datetime | None = None,
    *,
    display_dir: str | None = None,
    budget_source: str = "argument",
) -> CtxPacket:
    """Assemble ``ctx``'s packet as ctx 0.8.1 does (``ctx-parity.md``). ``display_dir`` is the
    directory string printed — and counted — in the read order (default: the absolute
    ``.context/`` path); ``now`` dates the packet and the entries' ages in the local time zone."""
    run = _Ctx08Run(ctx, budget, now or utc_now(), display_dir)
    run.tier1()
    if run.remaining > 0:
        run.tasks_and_conventions()
    if run.remaining > 0:
        run.decisions_and_learnings()
    return run.packet(budget_source)


_Scores = dict[tuple[str, int], tuple[int | None, float, float, list[str], float]]


class _Ctx08Run:
    """One ctx 0.8.1 assembly, stage by stage as ctx runs them: tier 1 (read order,
    constitution, instruction), tasks then conventions under their caps, decisions and
    learnings scored and filled to 80 % of their shares, then the packet and its ledger."""

    def __init__(
        self, ctx: ProjectContext, budget: int, now: datetime, display_dir: str | None
    ) -> None:
        self.ctx, self.budget, self.now = ctx, budget, now
        self.shown = default_display_dir(ctx) if display_dir is None else display_dir.rstrip("/")
        texts = ctx.texts
        generated = (now if now.tzinfo else now.astimezone()).astimezone(UTC)
        self.native: dict[str, Any] = {
            "generated": generated.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "budget": budget,
            "tokens_used": 0,
            "read_order": None,
            "constitution": [],
            "tasks": None,
            "conventions": None,
            "decisions": None,
            "learnings": None,
            "summaries": None,
            "instruction": INSTRUCTION,
        }
        self.fates: dict[tuple[str, int], _Fate] = {}
        self.read_order = [
            f"{self.shown}/{name}"
            for name in READ_ORDER
            if f".context/{name}" in texts and not is_effectively_empty(texts[f".context/{name}"])
        ]
        self.native["read_order"] = self.read_order or None

        def priced(items: list[_Item]) -> list[_Item]:
            return [replace(i, tokens=estimate(i.text)) for i in items]

        self.rules = priced(_constitution(texts.get(".context/CONSTITUTION.md", "")))
        self.tasks = priced(_tasks(texts.get(".context/TASKS.md", "")))
        self.conventions = priced(_conventions(texts.get(".context/CONVENTIONS.md", "")))
        self.decisions = priced(
            _entries(texts.get(".context/DECISIONS.md", ""), "decisions", "DECISIONS.md")
        )
        self.learnings = priced(
            _entries(texts.get(".context/LEARNINGS.md", ""), "learnings", "LEARNINGS.md")
        )
        self.scores: _Scores = {}
        self.keywords: list[str] = []
        self.used_sections = 0
        self.summaries: list[_Item] = []
        self.full: dict[str, list[_Item]] = {"decisions": [], "learnings": []}
        self.allocation: list[AllocationRow] = []
        self.tier1_tokens = 0
        self.remaining = budget

    def tier1(self) -> None:
        """Read order, constitution and instruction: always in."""
        self.native["constitution"] = [r.text for r in self.rules]
        for r in self.rules:
            self.fates[(r.source, r.line)] = _Fate("full", "tier-1", "tier 1: always included")
        read_order_tokens = sum(estimate(p) for p in self.read_order)
        rule_tokens = sum(r.tokens for r in self.rules)
        self.tier1_tokens = read_order_tokens + rule_tokens + estimate(INSTRUCTION)
        self.remaining = self.budget - self.tier1_tokens
        self.allocation = [
            AllocationRow("read_order", 1, None, read_order_tokens),
            AllocationRow("constitution", 1, None, rule_tokens, len(self.rules)),
            AllocationRow("instruction", 1, None, estimate(INSTRUCTION)),
        ]

    def _section(self, name: str, tier: int, share: float, items: list[_Item]) -> list[_Item]:
        cap = min(int(self.budget * share), self.remaining)
        taken, spent = _fit(items, cap, True, self.fates)
        self.allocation.append(
            AllocationRow(
                section=name,
                tier=tier,
                cap=cap,
                used=spent,
                full=len(taken),
                summary=0,
                counted=len(items) - len(taken),
            )
        )
        self.native[name] = [i.text for i in taken] or None
        self.remaining -= spent
        self.used_sections += spent
        return taken

    def tasks_and_conventions(self) -> None:
        """Tasks up to 40 % (their keywords rank what follows), then conventions up to 20 %."""
        self.keywords = _keywords(self._section("tasks", 2, 0.40, self.tasks))
        if self.remaining > 0:
            self._section("conventions", 3, 0.20, self.conventions)

    def _score(self) -> None:
        for item in (*self.decisions, *self.learnings):
            days, recency = _recency(item.stamp, self.now)
            lowered = item.text.lower()
            matched = [k for k in self.keywords if k in lowered]
            relevance = min(len(matched), 3) / 3
            score = 0.0 if item.superseded else recency + relevance
            self.scores[(item.source, item.line)] = (days, recency, relevance, matched, score)

    def _shares(self) -> dict[str, int]:
        """What remains, split: all of it to a side alone, each its size when both fit, else
        30 % each and the rest in proportion to their sizes."""
        remaining = self.remaining
        d = sum(i.tokens for i in self.decisions)
        l_total = sum(i.tokens for i in self.learnings)
        if not self.decisions:
            return {"decisions": 0, "learnings": remaining}
        if not self.learnings:
            return {"decisions": remaining, "learnings": 0}
        if d + l_total <= remaining:
            return {"decisions": d, "learnings": l_total}
        base = int(remaining * 0.30)
        flex = remaining - 2 * base
        to_decisions = int(flex * d / (d + l_total))
        return {"decisions": base + to_decisions, "learnings": base + flex - to_decisions}

    def _fill_side(self, side: str, items: list[_Item], share: int) -> None:
        """Whole entries by score up to 80 % of the share; the rest as titles (uncapped)."""
        room = share * 80 // 100
        ranked = sorted(items, key=lambda i: -self.scores[(i.source, i.line)][4])
        spent = 0
        for item in ranked:
            key = (item.source, item.line)
            if self.scores[key][4] == 0:
                self.fates[key] = _Fate(
                    "superseded", "score-zero-skipped", "superseded: score 0, left out"
                )
                continue
            if spent + item.tokens <= room:
                spent += item.tokens
                self.full[side].append(item)
                self.fates[key] = _Fate(
                    "full",
                    "fill-80",
                    f"fits in 80 % of the {side} share ({room} of {share} tokens)",
                )
            else:
                self.summaries.append(item)
                self.fates[key] = _Fate(
                    "summary",
                    "fill-80",
                    f"does not fit in 80 % of the {side} share ({room} tokens); title "
                    "under Also Noted (titles are not capped)",
                )
        noted = [i for i in self.summaries if i.section == side]
        titles = sum(estimate(i.title) for i in noted)
        dropped = len(items) - len(self.full[side]) - len(noted)
        tier = 4 if side == "decisions" else 5
        self.allocation.append(
            AllocationRow(
                section=side,
                tier=tier,
                cap=share,
                used=spent + titles,
                full=len(self.full[side]),
                summary=len(noted),
                counted=dropped,
            )
        )
        self.used_sections += spent

    def decisions_and_learnings(self) -> None:
        self._score()
        shares = self._shares()
        self._fill_side("decisions", self.decisions, shares["decisions"])
        self._fill_side("learnings", self.learnings, shares["learnings"])
        self.native["decisions"] = [i.text for i in self.full["decisions"]] or None
        self.native["learnings"] = [i.text for i in self.full["learnings"]] or None
        self.native["summaries"] = [i.title for i in self.summaries] or None
        self.used_sections += sum(estimate(i.title) for i in self.summaries)

    def packet(self, budget_source: str) -> CtxPacket:
        """The packet: what was left out is ``budget-exhausted``; its ledger and warnings."""
        for item in (*self.tasks, *self.conventions, *self.decisions, *self.learnings):
            self.fates.setdefault(
                (item.source, item.line),
                _Fate("dropped", "budget-exhausted", "no budget left after the earlier sections"),
            )
        native, budget = self.native, self.budget
        tokens_used = self.tier1_tokens + self.used_sections
        native["tokens_used"] = tokens_used
        ordered = {
            k: native[k] for k in native if not (k in ("learnings", "summaries") and not native[k])
        }
        ledger = _ledger(
            self.ctx,
            self.rules,
            self.tasks,
            self.conventions,
            self.decisions,
            self.learnings,
            self.fates,
            self.scores,
            self.now,
        )
        over = tokens_used > budget
        warnings = list(self.ctx.warnings)
        if over:
            warnings.append(
                f"ctx 0.8.1 overshoots the budget by {tokens_used - budget} tokens "
                "(its Also Noted titles are not capped)"
            )
        return CtxPacket(
            generated=native["generated"],
            budget=budget,
            tokens_used=tokens_used,
            counter=COUNTER,
            over_budget=over,
            model=None,
            est_cost_usd=None,
            read_order=tuple(self.read_order),
            constitution=tuple(native["constitution"]),
            tasks=tuple(native["tasks"] or ()),
            conventions=tuple(native["conventions"] or ()),
            decisions=tuple(_entry(i, self.scores) for i in self.full["decisions"]),
            learnings=tuple(_entry(i, self.scores) for i in self.full["learnings"]),
            summaries=tuple(EntrySummary(i.section, i.title) for i in self.summaries),
            ledger_rows=tuple(ledger),
            allocation_rows=tuple(self.allocation),
            budget_source=budget_source,
            warnings=tuple(warnings),
            layout=self.ctx.layout,
            profile=PROFILE,
            native=ordered,
            display_dir=self.shown,
        )


def _entry(item: _Item, scores: Mapping[tuple[str, int], tuple[Any, ...]]) -> PacketEntry:
    day = item.stamp.date().isoformat() if item.stamp else None
    return PacketEntry(item.title, day, item.text, scores[(item.source, item.line)][4])


def _ledger(
    ctx: ProjectContext,
    rules: list[_Item],
    tasks: list[_Item],
    conventions: list[_Item],
    decisions: list[_Item],
    learnings: list[_Item],
    fates: Mapping[tuple[str, int], _Fate],
    scores: Mapping[tuple[str, int], tuple[int | None, float, float, list[str], float]],
    now: datetime,
) -> list[LedgerRow]:
    rows = []
    tiers = {"constitution": 1, "tasks": 2, "conventions": 3, "decisions": 4, "learnings": 5}
    for item in (*rules, *tasks, *conventions, *decisions, *learnings):
        fate = fates[(item.source, item.line)]
        score = scores.get((item.source, item.line))
        rows.append(
            LedgerRow(
                item.section,
                tiers[item.section],
                item.title or item.text,
                date=item.stamp.date().isoformat() if item.stamp else None,
                age_days=score[0] if score else None,
                recency=score[1] if score else None,
                relevance=round(score[2], 4) if score else None,
                keywords=tuple(score[3]) if score else (),
                score=score[4] if score else None,
                tokens=item.tokens,
                action=fate.action,
                reason=fate.reason,
                source=item.source,
                line=item.line,
                rule=fate.rule,
            )
        )
    return rows


def check_counter(counter: str | None) -> None:
    """The profile counts with ctx's estimate only: another counter is a usage error."""
    if counter not in (None, COUNTER):
        raise UsageError(
            f"the {PROFILE} profile counts with ctx's byte estimate ({COUNTER}) only, "
            f"not {counter!r}"
        )
