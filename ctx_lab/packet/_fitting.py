"""Fitting a packet's sections into their shares of one budget: tasks, conventions and steering
files whole (by rank), decisions and learnings in full, as Also Noted titles or counted — every
item's fate recorded for the ledger. One :class:`Fitter` per loaded context keeps what does not
change between budgets (the order of tasks, the ranking per set of scores, section totals).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from ..errors import UsageError
from ._cache import Memo
from ._context import ProjectContext
from ._draft import Fate, Fates, Reasons, Side, key
from ._layout import convention_line, counted_text, noted_line, section_heading, steering_block
from ._markdown import Convention, Entry, Steering, Task
from ._prices import Prices
from ._ranking import Ranking
from ._scoring import extract_keywords, match_keys

__all__ = ["FULL_SHARE_PERCENT", "STEERING_SHARE", "Fitter"]

FULL_SHARE_PERCENT = 80  # full entries may use this much of their side's share
STEERING_SHARE = 0.20  # steering files may use this much of the budget
T = TypeVar("T", Task, Convention, Steering)


class Fitter(Ranking):
    """Fits one context's items into budgets, with one set of prices."""

    def __init__(self, ctx: ProjectContext, prices: Prices, stop_words: frozenset[str]) -> None:
        self.ctx = ctx
        self.prices = prices
        self.stop_words = stop_words
        self._ranked: Memo[tuple[str, int, str], tuple[object, ...]] = Memo(64)
        self._totals: dict[tuple[str, bool], int] = {}  # per side, with or without superseded
        self._task_order: list[Task] | None = None  # pending tasks by rank
        self._by_date: dict[str, list[Entry]] = {}  # each side newest first, then file order
        # each side's entry keys in file order, its by-date order as positions in them, and
        # each by-date entry's cost in full (None: superseded)
        self._layout: dict[
            str, tuple[list[tuple[str, int]], list[int], list[int | None], list[bool]]
        ] = {}
        self._gone: dict[str, list[Entry]] = {}  # each side's superseded entries
        self._keywords: Memo[tuple[int, ...], list[str]] = Memo(64)  # included tasks → keywords

    def caches(self) -> dict[str, object]:
        """Every cache this holds, by name (for the boundedness checks)."""
        return {
            "ranked": self._ranked,
            "totals": self._totals,
            "by_date": self._by_date,
            "layout": self._layout,
            "gone": self._gone,
            "keywords": self._keywords,
        }

    # -- items fitted whole -----------------------------------------------------------------

    def fit_items(
        self,
        section: str,
        items: Sequence[T],
        price: Callable[[T], int],
        cap: int,
        fates: Fates,
        reasons: Reasons,
        order: Sequence[T] | None = None,
    ) -> tuple[list[T], list[T], int]:
        """Whole items under a section heading within ``cap``: all of them when they fit,
        else those that fit in ``order`` (default: as given; ``reasons.stop`` ends at the
        first that does not), the others counted in one line. Returns (kept in the given
        order, counted, tokens used — the heading and count line included, even when they
        alone exceed ``cap``)."""
        if not items:
            return [], [], 0
        cost_of = self.prices.cost
        header = cost_of(section_heading(section))
        cost = {id(item): price(item) for item in items}
        total = header + sum(cost.values())
        if total <= cap:
            everything = Fate("full", reasons.everything)
            fates.update((key(section, item), everything) for item in items)
            return list(items), [], total
        used = header + cost_of(counted_text(section, len(items)))
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
            fates[key(section, item)] = Fate("full", reasons.fits(item))
        for i, item in enumerate(rest):
            fates[key(section, item)] = Fate("counted", reasons.missed(i))
        used = header + sum(cost[id(item)] for item in kept)
        # the line counting the rest is always written, even past the cap: what it costs
        # beyond the budget is taken back by demoting whole items (see trim_to_budget)
        return kept, rest, used + cost_of(counted_text(section, len(rest)))

    def fit_tasks(
        self, pending: list[Task], cap: int, fates: Fates
    ) -> tuple[list[Task], list[Task], int]:
        """Pending tasks by rank: in progress first, then newest ``#added``, then the rest."""

        def rank(t: Task) -> tuple[int, float, int]:
            if t.in_progress:
                return (0, 0.0, t.line)
            if t.added is not None:
                return (1, -t.added.timestamp(), t.line)
            return (2, 0.0, t.line)

        cap_text = f"tasks cap {round(self.ctx.settings.task_budget_pct * 100)} % = {cap} tokens"
        order = "in progress first, then newest #added, then untagged in file order"
        reasons = Reasons(
            f"all pending tasks fit in the {cap_text}",
            lambda t: f"fits in the {cap_text} ({order})",
            lambda i: f"{cap_text} reached",
        )
        if self._task_order is None or len(self._task_order) != len(pending):
            self._task_order = sorted(pending, key=rank)
        return self.fit_items(
            "tasks", pending, self.prices.task_cost, cap, fates, reasons, self._task_order
        )

    def fit_conventions(
        self, conventions: list[Convention], cap: int, fates: Fates
    ) -> tuple[list[Convention], list[Convention], int]:
        """Conventions in file order, up to the first that does not fit."""
        pct = round(self.ctx.settings.convention_budget_pct * 100)
        cap_text = f"conventions cap {pct} % = {cap} tokens"
        reasons = Reasons(
            f"all conventions fit in the {cap_text}",
            lambda c: f"fits in the {cap_text} (file order)",
            lambda i: (
                f"{cap_text} reached"
                if i == 0
                else f"after the first convention that did not fit ({cap_text})"
            ),
            stop=True,
        )
        return self.fit_items(
            "conventions",
            conventions,
            lambda c: self.prices.cost(convention_line(c.text)),
            cap,
            fates,
            reasons,
        )

    def named_steering(self, names: Iterable[str]) -> set[str]:
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

    def fit_steering(
        self, cap: int, keywords: set[str], named: set[str], fates: Fates
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
                    fates[key("steering", st)] = Fate("skipped", why)
            else:
                fates[key("steering", st)] = Fate(
                    "skipped", f"manual: included only when named (--steering {st.name})"
                )
        cap_text = f"steering cap {round(STEERING_SHARE * 100)} % = {cap} tokens"
        reasons = Reasons(
            f"all applicable steering fits in the {cap_text}",
            lambda st: f"fits whole in the {cap_text} (priority {st.priority}, then name)",
            lambda i: f"does not fit whole in what is left of the {cap_text}",
        )
        return self.fit_items(
            "steering",
            candidates,
            lambda st: self.prices.cost(steering_block(st.name, st.body)),
            cap,
            fates,
            reasons,
        )

    def task_keywords(self, tasks: list[Task]) -> list[str]:
        """The keywords of the included tasks, kept per set of tasks."""
        return self._keywords.get_or_make(
            tuple(t.line for t in tasks),
            lambda _: extract_keywords((t.text for t in tasks), self.stop_words),
        )

    # -- decisions and learnings ------------------------------------------------------------

    def _superseded(self, side: Side) -> list[Entry]:
        found = self._gone.get(side.name)
        if found is None:
            found = self._gone[side.name] = [e for e in side.entries if e.superseded]
        return found

    def fit_entries(self, decisions: Side, learnings: Side, remaining: int, fates: Fates) -> None:
        """Decisions and learnings in ``remaining`` tokens: all of them when they fit, else
        each side its share (in proportion to content), filled by rank."""
        sides = (decisions, learnings)
        cost = self.prices.cost
        header = {s.name: cost(section_heading(s.name)) for s in sides}

        def total(side: Side, include_superseded: bool) -> int:
            found = (side.name, include_superseded)
            if found not in self._totals:
                chosen = [e for e in side.entries if include_superseded or not e.superseded]
                spent = sum(self.prices.entry_cost(e) for e in chosen)
                self._totals[found] = header[side.name] + spent if chosen else 0
            return self._totals[found]

        everything = sum(total(s, True) for s in sides)
        current = sum(total(s, False) for s in sides)
        if current <= remaining:
            with_superseded = everything <= remaining
            for side in sides:
                side.cap = total(side, with_superseded)
                for e in self.rank(side):
                    if not e.superseded:
                        side.full.append(e)
                        fates[key(side.name, e)] = Fate(
                            "full",
                            f"all decisions and learnings fit in the remaining {remaining} tokens",
                        )
                    elif with_superseded:
                        side.full.append(e)
                        fates[key(side.name, e)] = Fate(
                            "full", "superseded, but everything including superseded entries fits"
                        )
                    else:
                        side.dropped.append(e)
                        fates[key(side.name, e)] = Fate(
                            "superseded", "superseded: dropped (only included when everything fits)"
                        )
            return

        content = {s.name: max(total(s, False) - header[s.name], 0) for s in sides}
        both = content["decisions"] + content["learnings"]
        decisions.cap = remaining * content["decisions"] // both if both else 0
        learnings.cap = remaining - decisions.cap
        also_header = cost(section_heading("also_noted"))
        also_charged = False
        for side in sides:
            also_charged = self._fill_side(
                side, header[side.name], also_header, also_charged, fates
            )

    def _fill_side(
        self, side: Side, header: int, also_header: int, also_charged: bool, fates: Fates
    ) -> bool:
        share = side.cap
        full_room = share * FULL_SHARE_PERCENT // 100
        used = 0
        kept, cheapest = self.live(side)
        by_date = self.by_date(side)
        superseded = Fate("superseded", "superseded: dropped (only included when everything fits)")
        gone = self._superseded(side)
        side.dropped.extend(gone)
        fates.update(dict.fromkeys((key(side.name, e) for e in gone), superseded))
        entry_cost = self.prices.entry_cost
        # what did not fit in full, in ranking order: the entries passed over one at a time,
        # then every entry from ``tail`` on (positions in ``kept``; the fill stops early, and
        # the rest stays positions — on a large project that is most of the entries)
        skipped: list[Entry] = []
        tail = len(kept)
        for position, i in enumerate(kept):
            if used + cheapest[position] + (0 if side.full else header) > full_room:
                tail = position  # nothing from here on fits in full
                break
            e = by_date[i]
            extra = entry_cost(e) + (0 if side.full else header)
            if used + extra <= full_room:
                room = (
                    f"{full_room - used} left of {FULL_SHARE_PERCENT} % of the {side.name} share "
                    f"({full_room} of {share})"
                )
                needs = f"needs {extra}{'' if side.full else ' with the heading'}"
                score = side.scores[e.key].score
                if skipped:  # higher-scored entries were too large for what was left: first fit
                    n = len(skipped)
                    higher = f"{n} higher-scored {'entry' if n == 1 else 'entries'}"
                    why = (
                        f"first fit: {higher} did not fit in full, but this one (score "
                        f"{score:.2f}) {needs}, and {room}"
                    )
                else:
                    why = f"score {score:.2f}: {needs}, {room}"
                fates[key(side.name, e)] = Fate("full", why)
                used += extra
                side.full.append(e)
            else:
                skipped.append(e)
        full_left = full_room - used
        cost = self.prices.cost
        rest = len(skipped) + len(kept) - tail
        for j in range(rest):
            e = skipped[j] if j < len(skipped) else by_date[kept[tail + j - len(skipped)]]
            left_after = rest - j - 1
            reserve = cost(counted_text(side.name, left_after)) if left_after else 0
            extra = cost(noted_line(e.title)) + (0 if also_charged else also_header)
            if used + extra + reserve <= share:
                used += extra
                also_charged = True
                side.summary.append(e)
                fates[key(side.name, e)] = Fate(
                    "summary",
                    f"in full it needs {entry_cost(e)}, {full_left} left of "
                    f"{FULL_SHARE_PERCENT} % of the {side.name} share ({full_room} of {share}); "
                    "title under Also Noted",
                )
            else:
                start = tail + max(j - len(skipped), 0)
                side.counted.take(skipped[j:], by_date, kept[start:])
                side.count_left, side.count_reserve = share - used, reserve
                break
        if side.counted:  # its line is written whatever the share left (see fit_items)
            also_charged = True
            side.counted_fate = Fate(
                "counted", f"{side.name} share of {share} used up; counted in one line"
            )
        return also_charged
