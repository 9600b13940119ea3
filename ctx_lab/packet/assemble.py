"""Assembling a context packet within a token budget, tier by tier (design:
smart-retrieval-packet.md, refined by the packet issue).

Tier 1 (read order, constitution, instruction) always goes in full. Tasks get up to 40 % of the
budget, conventions up to 20 %, steering files up to 20 % (whole files, by priority), decisions
and learnings share what remains in proportion to their content. Every item lands in the
ledger with its action and the reason for it, and the rendered Markdown is counted once more at
the end: the packet never exceeds its budget when the budget covers tier 1.
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from typing import Any, TypeVar

from cachetools import LRUCache

from ..clock import utc_now
from ..collector import paused
from ..errors import UsageError
from ..models import ModelRegistry, get_registry
from ..token_budget import resolve_token_budget
from ..tokens import (
    CounterChoice,
    CounterLike,
    CountingCache,
    TokenCounter,
    get_counter,
    resolve_counter,
)
from ..validate import choice
from . import ctx08
from .context import DEFAULT_TOKEN_BUDGET, ProjectContext
from .layout import (
    SECTION_TIERS,
    convention_line,
    counted_text,
    entry_block,
    noted_line,
    render_parts,
    rule_line,
    section_heading,
    steering_block,
    task_line,
    task_text,
)
from .markdown import Convention, Entry, Steering, Task
from .packet import (
    AllocationRow,
    EntrySummary,
    LazyRows,
    LedgerRow,
    Packet,
    PacketEntry,
    PacketSteering,
)
from .scoring import (
    DEFAULT_STOP_WORDS,
    Age,
    Bm25,
    EntryScore,
    age_of,
    extract_keywords,
    local_date,
    match_keys,
    relevance_score,
    score_with,
)
from .scoring import words as text_words

__all__ = [
    "PROFILES",
    "RELEVANCE_RULES",
    "PacketAssembler",
    "assemble_packet",
    "assembler_for",
    "resolve_budget",
]

FULL_SHARE_PERCENT = 80  # full entries may use this much of their side's share
STEERING_SHARE = 0.20  # steering files may use this much of the budget
RELEVANCE_RULES = ("auto", "keywords", "bm25")
# auto: keywords unless they saturate — when at least this share of the scored entries (and
# at least SATURATION_MIN of them) sit at the top keyword relevance, ranking is by recency
# alone, so BM25 ranks instead
SATURATION_SHARE = 0.5
SATURATION_MIN = 5
# …and when, among this many entries or more, the keyword rule leaves fewer distinct scores
DISCRIMINATE_MIN = 50
DISCRIMINATE_SCORES = 10
PROFILES = ("design", "ctx-0.8")  # the design doc's packet; what ctx 0.8.1 sends (ctx08.py)
Key = tuple[str, str, int]
T = TypeVar("T", Task, Convention, Steering)  # (section, source file, line): one item of the ledger
_OMITTED = (
    "omitted: not even the line counting it fits (the always-included parts and the other "
    "sections' lines take the budget)"
)
_TRIMMED = "trimmed after counting the rendered packet ({count} > budget {budget})"


def resolve_budget(
    ctx: ProjectContext,
    budget: int | None = None,
    model: str | None = None,
    registry: str | ModelRegistry | None = None,
    environ: Mapping[str, str] | None = None,
) -> tuple[int, str]:
    """The budget and where it came from: the argument, else the model's effective input
    budget, else ``CTX_TOKEN_BUDGET``, else the project's configuration, else 8000
    (:func:`ctx_lab.token_budget.resolve_token_budget`)."""
    if budget is not None or model is not None:
        return resolve_token_budget(
            budget, model, default=DEFAULT_TOKEN_BUDGET, registry=registry, environ=environ
        )
    return ctx.configured_budget(environ)


def _ordered(hits: tuple[str, ...], position: dict[str, int]) -> tuple[str, ...]:
    """The ``hits`` that are keywords now, in keyword order."""
    found = [k for k in hits if k in position]
    if len(found) > 1:
        found.sort(key=position.__getitem__)
    return tuple(found)


def _timestamp(now: datetime) -> str:
    aware = now if now.tzinfo is not None else now.astimezone()
    return aware.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _date(entry: Entry) -> str | None:
    return entry.day_text


def _key(section: str, item: Task | Convention | Entry | Steering) -> Key:
    return section, item.source, item.line


def _entry_warnings(entry: Entry) -> tuple[str, ...]:
    found = []
    if entry.in_comment:
        found.append("inside an HTML comment: move it below the comment's closing -->")
    if entry.timestamp is None:
        found.append(f"no such date [{entry.stamp}]: scored as undated")
    return tuple(found)


@dataclass
class _Fate:
    action: str
    reason: str


@dataclass(frozen=True)
class _Reasons:
    """The ledger's words for items fitted whole: when all fit, when one fits, for the
    ``i``-th left out; ``stop``: the first item that does not fit ends the section."""

    everything: str
    fits: Callable[[Any], str]
    missed: Callable[[int], str]
    stop: bool = False


@dataclass
class _Side:
    """The decisions or the learnings while they are being fitted."""

    name: str
    entries: list[Entry]
    scores: dict[tuple[str, int], EntryScore]
    full: list[Entry] = field(default_factory=list)
    summary: list[Entry] = field(default_factory=list)
    counted: list[Entry] = field(default_factory=list)
    dropped: list[Entry] = field(default_factory=list)
    cap: int = 0
    # the fate of the entries counted in one line when the share ran out (kept once, not
    # once per entry: on a large project that is most of them)
    counted_fate: _Fate | None = None
    count_left: int = 0  # tokens of the share left when counting began
    count_reserve: int = 0  # what the line counting the rest needs


@dataclass
class _Draft:
    tasks: list[Task]
    tasks_counted: list[Task]
    conventions: list[Convention]
    conventions_counted: list[Convention]
    decisions: _Side
    learnings: _Side
    hidden_counts: set[str] = field(default_factory=set)
    steering: list[Steering] = field(default_factory=list)
    steering_counted: list[Steering] = field(default_factory=list)

    def counted(self) -> dict[str, int]:
        numbers = {
            "tasks": len(self.tasks_counted),
            "conventions": len(self.conventions_counted),
            "steering": len(self.steering_counted),
            "decisions": len(self.decisions.counted),
            "learnings": len(self.learnings.counted),
        }
        return {k: v for k, v in numbers.items() if v and k not in self.hidden_counts}


class _Hits:
    """Which universe keywords match each entry, read from its bit mask on demand."""

    def __init__(self, masks: dict[int, int], keywords: list[str]) -> None:
        self.masks = masks
        self.keywords = keywords

    def get(self, key: int, default: tuple[str, ...] = ()) -> tuple[str, ...]:
        mask = self.masks.get(key)
        if not mask:
            return default
        found = []
        while mask:
            low = mask & -mask
            found.append(self.keywords[low.bit_length() - 1])
            mask ^= low
        return tuple(found)


class _Bm25Hits:
    """The query terms each entry holds under BM25, looked up per entry when a ledger is read."""

    def __init__(self, model: Bm25 | None, entries: Sequence[Entry], query: tuple[str, ...]):
        self.model = model
        self.position = {id(e): i for i, e in enumerate(entries)}
        self.query = tuple(dict.fromkeys(query))

    def get(self, key: int, default: tuple[str, ...] = ()) -> tuple[str, ...]:
        index = self.position.get(key)
        if self.model is None or index is None:
            return default
        return tuple(t for t in self.query if index in self.model.frequencies(t))


class PacketAssembler:
    """Assembles packets from one loaded context with one counter, caching token counts so
    re-assembly at other budgets or dates (sweeps, the explorer) costs little."""

    def __init__(
        self,
        ctx: ProjectContext,
        counter: CounterLike = "bytes/4",
        *,
        stop_words: Iterable[str] = DEFAULT_STOP_WORDS,
    ) -> None:
        self.ctx = ctx
        self.counter: TokenCounter = get_counter(counter)
        self.stop_words = frozenset(w.lower() for w in stop_words)
        self.counts = CountingCache(self.counter)
        self._universe: tuple[frozenset[str], _Hits] | None = None
        self._bits: dict[str, int] = {}  # universe keyword → its bit in the masks
        self._masks: dict[int, int] = {}  # entry → the bits of the universe keywords it matches
        self._ranked: dict[tuple[Any, ...], Any] = {}
        self._totals: dict[tuple[str, bool], int] = {}
        self._task_costs: dict[int, int] | None = None
        self._ages: tuple[date | None, dict[int, Age]] = (None, {})
        self._entry_costs: dict[int, int] = {}  # by entry identity: the context's own entries
        self._entry_words: dict[int, list[str]] = {}  # the same entries' words
        self._rules: dict[tuple[tuple[str, ...], date], tuple[str, str]] = {}  # auto's choices
        self._score_cache: dict[
            tuple[tuple[str, ...], date, str], dict[str, dict[tuple[str, int], EntryScore]]
        ] = {}
        self._bm25: Bm25 | None = None
        self._by_date: dict[str, list[Entry]] = {}  # each side newest first, then file order
        self._gone: dict[str, list[Entry]] = {}  # each side's superseded entries
        self._task_texts: dict[int, str] = {}  # a task as the packet shows it
        self._task_order: list[Task] | None = None  # pending tasks by rank
        self._keywords: dict[tuple[int, ...], list[str]] = {}  # included tasks → keywords
        # one assembly at a time: the REST server and widgets share assemblers across threads
        self._lock = threading.RLock()

    # -- counting ---------------------------------------------------------------------------

    def cost(self, text: str) -> int:
        """Tokens of ``text`` under this assembler's counter (memoized)."""
        return self.counts.count(text)

    def _count_parts(self, parts: list[tuple[str, str]]) -> dict[str, int]:
        counts = self.counts.count_many([text for _, text in parts])
        used: dict[str, int] = {}
        for (section, _), tokens in zip(parts, counts, strict=True):
            used[section] = used.get(section, 0) + tokens
        return used

    def _scores(
        self, keywords: tuple[str, ...], today: date, relevance: str = "keywords"
    ) -> dict[str, dict[tuple[str, int], EntryScore]]:
        """Scores of every decision and learning, kept per (keywords, day, rule): moving the
        budget slider re-scores nothing unless the included tasks change."""
        key = (keywords, today, relevance)
        found = self._score_cache.get(key)
        if found is None:
            sides = (("decisions", self.ctx.decisions), ("learnings", self.ctx.learnings))
            if self._ages[0] != today:
                self._ages = (today, {id(e): age_of(e, today) for _, es in sides for e in es})
            ages = self._ages[1]
            if relevance == "bm25":
                found = self._bm25_scores(keywords, ages)
            else:
                # Only the number of matches (up to 3) moves a score, so scores are shared
                # between entries of equal age and matches; which keywords matched is worked
                # out when a ledger is read.
                self._hits(keywords)
                wanted = sum(1 << self._bits[k] for k in set(keywords))
                masks = self._masks
                made: dict[tuple[Age, int, bool], EntryScore] = {}
                found = {}
                for side, entries in sides:
                    scored: dict[tuple[str, int], EntryScore] = {}
                    for e in entries:
                        n = min((masks[id(e)] & wanted).bit_count(), 3)
                        shared = (ages[id(e)], n, e.superseded)
                        known = made.get(shared)
                        if known is None:
                            known = made[shared] = score_with(
                                shared[0], (), e.superseded, relevance_score(n)
                            )
                        scored[e.key] = known
                    found[side] = scored
            if len(self._score_cache) >= 32:
                self._score_cache.pop(next(iter(self._score_cache)))
            self._score_cache[key] = found
        return found

    def _rule(
        self, relevance: str, keywords: tuple[str, ...], today: date, focus: str | None
    ) -> tuple[str, str]:
        """The relevance rule to rank by and, for ``auto``, why: keywords unless their scores
        saturate (see SATURATION_SHARE) — then BM25, which weighs rare words above common
        ones and the number of times they occur."""
        if relevance != "auto":
            return relevance, ""
        if focus is not None:
            return "keywords", "auto: keywords, as a focus was given"
        if not keywords:
            return "keywords", "auto: keywords (no task keywords to rank by)"
        known = self._rules.get((keywords, today))
        if known is None:
            if len(self._rules) >= 64:
                self._rules.clear()
            known = self._rules[(keywords, today)] = self._auto_rule(keywords, today)
        return known

    def _auto_rule(self, keywords: tuple[str, ...], today: date) -> tuple[str, str]:
        # the keyword rule's relevance of every entry, from the match masks alone (no scores)
        self._hits(keywords)
        wanted = sum(1 << self._bits[k] for k in set(keywords))
        masks = self._masks
        matches = [
            min((masks[id(e)] & wanted).bit_count(), 3)
            for e in (*self.ctx.decisions, *self.ctx.learnings)
        ]
        values = [relevance_score(n) for n in matches]
        top = max(values, default=0.0)
        at_top = sum(1 for v in values if v == top)
        if top > 0 and at_top >= SATURATION_MIN and at_top >= SATURATION_SHARE * len(values):
            return "bm25", (
                f"auto: BM25, as keyword relevance saturates ({at_top} of {len(values)} "
                f"decisions and learnings at {top:.2f})"
            )
        entries = (*self.ctx.decisions, *self.ctx.learnings)
        ages = self._ages[1] if self._ages[0] == today else {}
        distinct = len(
            {
                ((ages.get(id(e)) or age_of(e, today))[1], v)
                for e, v in zip(entries, values, strict=True)
                if not e.superseded
            }
        )
        if top > 0 and len(values) >= DISCRIMINATE_MIN and distinct < DISCRIMINATE_SCORES:
            return "bm25", (
                f"auto: BM25, as keyword relevance and recency give {len(values)} decisions and "
                f"learnings only {distinct} distinct scores"
            )
        return "keywords", (
            f"auto: keywords ({at_top} of {len(values)} decisions and learnings at the top "
            f"relevance {top:.2f})"
        )

    def _bm25_scores(
        self, query: tuple[str, ...], ages: dict[int, Age]
    ) -> dict[str, dict[tuple[str, int], EntryScore]]:
        """BM25 of every entry for ``query`` (IDF over the project's decisions and learnings),
        divided by the highest score so relevance lies in 0–1."""
        entries = (*self.ctx.decisions, *self.ctx.learnings)
        if self._bm25 is None:
            stop = self.stop_words
            documents = [
                {w: f for w, f in Counter(self._words(e)).items() if len(w) >= 3 and w not in stop}
                for e in entries
            ]  # the terms of :func:`terms`, counted
            self._bm25 = Bm25(documents)
        model = self._bm25
        raw = model.scores(query)
        top = max(raw, default=0.0)
        scored = {}
        # which query terms each entry holds is read from the index when a ledger asks
        # (_Bm25Hits), not worked out for every entry of every query
        for e, value in zip(entries, raw, strict=True):
            relevance = round(value / top, 6) if top > 0 else 0.0
            scored[id(e)] = score_with(ages[id(e)], (), e.superseded, relevance)
        return {
            side: {e.key: scored[id(e)] for e in es}
            for side, es in (("decisions", self.ctx.decisions), ("learnings", self.ctx.learnings))
        }

    def _words(self, e: Entry) -> list[str]:
        """An entry's words (title and body), read once for keyword matching and BM25."""
        found = self._entry_words.get(id(e))
        if found is None:
            found = self._entry_words[id(e)] = text_words(f"{e.title}\n{e.body}")
        return found

    def _hits(self, keywords: tuple[str, ...]) -> _Hits:
        """Per entry, which keywords of every pending task (a superset of any budget's
        keywords) match it, as a bit mask: computed once, so a budget's scoring only masks."""
        if self._universe is None or not set(keywords) <= self._universe[0]:
            words = set(keywords) | set(
                extract_keywords((t.text for t in self.ctx.pending_tasks), self.stop_words)
            )
            entries = (*self.ctx.decisions, *self.ctx.learnings)
            ordered = sorted(words)
            self._bits = {k: i for i, k in enumerate(ordered)}
            form_bits: dict[str, int] = {}  # a word → the bits of the keywords it matches
            for keyword, bit in self._bits.items():
                for form in match_keys(keyword):
                    form_bits[form] = form_bits.get(form, 0) | (1 << bit)
            masks: dict[int, int] = {}
            for e in entries:
                mask = 0
                for w in set(self._words(e)):
                    mask |= form_bits.get(w, 0)
                masks[id(e)] = mask
            self._masks = masks
            self._universe = (frozenset(words), _Hits(masks, ordered))
        return self._universe[1]

    # -- the pipeline -----------------------------------------------------------------------

    def assemble(
        self,
        budget: int | None = None,
        now: datetime | None = None,
        model: str | None = None,
        *,
        focus: str | None = None,
        relevance: str = "auto",
        steering: Iterable[str] = (),
        registry: str | ModelRegistry | None = None,
        environ: Mapping[str, str] | None = None,
        profile: str = "design",
        display_dir: str | None = None,
    ) -> Packet:
        """Assemble a packet; see :func:`assemble_packet`."""
        choice(profile, PROFILES, "profile")
        if profile == ctx08.PROFILE:
            ctx08.check_counter(self.counter.name)
            if focus or relevance not in ("auto", "keywords") or any(steering):
                raise UsageError(
                    f"the {ctx08.PROFILE} profile has no focus, relevance rule or steering: "
                    "ctx 0.8.1 has none"
                )
            size, source = resolve_budget(self.ctx, budget, model, registry, environ)
            return ctx08.assemble_ctx08(
                self.ctx, size, now, display_dir=display_dir, budget_source=source
            )
        choice(relevance, RELEVANCE_RULES, "relevance")
        with self._lock, paused():
            return self._assemble(budget, now, model, focus, relevance, steering, registry, environ)

    def _assemble(
        self,
        budget: int | None,
        now: datetime | None,
        model: str | None,
        focus: str | None,
        relevance: str,
        steering: Iterable[str],
        registry: str | ModelRegistry | None,
        environ: Mapping[str, str] | None,
    ) -> Packet:
        named = self._named_steering(steering)
        focus = focus.strip() if focus and focus.strip() else None
        focus_keywords = extract_keywords([focus], self.stop_words) if focus is not None else None
        budget, source = resolve_budget(self.ctx, budget, model, registry, environ)
        now = now or utc_now()
        generated = _timestamp(now)
        today = local_date(now)
        ctx = self.ctx
        fates: dict[Key, _Fate] = {}
        key = _key
        extra_warnings: list[str] = []
        if focus is not None and not focus_keywords:
            extra_warnings.append(
                f"focus {focus!r} has no keywords (words of 3 or more letters that are not "
                "stop words): the included tasks' keywords are used"
            )
            focus_keywords = None

        def parts_for(draft: _Draft, used: int | None) -> list[tuple[str, str]]:
            return render_parts(
                generated=generated,
                budget=budget,
                used=used,
                counter=self.counter.name,
                read_order=ctx.read_order,
                constitution=tuple(r.text for r in ctx.rules),
                tasks=tuple(self._task_text(t) for t in draft.tasks),
                conventions=tuple(c.text for c in draft.conventions),
                decisions=tuple(e.text for e in draft.decisions.full),
                learnings=tuple(e.text for e in draft.learnings.full),
                summaries=tuple(
                    EntrySummary(side.name, e.title)
                    for side in (draft.decisions, draft.learnings)
                    for e in side.summary
                ),
                counted=draft.counted(),
                steering=tuple((s.name, s.body) for s in draft.steering),
            )

        pending = list(ctx.pending_tasks)
        scores = dict(self._scores((), today))
        empty = _Draft(
            [],
            [],
            [],
            [],
            _Side("decisions", list(ctx.decisions), scores["decisions"]),
            _Side("learnings", list(ctx.learnings), scores["learnings"]),
        )
        tier1_parts = parts_for(empty, budget)
        tier1_cost = sum(self._count_parts(tier1_parts).values())
        _, tier1_count, _ = self._finalize(lambda used: parts_for(empty, used))

        if tier1_count > budget:
            reason = f"tier 1 alone costs {tier1_count} tokens, more than the budget {budget}"
            for t in pending:
                fates[key("tasks", t)] = _Fate("counted", reason)
            for c in ctx.conventions:
                fates[key("conventions", c)] = _Fate("counted", reason)
            for st in ctx.steering:
                fates[key("steering", st)] = _Fate("counted", reason)
            for side in (empty.decisions, empty.learnings):
                for e in side.entries:
                    fates[key(side.name, e)] = _Fate(
                        "superseded" if e.superseded else "counted", reason
                    )
            empty.hidden_counts.update(
                ("tasks", "conventions", "steering", "decisions", "learnings")
            )
            return self._packet(
                empty,
                fates,
                {},
                budget,
                source,
                generated,
                model,
                registry,
                True,
                [],
                "keywords" if relevance == "auto" else relevance,
                focus,
                extra_warnings,
            )

        remaining = budget - tier1_cost
        caps: dict[str, int] = {}

        # Tier 2: tasks.
        task_cap = min(math.floor(budget * ctx.settings.task_budget_pct + 1e-9), remaining)
        caps["tasks"] = task_cap
        tasks_in, tasks_out, tasks_used = self._fit_tasks(pending, task_cap, fates)
        remaining -= tasks_used

        # Tier 3: conventions.
        conv_cap = min(math.floor(budget * ctx.settings.convention_budget_pct + 1e-9), remaining)
        caps["conventions"] = conv_cap
        conv_in, conv_out, conv_used = self._fit_conventions(list(ctx.conventions), conv_cap, fates)
        remaining -= conv_used

        # The keywords: the focus's, else the included tasks'.
        keywords = focus_keywords if focus_keywords is not None else self._task_keywords(tasks_in)

        # Tier 3 too: steering files, whole, by priority — before history can starve them.
        steer_cap = min(math.floor(budget * STEERING_SHARE + 1e-9), remaining)
        caps["steering"] = steer_cap
        steer_in, steer_out, steer_used = self._fit_steering(steer_cap, set(keywords), named, fates)
        remaining -= steer_used

        # Tiers 4–5: decisions and learnings, scored against the keywords.
        relevance, relevance_reason = self._rule(relevance, tuple(keywords), today, focus)
        scores.update(self._scores(tuple(keywords), today, relevance))
        decisions = _Side("decisions", list(ctx.decisions), scores["decisions"])
        learnings = _Side("learnings", list(ctx.learnings), scores["learnings"])
        self._fit_entries(decisions, learnings, max(remaining, 0), fates)
        caps["decisions"], caps["learnings"] = decisions.cap, learnings.cap

        draft = _Draft(
            tasks_in,
            tasks_out,
            conv_in,
            conv_out,
            decisions,
            learnings,
            set(),
            steer_in,
            steer_out,
        )
        self._trim_to_budget(draft, budget, fates, parts_for)
        return self._packet(
            draft,
            fates,
            caps,
            budget,
            source,
            generated,
            model,
            registry,
            False,
            keywords,
            relevance,
            focus,
            extra_warnings,
            relevance_reason,
        )

    # -- tiers ------------------------------------------------------------------------------

    def _fit_items(
        self,
        section: str,
        items: Sequence[T],
        price: Callable[[T], int],
        cap: int,
        fates: dict[Key, _Fate],
        reasons: _Reasons,
        order: Sequence[T] | None = None,
    ) -> tuple[list[T], list[T], int]:
        """Whole items under a section heading within ``cap``: all of them when they fit,
        else those that fit in ``order`` (default: as given; ``reasons.stop`` ends at the
        first that does not), the others counted in one line. Returns (kept in the given
        order, counted, tokens used — the heading and count line included, even when they
        alone exceed ``cap``)."""
        if not items:
            return [], [], 0
        header = self.cost(section_heading(section))
        cost = {id(item): price(item) for item in items}
        total = header + sum(cost.values())
        if total <= cap:
            everything = _Fate("full", reasons.everything)
            fates.update((_key(section, item), everything) for item in items)
            return list(items), [], total
        used = header + self.cost(counted_text(section, len(items)))
        taken: set[int] = set()
        for item in order if order is not None else items:
            if used + cost[id(item)] <= cap:
                used += cost[id(item)]
                taken.add(id(item))
            elif reasons.stop:
                break
        kept = [item for item in items if id(item) in taken]
        rest = [item for item in items if id(item) not in taken]
        for item in kept:
            fates[_key(section, item)] = _Fate("full", reasons.fits(item))
        for i, item in enumerate(rest):
            fates[_key(section, item)] = _Fate("counted", reasons.missed(i))
        used = header + sum(cost[id(item)] for item in kept)
        # the line counting the rest is always written, even past the cap: what it costs
        # beyond the budget is taken back by demoting whole items (see _trim_to_budget)
        return kept, rest, used + self.cost(counted_text(section, len(rest)))

    def _fit_tasks(
        self,
        pending: list[Task],
        cap: int,
        fates: dict[Key, _Fate],
    ) -> tuple[list[Task], list[Task], int]:
        if self._task_costs is None:  # the same tasks at every budget: priced once
            self._task_costs = {
                t.line: self.cost(task_line(self._task_text(t))) for t in self.ctx.pending_tasks
            }
        known = self._task_costs

        def price(t: Task) -> int:
            return known[t.line] if t.line in known else self.cost(task_line(self._task_text(t)))

        def rank(t: Task) -> tuple[int, float, int]:
            if t.in_progress:
                return (0, 0.0, t.line)
            if t.added is not None:
                return (1, -t.added.timestamp(), t.line)
            return (2, 0.0, t.line)

        cap_text = f"tasks cap {round(self.ctx.settings.task_budget_pct * 100)} % = {cap} tokens"
        order = "in progress first, then newest #added, then untagged in file order"
        reasons = _Reasons(
            f"all pending tasks fit in the {cap_text}",
            lambda t: f"fits in the {cap_text} ({order})",
            lambda i: f"{cap_text} reached",
        )
        if self._task_order is None or len(self._task_order) != len(pending):
            self._task_order = sorted(pending, key=rank)
        return self._fit_items("tasks", pending, price, cap, fates, reasons, self._task_order)

    def _fit_conventions(
        self,
        conventions: list[Convention],
        cap: int,
        fates: dict[Key, _Fate],
    ) -> tuple[list[Convention], list[Convention], int]:
        pct = round(self.ctx.settings.convention_budget_pct * 100)
        cap_text = f"conventions cap {pct} % = {cap} tokens"
        reasons = _Reasons(
            f"all conventions fit in the {cap_text}",
            lambda c: f"fits in the {cap_text} (file order)",
            lambda i: (
                f"{cap_text} reached"
                if i == 0
                else f"after the first convention that did not fit ({cap_text})"
            ),
            stop=True,
        )
        return self._fit_items(
            "conventions",
            conventions,
            lambda c: self.cost(convention_line(c.text)),
            cap,
            fates,
            reasons,
        )

    def _named_steering(self, names: Iterable[str]) -> set[str]:
        """The steering files named by the caller (``manual`` ones are included only so)."""
        wanted = {n.strip() for n in names if n and n.strip()}
        known = {s.name for s in self.ctx.steering}
        unknown = sorted(wanted - known)
        if unknown:
            listed = ", ".join(sorted(known)) or "none"
            raise UsageError(
                f"no steering file named {', '.join(unknown)} in .context/steering/ "
                f"(known: {listed})"
            )
        return wanted

    def _fit_steering(
        self,
        cap: int,
        keywords: set[str],
        named: set[str],
        fates: dict[Key, _Fate],
    ) -> tuple[list[Steering], list[Steering], int]:
        """Applicable steering files, whole or not at all, in priority order (then name)."""
        candidates: list[Steering] = []
        for st in self.ctx.steering:
            if st.name in named or st.inclusion == "always":
                candidates.append(st)
            elif st.inclusion == "auto":
                described = extract_keywords([st.description], self.stop_words)
                if any(not keywords.isdisjoint(match_keys(k)) for k in described):
                    candidates.append(st)
                else:
                    why = (
                        "auto: no keyword of its description among the focus or task keywords"
                        if described
                        else "auto: its description has no keywords"
                    )
                    fates[_key("steering", st)] = _Fate("skipped", why)
            else:
                fates[_key("steering", st)] = _Fate(
                    "skipped", f"manual: included only when named (--steering {st.name})"
                )
        cap_text = f"steering cap {round(STEERING_SHARE * 100)} % = {cap} tokens"
        reasons = _Reasons(
            f"all applicable steering fits in the {cap_text}",
            lambda st: f"fits whole in the {cap_text} (priority {st.priority}, then name)",
            lambda i: f"does not fit whole in what is left of the {cap_text}",
        )
        return self._fit_items(
            "steering",
            candidates,
            lambda st: self.cost(steering_block(st.name, st.body)),
            cap,
            fates,
            reasons,
        )

    def _task_keywords(self, tasks: list[Task]) -> list[str]:
        """The keywords of the included tasks, kept per set of tasks."""
        key = tuple(t.line for t in tasks)
        found = self._keywords.get(key)
        if found is None:
            if len(self._keywords) >= 64:
                self._keywords.clear()
            found = self._keywords[key] = extract_keywords((t.text for t in tasks), self.stop_words)
        return found

    def _superseded(self, side: _Side) -> list[Entry]:
        found = self._gone.get(side.name)
        if found is None:
            found = self._gone[side.name] = [e for e in side.entries if e.superseded]
        return found

    def _task_text(self, task: Task) -> str:
        found = self._task_texts.get(id(task))
        if found is None:
            found = self._task_texts[id(task)] = task_text(task)
        return found

    def _entry_cost(self, entry: Entry) -> int:
        found = self._entry_costs.get(id(entry))
        if found is None:
            found = self._entry_costs[id(entry)] = self.cost(entry_block(entry.text))
        return found

    def _rank(self, side: _Side) -> list[Entry]:
        """The side's entries by score, newest first on ties, then file order — sorted once per
        set of scores (the scores themselves are kept per keyword set)."""
        key = (side.name, id(side.scores))
        known = self._ranked.get(key)
        if known is not None and known[0] is side.scores:
            return known[1]

        by_date = self._by_date.get(side.name)
        if by_date is None or len(by_date) != len(side.entries):

            def newest(e: Entry) -> tuple[float, int]:
                return (-e.timestamp.timestamp() if e.timestamp is not None else math.inf, e.index)

            by_date = self._by_date[side.name] = sorted(side.entries, key=newest)
        scores = side.scores
        ranked = sorted(by_date, key=lambda e: -scores[e.key].score)  # stable: ties by date
        if len(self._ranked) >= 64:
            self._ranked.clear()
        self._ranked[key] = (side.scores, ranked)
        return ranked

    def _live(self, side: _Side) -> tuple[list[Entry], list[int]]:
        """The ranked entries that are not superseded, and the suffix minimum of their costs
        (so filling stops as soon as nothing further down the ranking can fit)."""
        key = (side.name, id(side.scores), "live")
        known = self._ranked.get(key)
        if known is not None and known[0] is side.scores:
            return known[1], known[2]
        live = [e for e in self._rank(side) if not e.superseded]
        suffix = [0] * (len(live) + 1)
        suffix[len(live)] = math.inf  # type: ignore[call-overload]
        for i in range(len(live) - 1, -1, -1):
            suffix[i] = min(self._entry_cost(live[i]), suffix[i + 1])
        self._ranked[key] = (side.scores, live, suffix)
        return live, suffix

    def _fit_entries(
        self,
        decisions: _Side,
        learnings: _Side,
        remaining: int,
        fates: dict[Key, _Fate],
    ) -> None:
        sides = (decisions, learnings)
        header = {s.name: self.cost(section_heading(s.name)) for s in sides}

        def total(side: _Side, include_superseded: bool) -> int:
            key = (side.name, include_superseded)
            if key not in self._totals:
                chosen = [e for e in side.entries if include_superseded or not e.superseded]
                cost = sum(self._entry_cost(e) for e in chosen)
                self._totals[key] = header[side.name] + cost if chosen else 0
            return self._totals[key]

        everything = sum(total(s, True) for s in sides)
        current = sum(total(s, False) for s in sides)
        if current <= remaining:
            with_superseded = everything <= remaining
            for side in sides:
                side.cap = total(side, with_superseded)
                for e in self._rank(side):
                    if not e.superseded:
                        side.full.append(e)
                        fates[(side.name, e.source, e.line)] = _Fate(
                            "full",
                            f"all decisions and learnings fit in the remaining {remaining} tokens",
                        )
                    elif with_superseded:
                        side.full.append(e)
                        fates[(side.name, e.source, e.line)] = _Fate(
                            "full", "superseded, but everything including superseded entries fits"
                        )
                    else:
                        side.dropped.append(e)
                        fates[(side.name, e.source, e.line)] = _Fate(
                            "superseded", "superseded: dropped (only included when everything fits)"
                        )
            return

        content = {s.name: max(total(s, False) - header[s.name], 0) for s in sides}
        both = content["decisions"] + content["learnings"]
        decisions.cap = remaining * content["decisions"] // both if both else 0
        learnings.cap = remaining - decisions.cap
        also_header = self.cost(section_heading("also_noted"))
        also_charged = False
        for side in sides:
            also_charged = self._fill_side(
                side, header[side.name], also_header, also_charged, fates
            )

    def _fill_side(
        self,
        side: _Side,
        header: int,
        also_header: int,
        also_charged: bool,
        fates: dict[Key, _Fate],
    ) -> bool:
        share = side.cap
        full_room = share * FULL_SHARE_PERCENT // 100
        used = 0
        ranked, cheapest = self._live(side)
        superseded = _Fate("superseded", "superseded: dropped (only included when everything fits)")
        gone = self._superseded(side)
        side.dropped.extend(gone)
        fates.update(dict.fromkeys(((side.name, e.source, e.line) for e in gone), superseded))
        rest: list[Entry] = []
        for position, e in enumerate(ranked):
            if used + cheapest[position] + (0 if side.full else header) > full_room:
                rest.extend(ranked[position:])  # nothing from here on fits in full
                break
            extra = self._entry_cost(e) + (0 if side.full else header)
            if used + extra <= full_room:
                fates[(side.name, e.source, e.line)] = _Fate(
                    "full",
                    f"score {side.scores[e.key].score:.2f}: needs {extra}"
                    f"{'' if side.full else ' with the heading'}, {full_room - used} left "
                    f"of {FULL_SHARE_PERCENT} % of the {side.name} share ({full_room} of {share})",
                )
                used += extra
                side.full.append(e)
            else:
                rest.append(e)
        full_left = full_room - used
        for i, e in enumerate(rest):
            left_after = len(rest) - i - 1
            reserve = self.cost(counted_text(side.name, left_after)) if left_after else 0
            extra = self.cost(noted_line(e.title)) + (0 if also_charged else also_header)
            if used + extra + reserve <= share:
                used += extra
                also_charged = True
                side.summary.append(e)
                fates[(side.name, e.source, e.line)] = _Fate(
                    "summary",
                    f"in full it needs {self._entry_cost(e)}, {full_left} left of "
                    f"{FULL_SHARE_PERCENT} % of the {side.name} share ({full_room} of {share}); "
                    "title under Also Noted",
                )
            else:
                side.counted.extend(rest[i:])
                side.count_left, side.count_reserve = share - used, reserve
                break
        if side.counted:  # its line is written whatever the share left (see _fit_items)
            also_charged = True
            side.counted_fate = _Fate(
                "counted", f"{side.name} share of {share} used up; counted in one line"
            )
        return also_charged

    # -- final count ------------------------------------------------------------------------

    def _finalize(
        self, build: Callable[[int | None], list[tuple[str, str]]]
    ) -> tuple[str, int, bool]:
        """Render so that the stated token count is the count of the text itself."""
        used = self.cost("".join(t for _, t in build(0)))
        seen: set[int] = set()
        while used not in seen:
            seen.add(used)
            text = "".join(t for _, t in build(used))
            count = self.cost(text)
            if count == used:
                return text, used, True
            used = count
        text = "".join(t for _, t in build(None))
        return text, self.cost(text), False

    def _trim_to_budget(
        self,
        draft: _Draft,
        budget: int,
        fates: dict[Key, _Fate],
        parts_for: Callable[[_Draft, int | None], list[tuple[str, str]]],
    ) -> None:
        while True:
            _, count, _ = self._finalize(lambda used: parts_for(draft, used))
            if count <= budget:
                return
            why = _TRIMMED.format(count=count, budget=budget)
            if not self._demote_one(draft, fates, why):
                return

    def _demote_one(self, draft: _Draft, fates: dict[Key, _Fate], why: str) -> bool:
        for side in (draft.learnings, draft.decisions):
            if side.summary:
                e = side.summary.pop()
                side.counted.append(e)
                fates[(side.name, e.source, e.line)] = _Fate("counted", why)
                return True
        fulls = [(side, e) for side in (draft.decisions, draft.learnings) for e in side.full]
        if fulls:
            side, e = min(fulls, key=lambda p: (p[0].scores[p[1].key].score, -p[1].index))
            side.full.remove(e)
            if e.superseded:
                side.dropped.append(e)
                fates[(side.name, e.source, e.line)] = _Fate("superseded", why)
            else:
                side.counted.append(e)
                fates[(side.name, e.source, e.line)] = _Fate("counted", why)
            return True
        if draft.steering:
            st = draft.steering.pop()
            draft.steering_counted.insert(0, st)
            fates[_key("steering", st)] = _Fate("counted", why)
            return True
        if draft.conventions:
            c = draft.conventions.pop()
            draft.conventions_counted.insert(0, c)
            fates[_key("conventions", c)] = _Fate("counted", why)
            return True
        if draft.tasks:
            t = draft.tasks.pop()
            draft.tasks_counted.append(t)
            fates[_key("tasks", t)] = _Fate("counted", why)
            return True
        for section in ("learnings", "decisions", "steering", "conventions", "tasks"):
            if section in draft.counted():  # the last resort: its count line goes too
                draft.hidden_counts.add(section)
                return True
        return False

    # -- the result -------------------------------------------------------------------------

    def _packet(
        self,
        draft: _Draft,
        fates: dict[Key, _Fate],
        caps: dict[str, int],
        budget: int,
        source: str,
        generated: str,
        model: str | None,
        registry: str | ModelRegistry | None,
        over_budget: bool,
        keywords: list[str],
        relevance: str,
        focus: str | None,
        extra_warnings: list[str],
        relevance_reason: str = "",
    ) -> Packet:
        ctx = self.ctx
        probe = Packet(
            generated=generated,
            budget=budget,
            tokens_used=0,
            counter=self.counter.name,
            over_budget=over_budget,
            model=model,
            est_cost_usd=None,
            read_order=ctx.read_order,
            constitution=tuple(r.text for r in ctx.rules),
            tasks=tuple(self._task_text(t) for t in draft.tasks),
            conventions=tuple(c.text for c in draft.conventions),
            steering=tuple(PacketSteering(st.name, st.source, st.body) for st in draft.steering),
            decisions=tuple(self._packet_entry(draft.decisions, e) for e in draft.decisions.full),
            learnings=tuple(self._packet_entry(draft.learnings, e) for e in draft.learnings.full),
            summaries=tuple(
                EntrySummary(side.name, e.title)
                for side in (draft.decisions, draft.learnings)
                for e in side.summary
            ),
            counted=draft.counted(),
        )

        def with_used(used: int | None) -> list[tuple[str, str]]:
            return replace(
                probe, tokens_used=used or 0, states_tokens_used=used is not None
            ).parts()

        _, tokens_used, states = self._finalize(with_used)
        used_by = self._count_parts(with_used(tokens_used if states else None))
        est_cost = None
        if model is not None:
            est_cost = get_registry(registry).get(model).input_cost(tokens_used)
        return replace(
            probe,
            tokens_used=tokens_used,
            states_tokens_used=states,
            est_cost_usd=est_cost,
            ledger_rows=LazyRows(lambda: self._locked_ledger(draft, fates, keywords, relevance)),
            allocation_rows=tuple(self._allocation(draft, caps, used_by)),
            budget_source=source,
            warnings=(*ctx.warnings, *extra_warnings),
            relevance=relevance,
            relevance_reason=relevance_reason,
            focus=focus,
        )

    def _locked_ledger(
        self, draft: _Draft, fates: dict[Key, _Fate], keywords: list[str], relevance: str
    ) -> list[LedgerRow]:
        with self._lock:
            return self._ledger(draft, fates, keywords, relevance)

    @staticmethod
    def _packet_entry(side: _Side, e: Entry) -> PacketEntry:
        return PacketEntry(e.title, _date(e), e.text, side.scores[e.key].score)

    def _ledger(
        self,
        draft: _Draft,
        fates: dict[Key, _Fate],
        keywords: list[str],
        relevance: str = "keywords",
    ) -> list[LedgerRow]:
        ctx = self.ctx
        position = {k: i for i, k in enumerate(keywords)}
        hits: _Hits | _Bm25Hits = (
            self._hits(tuple(keywords))
            if relevance == "keywords"
            else _Bm25Hits(self._bm25, (*ctx.decisions, *ctx.learnings), tuple(keywords))
        )
        rows = [
            LedgerRow(
                "constitution",
                1,
                r.text,
                tokens=self.cost(rule_line(r.text)),
                reason="tier 1: always included",
                source=".context/CONSTITUTION.md",
                line=r.line,
            )
            for r in ctx.rules
        ]

        def whole(
            section: str,
            item: Task | Convention | Steering,
            title: str,
            tokens: int,
            date: str | None = None,
            suffix: str = "",
        ) -> LedgerRow:
            fate = fates.get(_key(section, item), _Fate("counted", f"no room for {section}"))
            return LedgerRow(
                section,
                SECTION_TIERS[section],
                title,
                date=date,
                tokens=tokens,
                action=fate.action,
                reason=fate.reason + suffix,
                source=item.source or None,
                line=item.line,
            )

        rows += [
            whole(
                "tasks",
                t,
                t.text,
                self.cost(task_line(task_text(t))),
                date=t.added.date().isoformat() if t.added else None,
            )
            for t in ctx.pending_tasks
        ]
        rows += [
            whole("conventions", c, c.title, self.cost(convention_line(c.text)))
            for c in ctx.conventions
        ]
        rows += [
            whole(
                "steering",
                st,
                st.name,
                self.cost(steering_block(st.name, st.body)),
                suffix=f" ({st.inclusion}, priority {st.priority})",
            )
            for st in ctx.steering
        ]
        no_room = _Fate("counted", "no room left")
        for side, tier in ((draft.decisions, 4), (draft.learnings, 5)):
            for e in side.entries:
                s = side.scores[e.key]
                fate = fates.get(_key(side.name, e)) or side.counted_fate or no_room
                if fate is side.counted_fate:  # say why this one: its title against what was left
                    fate = _Fate(
                        "counted",
                        f"{side.name} share of {side.cap} used up: its title needs "
                        f"{self.cost(noted_line(e.title))} and the line counting the rest "
                        f"{side.count_reserve}, {side.count_left} left; counted in one line",
                    )
                reason = (
                    fate.reason
                    if not s.note or s.note == "superseded"
                    else f"{fate.reason}; {s.note}"
                )
                if e.in_comment:
                    reason += "; inside an HTML comment"
                rows.append(
                    LedgerRow(
                        side.name,
                        tier,
                        e.title,
                        date=_date(e),
                        age_days=s.age_days,
                        recency=s.recency,
                        relevance=round(s.relevance, 4),
                        keywords=s.keywords or _ordered(hits.get(id(e), ()), position),
                        score=s.score,
                        tokens=self._entry_cost(e),
                        action=fate.action,
                        reason=reason,
                        source=e.source or None,
                        warnings=_entry_warnings(e),
                        line=e.line,
                    )
                )
        if draft.hidden_counts:  # no line counts them: say so rather than "counted"
            rows = [
                replace(r, action="omitted", reason=f"{r.reason}; {_OMITTED}")
                if r.action == "counted" and r.section in draft.hidden_counts
                else r
                for r in rows
            ]
        return rows

    @staticmethod
    def _allocation(
        draft: _Draft, caps: dict[str, int], used_by: dict[str, int]
    ) -> list[AllocationRow]:
        rows = [
            AllocationRow(name, SECTION_TIERS[name], None, used_by.get(name, 0))
            for name in ("header", "read_order", "constitution", "instruction")
        ]
        rows.append(
            AllocationRow(
                "tasks",
                2,
                caps.get("tasks"),
                used_by.get("tasks", 0),
                len(draft.tasks),
                0,
                len(draft.tasks_counted),
            )
        )
        rows.append(
            AllocationRow(
                "conventions",
                3,
                caps.get("conventions"),
                used_by.get("conventions", 0),
                len(draft.conventions),
                0,
                len(draft.conventions_counted),
            )
        )
        if draft.steering or draft.steering_counted:
            rows.append(
                AllocationRow(
                    "steering",
                    3,
                    caps.get("steering"),
                    used_by.get("steering", 0),
                    len(draft.steering),
                    0,
                    len(draft.steering_counted),
                )
            )
        for side, tier in ((draft.decisions, 4), (draft.learnings, 5)):
            rows.append(
                AllocationRow(
                    side.name,
                    tier,
                    caps.get(side.name),
                    used_by.get(side.name, 0),
                    len(side.full),
                    len(side.summary),
                    len(side.counted),
                )
            )
        return rows


_ASSEMBLERS: LRUCache[tuple[int, str], tuple[ProjectContext, PacketAssembler]] = LRUCache(
    maxsize=16
)
_ASSEMBLERS_LOCK = threading.Lock()


def assembler_for(ctx: ProjectContext, counter: CounterLike = "bytes/4") -> PacketAssembler:
    """A shared assembler for ``ctx`` and a counter given by name: the CLI, ``%ctx`` and REST
    re-assembling an unchanged ``.context/`` (which :func:`load_context` returns as the same
    object) at another budget reuse its parsed scores and token counts. Other counters get a
    fresh assembler."""
    if not isinstance(counter, str):
        return PacketAssembler(ctx, counter)
    key = (id(ctx), counter)
    with _ASSEMBLERS_LOCK:
        found = _ASSEMBLERS.get(key)
        if found is not None and found[0] is ctx:
            return found[1]
    made = PacketAssembler(ctx, counter)
    with _ASSEMBLERS_LOCK:
        _ASSEMBLERS[key] = (ctx, made)
    return made


def assemble_packet(
    ctx: ProjectContext,
    budget: int | None = None,
    now: datetime | None = None,
    counter: CounterLike | None = None,
    model: str | None = None,
    *,
    registry: str | ModelRegistry | None = None,
    stop_words: Iterable[str] = DEFAULT_STOP_WORDS,
    environ: Mapping[str, str] | None = None,
    focus: str | None = None,
    relevance: str = "auto",
    steering: Iterable[str] = (),
    profile: str = "design",
    display_dir: str | None = None,
) -> Packet:
    """Assemble a context packet from a loaded ``.context/``.

    Budget precedence: ``budget``; else ``model``'s effective input budget; else
    ``CTX_TOKEN_BUDGET``; else ``.ctxrc``; else 8000. ``now`` (default: the current time) dates
    the packet and the entries' ages; the same inputs and ``now`` give byte-identical output.
    Whenever the budget covers tier 1, the Markdown's count under ``counter`` is ≤ the budget
    and equals ``tokens_used``; otherwise the packet is tier 1 only with ``over_budget``.

    Decisions and learnings are scored ``recency + relevance``; ``relevance`` picks the rule:
    ``keywords`` (matched keywords / 3, capped at 1), ``bm25`` (Okapi BM25 over the project's
    decisions and learnings, divided by the highest score) or ``auto`` (the default: keywords
    unless, with no focus, at least half of the entries share the top keyword relevance or 50
    or more would get fewer than 10 distinct scores — then bm25; the packet's ``relevance`` and
    ``relevance_reason`` say which and why). The
    query is ``focus``'s keywords when given, else the included tasks'. Steering files apply
    when ``always``, when ``auto`` and a keyword of their description is among those keywords,
    or when named in ``steering``.

    ``counter`` defaults to the model's own tokenizer when ``model`` is given (``"model"``:
    o200k for GPT-4o …, a named estimate marked inexact for models whose tokenizer ctx_lab does
    not have), else to ``bytes/4``.

    ``profile="ctx-0.8"`` reproduces what ``ctx agent`` 0.8.1 sends instead, bugs included
    (:mod:`ctx_lab.packet.ctx08`; counted with ctx's byte estimate only, ``display_dir`` the
    directory string it prints and counts — default the absolute ``.context/`` path).
    """
    choice = packet_counter(counter, model, profile)
    packet = PacketAssembler(ctx, choice.use, stop_words=stop_words).assemble(
        budget,
        now,
        model,
        focus=focus,
        relevance=relevance,
        steering=steering,
        registry=registry,
        environ=environ,
        profile=profile,
        display_dir=display_dir,
    )
    return with_counter(packet, choice)


def packet_counter(counter: CounterLike | None, model: str | None, profile: str) -> CounterChoice:
    """The counter a packet counts with: ``counter``; none given, the model's own tokenizer
    when a model is given (``counter="model"``), else ``bytes/4``. The ctx-0.8 profile always
    counts with ctx's byte estimate. Counter objects are taken as they are."""
    if profile == ctx08.PROFILE:
        ctx08.check_counter(counter if isinstance(counter, str) or counter is None else "custom")
        return CounterChoice(ctx08.COUNTER, ctx08.COUNTER, False)
    if counter is not None and not isinstance(counter, str):
        made = get_counter(counter)
        return CounterChoice(made.name, made.name, made.exact, "", made)
    return resolve_counter(counter, model, "bytes/4")


def with_counter(packet: Packet, choice: CounterChoice) -> Packet:
    """The packet saying which counter counted it, what was asked for, and whether it is the
    model's real tokenizer (an estimate standing in for a model is also a warning)."""
    warnings = (*packet.warnings, choice.note) if choice.note else packet.warnings
    return replace(
        packet, counter_requested=choice.requested, exact=choice.exact, warnings=warnings
    )
