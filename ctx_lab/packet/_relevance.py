"""How relevant each decision and learning is to a set of keywords: the scores a packet ranks
by, the ``auto`` rule's choice between keywords and BM25, and which keywords each entry matched
(for the ledger). One :class:`Relevance` per loaded context, shared by every budget and date.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import date
from itertools import repeat
from operator import add, truediv

from ..choices import RELEVANCE_RULES as _RULES
from ._cache import Memo, nearest
from ._markdown import Entry
from ._scoring import (
    Age,
    Bm25,
    EntryScore,
    age_of,
    match_keys,
    relevance_score,
)
from ._scoring import words as text_words
from ._side_scores import Locator, SideScores

__all__ = ["RELEVANCE_RULES", "Relevance", "Scores"]

_MOST_OFTEN = 65_535  # a word's count in one entry, as kept (BM25 saturates long before)

RELEVANCE_RULES = _RULES  # ctx_lab.choices.RelevanceRule
# auto: keywords unless they saturate — when at least this share of the scored entries (and
# at least SATURATION_MIN of them) sit at the top keyword relevance, ranking is by recency
# alone, so BM25 ranks instead
SATURATION_SHARE = 0.5
SATURATION_MIN = 5
# …and when, among this many entries or more, the keyword rule leaves fewer distinct scores
DISCRIMINATE_MIN = 50
DISCRIMINATE_SCORES = 10

Scores = dict[str, Mapping[tuple[str, int], EntryScore]]  # side → entry key → score


class _Hits:
    """Which of ``keywords`` each entry matches, in keyword order: made from the keywords'
    posting lists when a ledger first asks (never a pass over every entry's words)."""

    def __init__(self, relevance: Relevance, keywords: Sequence[str]) -> None:
        self.relevance = relevance
        self.keywords = tuple(dict.fromkeys(keywords))
        self._found: dict[int, list[str]] | None = None

    def get(self, key: int, default: tuple[str, ...] = ()) -> tuple[str, ...]:
        if self._found is None:
            found: dict[int, list[str]] = {}
            for keyword in self.keywords:
                for i in self.relevance.entries_matching(keyword):
                    found.setdefault(i, []).append(keyword)
            self._found = found
        position = self.relevance.positions().get(key)
        matched = self._found.get(position) if position is not None else None
        return tuple(matched) if matched else default


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


class Relevance:
    """Scores of one context's decisions and learnings, kept per (keywords, day, rule).

    Keyword matching is incremental in the keyword set: every entry's words go once into an
    index (word → the entries that hold it), and each keyword's entries are looked up there
    once and kept, so a new focus costs the words that changed, never a pass over the
    entries' text. BM25 statistics are built once per context.
    """

    def __init__(
        self,
        decisions: Sequence[Entry],
        learnings: Sequence[Entry],
        stop_words: frozenset[str],
    ) -> None:
        self.sides = (("decisions", tuple(decisions)), ("learnings", tuple(learnings)))
        self.entries = (*decisions, *learnings)
        self.stop_words = stop_words
        self._position: dict[int, int] | None = None  # by entry identity, when asked
        # word → the positions of the entries holding it, and how often each does
        self._postings: dict[str, tuple[array[int], array[int]]] | None = None
        self._matching: Memo[str, array[int]] = Memo(4096)  # keyword → entry positions
        self._counted: Memo[frozenset[str], array[int]] = Memo(8)  # keyword set → matches
        self._ages: tuple[date | None, list[Age]] = (None, [])
        self._bm25: Bm25 | None = None
        self._at: dict[str, Locator] = {}  # side → where each entry key is
        self._recency: tuple[date | None, array[float]] = (None, array("d"))
        self._gone = [i for i, e in enumerate(self.entries) if e.superseded]  # positions
        self._scores: Memo[tuple[tuple[str, ...], date, str], Scores] = Memo(32)
        self._rules: Memo[tuple[tuple[str, ...], date], tuple[str, str]] = Memo(64)

    def caches(self) -> dict[str, object]:
        """Every cache this holds, by name (for the boundedness checks)."""
        return {
            "postings": self._postings or {},
            "matching": self._matching,
            "counted": self._counted,
            "ages": self._ages[1],
            "scores": self._scores,
            "rules": self._rules,
        }

    def positions(self) -> dict[int, int]:
        """Every entry's position, by entry identity (made when a ledger first asks)."""
        if self._position is None:
            self._position = {id(e): i for i, e in enumerate(self.entries)}
        return self._position

    def ages(self, today: date) -> list[Age]:
        """Every entry's age on ``today``, by position (entries of one day share theirs)."""
        if self._ages[0] != today:
            by_day: dict[date, Age] = {}
            ages: list[Age] = []
            for e in self.entries:
                day = e.day
                if day is None:
                    ages.append(age_of(e, today))
                else:
                    found = by_day.get(day)
                    if found is None:
                        found = by_day[day] = age_of(e, today)
                    ages.append(found)
            self._ages = (today, ages)
        return self._ages[1]

    def scores(self, keywords: tuple[str, ...], today: date, rule: str = "keywords") -> Scores:
        """Scores of every decision and learning: moving the budget slider re-scores nothing
        unless the keywords change."""
        return self._scores.get_or_make((keywords, today, rule), self._score)

    def _score(self, key: tuple[tuple[str, ...], date, str]) -> Scores:
        keywords, today, rule = key
        if rule == "bm25":
            raw = self.bm25().sums(keywords)  # exact integers: the ratio is the scores' ratio
            top = max(raw, default=0)
            # the exact ratio (the score it adds to is rounded; the ledger shows four places)
            relevance = (
                array("d", map(truediv, raw, repeat(top)))
                if top > 0
                else array("d", bytes(8 * len(raw)))
            )
        else:
            # only the number of matches (up to 3) moves the keyword rule's relevance; which
            # keywords matched is worked out when a ledger is read
            counts = self._match_counts(keywords)
            table = [relevance_score(min(m, 3)) for m in range(max(counts, default=0) + 1)]
            relevance = array("d", map(table.__getitem__, counts))
        return self._as_columns(relevance, today)

    def _match_counts(self, keywords: tuple[str, ...]) -> array[int]:
        """Per entry (by position), how many of ``keywords`` it matches (only up to 3 move a
        score: callers cap). Worked out from the nearest keyword set already counted — the
        budget slider moves the included tasks a few at a time, a focus box a few words at a
        time — adding and removing the changed keywords' entries, so the cost is the change,
        not the corpus; an array, which the collector never walks."""
        found = frozenset(keywords)
        return nearest(self._counted, found, len(self.entries), self._shift, "i")

    def _shift(self, counts: array[int], keyword: str, sign: int) -> None:
        for i in self.entries_matching(keyword):
            counts[i] += sign

    def rule(
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
        return self._rules.get_or_make((keywords, today), self._auto_rule)

    def _auto_rule(self, key: tuple[tuple[str, ...], date]) -> tuple[str, str]:
        keywords, today = key
        # the keyword rule's relevance of every entry, from the match counts alone (no scores)
        counts = [c if c < 3 else 3 for c in self._match_counts(keywords)]  # 3 or more: 3
        most = max(counts, default=0)
        values = [relevance_score(m) for m in range(4)]  # by match count (at most 3)
        top, at_top = values[most], counts.count(most)
        if top > 0 and at_top >= SATURATION_MIN and at_top >= SATURATION_SHARE * len(counts):
            return "bm25", (
                f"auto: BM25, as keyword relevance saturates ({at_top} of {len(counts)} "
                f"decisions and learnings at {top:.2f})"
            )
        ages = self.ages(today)
        distinct = len(
            {
                (age[1], c)
                for e, age, c in zip(self.entries, ages, counts, strict=True)
                if not e.superseded
            }
        )
        total = len(counts)
        if top > 0 and total >= DISCRIMINATE_MIN and distinct < DISCRIMINATE_SCORES:
            return "bm25", (
                f"auto: BM25, as keyword relevance and recency give {total} decisions and "
                f"learnings only {distinct} distinct scores"
            )
        return "keywords", (
            f"auto: keywords ({at_top} of {total} decisions and learnings at the top "
            f"relevance {top:.2f})"
        )

    def _as_columns(self, relevance: array[float], today: date) -> Scores:
        """Every entry's score from its relevance (by position) and its age on ``today``, as
        columns (see :class:`SideScores`): a new keyword set costs a few lists of floats,
        not a score object per entry."""
        ages = self.ages(today)
        recency = self._recency_column(today)
        # C-level loops into arrays (this runs for every new keyword set, and the collector
        # never walks an array); the sums are rounded when read (SideScores) and the ranking
        # rounds only near-ties (Fitter._order): rounding every entry took most of the time
        column = array("d", map(add, recency, relevance))
        for i in self._gone:
            column[i] = 0.0
        found: Scores = {}
        start = 0
        for side, entries in self.sides:
            end = start + len(entries)
            found[side] = SideScores(
                self._keys(side), ages, start, relevance[start:end], column[start:end]
            )
            start = end
        return found

    def _keys(self, side: str) -> Locator:
        """Where each of a side's entry keys is (made once per context)."""
        known = self._at.get(side)
        if known is None:
            known = self._at[side] = Locator(dict(self.sides)[side])
        return known

    def _recency_column(self, today: date) -> array[float]:
        """Every entry's recency on ``today``, by position."""
        if self._recency[0] != today:
            ages = self.ages(today)
            self._recency = (today, array("d", [age[1] for age in ages]))
        return self._recency[1]

    def bm25(self) -> Bm25:
        """The BM25 statistics of the context's decisions and learnings (built once, from the
        same index keyword matching uses): the terms of :func:`terms`, counted."""
        if self._bm25 is None:
            stop = self.stop_words
            postings = self._counts()
            terms = {w: found for w, found in postings.items() if len(w) >= 3 and w not in stop}
            lengths = [0] * len(self.entries)
            for positions, counts in terms.values():
                for i, f in zip(positions, counts, strict=True):
                    lengths[i] += f
            self._bm25 = Bm25.from_postings(terms, lengths)
        return self._bm25

    def words(self, e: Entry) -> list[str]:
        """An entry's words (title and body). Read once, into the postings, and not kept: the
        word lists of a 110k-entry context held ~390 MB."""
        return text_words(f"{e.title}\n{e.body}")

    def _counts(self) -> dict[str, tuple[array[int], array[int]]]:
        """Every word of the decisions and learnings → the positions of the entries that hold
        it and how often each does (built once per context; arrays, never walked by the
        garbage collector)."""
        if self._postings is None:
            postings: dict[str, tuple[array[int], array[int]]] = {}
            for i, e in enumerate(self.entries):
                for w, f in Counter(self.words(e)).items():
                    found = postings.get(w)
                    if found is None:  # how often: two bytes (a 10 MB context of a few
                        # words holds each in every entry: 4 MB of counts as "i")
                        found = postings[w] = (array("i"), array("H"))
                    found[0].append(i)
                    found[1].append(min(f, _MOST_OFTEN))
            self._postings = postings
        return self._postings

    def entries_matching(self, keyword: str) -> array[int]:
        """The positions of the entries a keyword matches (a whole word, plural -s/-es either
        way: the words of :func:`match_keys`), looked up once per keyword."""
        return self._matching.get_or_make(keyword, self._lookup)

    def _lookup(self, keyword: str) -> array[int]:
        """Sorted positions, as an array (4 bytes a position, not a tuple of int objects)."""
        postings = self._counts()
        held = [found[0] for form in match_keys(keyword) if (found := postings.get(form))]
        if len(held) == 1:
            return held[0]  # one form: its postings are sorted and unique already
        return array("i", sorted(set().union(*held)))

    def hits(self, keywords: tuple[str, ...]) -> _Hits:
        """Per entry, which of ``keywords`` it matches (read when a ledger is)."""
        return _Hits(self, keywords)

    def matched(self, keywords: Sequence[str], rule: str) -> _Hits | _Bm25Hits:
        """Which of ``keywords`` each entry matched under ``rule`` (read when a ledger is)."""
        if rule == "keywords":
            return self.hits(tuple(keywords))
        return _Bm25Hits(self._bm25, self.entries, tuple(keywords))
