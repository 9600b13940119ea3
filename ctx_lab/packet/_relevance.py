"""How relevant each decision and learning is to a set of keywords: the scores a packet ranks
by, the ``auto`` rule's choice between keywords and BM25, and which keywords each entry matched
(for the ledger). One :class:`Relevance` per loaded context, shared by every budget and date.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import date

from ._cache import Memo
from ._markdown import Entry
from ._scoring import (
    Age,
    Bm25,
    EntryScore,
    age_of,
    extract_keywords,
    match_keys,
    relevance_score,
    score_with,
)
from ._scoring import words as text_words

__all__ = ["RELEVANCE_RULES", "Relevance", "Scores"]

RELEVANCE_RULES = ("auto", "keywords", "bm25")
# auto: keywords unless they saturate — when at least this share of the scored entries (and
# at least SATURATION_MIN of them) sit at the top keyword relevance, ranking is by recency
# alone, so BM25 ranks instead
SATURATION_SHARE = 0.5
SATURATION_MIN = 5
# …and when, among this many entries or more, the keyword rule leaves fewer distinct scores
DISCRIMINATE_MIN = 50
DISCRIMINATE_SCORES = 10

Scores = dict[str, dict[tuple[str, int], EntryScore]]  # side → entry key → score


class _Hits:
    """Which keywords each entry matches, read from its bit mask on demand."""

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


class Relevance:
    """Scores of one context's decisions and learnings, kept per (keywords, day, rule).

    Keyword matches are bit masks over a universe of keywords (every pending task's, plus any
    asked for), computed once; a budget's scoring then only masks. BM25 statistics are built
    once per context.
    """

    def __init__(
        self,
        decisions: Sequence[Entry],
        learnings: Sequence[Entry],
        pending_texts: Iterable[str],
        stop_words: frozenset[str],
    ) -> None:
        self.sides = (("decisions", tuple(decisions)), ("learnings", tuple(learnings)))
        self.entries = (*decisions, *learnings)
        self.pending_texts = tuple(pending_texts)
        self.stop_words = stop_words
        self._universe: tuple[frozenset[str], _Hits] | None = None
        self._bits: dict[str, int] = {}  # universe keyword → its bit in the masks
        self._masks: dict[int, int] = {}  # entry → the bits of the universe keywords it matches
        self._ages: tuple[date | None, dict[int, Age]] = (None, {})
        self._words: dict[int, list[str]] = {}  # by entry identity: the context's own entries
        self._bm25: Bm25 | None = None
        self._scores: Memo[tuple[tuple[str, ...], date, str], Scores] = Memo(32)
        self._rules: Memo[tuple[tuple[str, ...], date], tuple[str, str]] = Memo(64)

    def caches(self) -> dict[str, object]:
        """Every cache this holds, by name (for the boundedness checks)."""
        return {
            "masks": self._masks,
            "words": self._words,
            "ages": self._ages[1],
            "scores": self._scores,
            "rules": self._rules,
        }

    def ages(self, today: date) -> dict[int, Age]:
        """Every entry's age on ``today``, by entry identity."""
        if self._ages[0] != today:
            self._ages = (today, {id(e): age_of(e, today) for e in self.entries})
        return self._ages[1]

    def scores(self, keywords: tuple[str, ...], today: date, rule: str = "keywords") -> Scores:
        """Scores of every decision and learning: moving the budget slider re-scores nothing
        unless the keywords change."""
        return self._scores.get_or_make((keywords, today, rule), self._score)

    def _score(self, key: tuple[tuple[str, ...], date, str]) -> Scores:
        keywords, today, rule = key
        ages = self.ages(today)
        if rule == "bm25":
            return self._bm25_scores(keywords, ages)
        # Only the number of matches (up to 3) moves a score, so scores are shared between
        # entries of equal age and matches; which keywords matched is worked out when a
        # ledger is read.
        matches = self._match_counts(keywords)
        made: dict[tuple[Age, int, bool], EntryScore] = {}
        found: Scores = {}
        for side, entries in self.sides:
            scored: dict[tuple[str, int], EntryScore] = {}
            for e in entries:
                shared = (ages[id(e)], matches[id(e)], e.superseded)
                known = made.get(shared)
                if known is None:
                    known = made[shared] = score_with(
                        shared[0], (), e.superseded, relevance_score(shared[1])
                    )
                scored[e.key] = known
            found[side] = scored
        return found

    def _match_counts(self, keywords: tuple[str, ...]) -> dict[int, int]:
        """Per entry, how many of ``keywords`` it matches (at most 3: more add nothing)."""
        self.hits(keywords)
        wanted = sum(1 << self._bits[k] for k in set(keywords))
        masks = self._masks
        return {id(e): min((masks[id(e)] & wanted).bit_count(), 3) for e in self.entries}

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
        # the keyword rule's relevance of every entry, from the match masks alone (no scores)
        matches = self._match_counts(keywords)
        values = [relevance_score(matches[id(e)]) for e in self.entries]
        top = max(values, default=0.0)
        at_top = sum(1 for v in values if v == top)
        if top > 0 and at_top >= SATURATION_MIN and at_top >= SATURATION_SHARE * len(values):
            return "bm25", (
                f"auto: BM25, as keyword relevance saturates ({at_top} of {len(values)} "
                f"decisions and learnings at {top:.2f})"
            )
        ages = self.ages(today)
        distinct = len(
            {
                (ages[id(e)][1], v)
                for e, v in zip(self.entries, values, strict=True)
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

    def _bm25_scores(self, query: tuple[str, ...], ages: dict[int, Age]) -> Scores:
        """BM25 of every entry for ``query`` (IDF over the project's decisions and learnings),
        divided by the highest score so relevance lies in 0–1."""
        model = self.bm25()
        raw = model.scores(query)
        top = max(raw, default=0.0)
        scored = {}
        # which query terms each entry holds is read from the index when a ledger asks
        # (_Bm25Hits), not worked out for every entry of every query
        for e, value in zip(self.entries, raw, strict=True):
            relevance = round(value / top, 6) if top > 0 else 0.0
            scored[id(e)] = score_with(ages[id(e)], (), e.superseded, relevance)
        return {side: {e.key: scored[id(e)] for e in es} for side, es in self.sides}

    def bm25(self) -> Bm25:
        """The BM25 statistics of the context's decisions and learnings (built once)."""
        if self._bm25 is None:
            stop = self.stop_words
            documents = [
                {w: f for w, f in Counter(self.words(e)).items() if len(w) >= 3 and w not in stop}
                for e in self.entries
            ]  # the terms of :func:`terms`, counted
            self._bm25 = Bm25(documents)
        return self._bm25

    def words(self, e: Entry) -> list[str]:
        """An entry's words (title and body), read once for keyword matching and BM25."""
        found = self._words.get(id(e))
        if found is None:
            found = self._words[id(e)] = text_words(f"{e.title}\n{e.body}")
        return found

    def hits(self, keywords: tuple[str, ...]) -> _Hits:
        """Per entry, which keywords of every pending task (a superset of any budget's
        keywords) match it, as a bit mask: computed once, so a budget's scoring only masks."""
        if self._universe is None or not set(keywords) <= self._universe[0]:
            words = set(keywords) | set(extract_keywords(self.pending_texts, self.stop_words))
            ordered = sorted(words)
            self._bits = {k: i for i, k in enumerate(ordered)}
            form_bits: dict[str, int] = {}  # a word → the bits of the keywords it matches
            for keyword, bit in self._bits.items():
                for form in match_keys(keyword):
                    form_bits[form] = form_bits.get(form, 0) | (1 << bit)
            masks: dict[int, int] = {}
            for e in self.entries:
                mask = 0
                for w in set(self.words(e)):
                    mask |= form_bits.get(w, 0)
                masks[id(e)] = mask
            self._masks = masks
            self._universe = (frozenset(words), _Hits(masks, ordered))
        return self._universe[1]

    def matched(self, keywords: Sequence[str], rule: str) -> _Hits | _Bm25Hits:
        """Which of ``keywords`` each entry matched under ``rule`` (read when a ledger is)."""
        if rule == "keywords":
            return self.hits(tuple(keywords))
        return _Bm25Hits(self._bm25, self.entries, tuple(keywords))
