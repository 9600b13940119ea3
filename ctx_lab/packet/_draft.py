"""A packet while it is being fitted: what each section keeps, counts or drops, and each item's
fate (its ledger action and the reason) — and how a draft over budget gives items back."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

from ._markdown import Convention, Entry, Steering, Task
from ._scoring import EntryScore

__all__ = ["OMITTED", "TRIMMED", "Draft", "Fate", "Fates", "Key", "Reasons", "Side", "key"]

Key = tuple[str, str, int]  # (section, source file, line): one item of the ledger
OMITTED = (
    "omitted: not even the line counting it fits (the always-included parts and the other "
    "sections' lines take the budget)"
)
TRIMMED = "trimmed after counting the rendered packet ({count} > budget {budget})"


def key(section: str, item: Task | Convention | Entry | Steering) -> Key:
    """The ledger key of an item."""
    return section, item.source, item.line


@dataclass
class Fate:
    """An item's ledger action and why."""

    action: str
    reason: str


Fates = dict[Key, Fate]


@dataclass(frozen=True)
class Reasons:
    """The ledger's words for items fitted whole: when all fit, when one fits, for the
    ``i``-th left out; ``stop``: the first item that does not fit ends the section."""

    everything: str
    fits: Callable[[Any], str]
    missed: Callable[[int], str]
    stop: bool = False


class Counted:
    """The entries a side counts in one line: those given one at a time, and the tail of a
    ranking as positions into the list it ranks (on a large project most entries are
    counted: a list of them per budget would be walked by the garbage collector)."""

    __slots__ = ("_after", "_head", "_source", "_tail")

    def __init__(self) -> None:
        self._head: list[Entry] = []
        self._source: Sequence[Entry] = ()
        self._tail: Sequence[int] = ()
        self._after: list[Entry] = []

    def take(self, head: list[Entry], source: Sequence[Entry], tail: Sequence[int]) -> None:
        """Count ``head`` and then ``source[i]`` for each position in ``tail``."""
        self._head, self._source, self._tail = head, source, tail

    def append(self, e: Entry) -> None:
        """Count one more entry (given back after fitting)."""
        self._after.append(e)

    def __len__(self) -> int:
        return len(self._head) + len(self._tail) + len(self._after)

    def __iter__(self) -> Iterator[Entry]:
        return chain(self._head, map(self._source.__getitem__, self._tail), self._after)


@dataclass
class Side:
    """The decisions or the learnings while they are being fitted."""

    name: str
    entries: Sequence[Entry]
    scores: Mapping[tuple[str, int], EntryScore]
    full: list[Entry] = field(default_factory=list)
    summary: list[Entry] = field(default_factory=list)
    counted: Counted = field(default_factory=Counted)
    dropped: list[Entry] = field(default_factory=list)
    cap: int = 0
    # the fate of the entries counted in one line when the share ran out (kept once, not
    # once per entry: on a large project that is most of them)
    counted_fate: Fate | None = None
    count_left: int = 0  # tokens of the share left when counting began
    count_reserve: int = 0  # what the line counting the rest needs


@dataclass
class Draft:
    """Every section's kept and counted items."""

    tasks: list[Task]
    tasks_counted: list[Task]
    conventions: list[Convention]
    conventions_counted: list[Convention]
    decisions: Side
    learnings: Side
    hidden_counts: set[str] = field(default_factory=set)
    steering: list[Steering] = field(default_factory=list)
    steering_counted: list[Steering] = field(default_factory=list)

    def counted(self) -> dict[str, int]:
        """The count line of each section that has one: how many it counts."""
        numbers = {
            "tasks": len(self.tasks_counted),
            "conventions": len(self.conventions_counted),
            "steering": len(self.steering_counted),
            "decisions": len(self.decisions.counted),
            "learnings": len(self.learnings.counted),
        }
        return {k: v for k, v in numbers.items() if v and k not in self.hidden_counts}

    def demote_one(self, fates: Fates, why: str) -> bool:
        """Give one item back, cheapest loss first: an Also Noted title, the lowest-scored
        full entry, the last steering file, convention, task — and, last of all, a section's
        count line. False when nothing is left to give."""
        for side in (self.learnings, self.decisions):
            if side.summary:
                e = side.summary.pop()
                side.counted.append(e)
                fates[key(side.name, e)] = Fate("counted", why)
                return True
        fulls = [(side, e) for side in (self.decisions, self.learnings) for e in side.full]
        if fulls:
            side, e = min(fulls, key=lambda p: (p[0].scores[p[1].key].score, -p[1].index))
            side.full.remove(e)
            if e.superseded:
                side.dropped.append(e)
                fates[key(side.name, e)] = Fate("superseded", why)
            else:
                side.counted.append(e)
                fates[key(side.name, e)] = Fate("counted", why)
            return True
        if self.steering:
            st = self.steering.pop()
            self.steering_counted.insert(0, st)
            fates[key("steering", st)] = Fate("counted", why)
            return True
        if self.conventions:
            c = self.conventions.pop()
            self.conventions_counted.insert(0, c)
            fates[key("conventions", c)] = Fate("counted", why)
            return True
        if self.tasks:
            t = self.tasks.pop()
            self.tasks_counted.append(t)
            fates[key("tasks", t)] = Fate("counted", why)
            return True
        for section in ("learnings", "decisions", "steering", "conventions", "tasks"):
            if section in self.counted():  # the last resort: its count line goes too
                self.hidden_counts.add(section)
                return True
        return False
