"""Scoring decisions and learnings: ``score = recency + relevance`` (superseded → 0).

Also the keyword extraction and matching that the context builder reuses for its memory search.
"""

from __future__ import annotations

import math
import re
from array import array
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime
from typing import NamedTuple

from ._cache import Memo, nearest
from ._markdown import Entry

__all__ = [
    "BM25_B",
    "BM25_K1",
    "CTX_STOP_WORDS",
    "DEFAULT_STOP_WORDS",
    "Bm25",
    "EntryScore",
    "age_of",
    "extract_keywords",
    "local_date",
    "match_keys",
    "matched_keywords",
    "recency_score",
    "relevance_score",
    "score_entry",
    "score_with",
    "term_counts",
    "terms",
    "words",
]

# The 59 stop words of ctx 0.8.1, kept verbatim.
CTX_STOP_WORDS = frozenset(
    """the and for that this with from are was were been have has had but not you all can her
    his she its our they will each make like use way may any into when which their about would
    there what also should after before than then them could more some other only just see add
    new update how""".split()
)
# ctx's list plus common English function words and task-list filler.
DEFAULT_STOP_WORDS = CTX_STOP_WORDS | frozenset(
    """a an as at be by do if in is it me my no of on or so to up us we he him who whom whose
    why where does did done doing being am i your yours ours theirs itself himself herself
    themselves these those very too own same such both few most nor once here out over under
    again further off down while until because through during above below between against
    onto upon within without among per via etc yes must shall might need needs want wants get
    got gets let lets now still yet ever even much many every either neither something anything
    nothing everything someone anyone thing things make made makes using used uses want one two
    instead""".split()
)

_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> list[str]:
    """Lower-cased runs of letters and digits (Unicode-aware; everything else separates)."""
    return _WORD.findall(text.lower())


def terms(
    text: str, stop_words: Iterable[str] = DEFAULT_STOP_WORDS, min_length: int = 3
) -> list[str]:
    """The keyword rule applied to every word of ``text``, repeats kept: words of ≥ 3
    characters that are not stop words (BM25's terms)."""
    stop = (
        stop_words if isinstance(stop_words, frozenset | set) else {w.lower() for w in stop_words}
    )
    return [w for w in words(text) if len(w) >= min_length and w not in stop]


def extract_keywords(
    texts: Iterable[str], stop_words: Iterable[str] = DEFAULT_STOP_WORDS, min_length: int = 3
) -> list[str]:
    """Keywords of task texts: words of ≥ 3 characters that are not stop words, first-seen
    order, no duplicates. Pass text with tags already removed (tags are not words)."""
    stop = {w.lower() for w in stop_words}
    seen: dict[str, None] = {}
    for text in texts:
        for word in terms(text, stop, min_length):
            seen.setdefault(word, None)
    return list(seen)


def _matches(keyword: str, word: str) -> bool:
    return word in (keyword, keyword + "s", keyword + "es") or keyword in (word + "s", word + "es")


def match_keys(text: str) -> frozenset[str]:
    """Every keyword that would match a word of ``text``: each word, the word plus -s/-es, and
    the word less a final -s/-es. ``k`` matches ``text`` exactly when ``k`` is in this set
    (the rule of :func:`_matches`), so matching costs one lookup per keyword."""
    keys: set[str] = set()
    for word in set(words(text)):
        keys.update((word, word + "s", word + "es"))
        if word.endswith("s"):
            keys.add(word[:-1])
            if word.endswith("es"):
                keys.add(word[:-2])
    return frozenset(keys)


def matched_keywords(keywords: Sequence[str], text: str) -> list[str]:
    """The keywords that match a whole word of ``text`` (plural -s/-es either way), in
    keyword order."""
    found = match_keys(text)
    return [k for k in keywords if k in found]


BM25_K1 = 1.2
BM25_B = 0.75
_UNIT = 2**40  # BM25 shares are summed as integers of this many parts
_HELD = 1 << 18  # BM25 shares kept for the next queries, at least (4 per document beyond)


class Bm25:
    """Okapi BM25 over a fixed set of documents (k1 = 1.2, b = 0.75).

    ``idf(t) = ln(1 + (N − n(t) + 0.5) / (n(t) + 0.5))`` (never negative; N documents, n(t) of
    them containing t) and ``score(q, d) = Σ_t∈q idf(t) · f(t,d)·(k1+1) /
    (f(t,d) + k1·(1 − b + b·|d|/avgdl))`` with |d| a document's number of terms. Each query term
    counts once, however often the query repeats it. A query term occurs in a document as any
    of its :func:`match_keys` forms — the packet's keyword rule, so ``hook`` finds ``hooks``.
    """

    def __init__(
        self,
        documents: Iterable[Sequence[str] | Mapping[str, int]],
        only: Iterable[str] | None = None,
    ) -> None:
        """``documents``: each a sequence of terms, or a mapping of term → count (read once,
        in order: an iterator is read one document at a time). ``only``: the query terms
        this model will be asked about (its postings then hold just their forms — a model
        for one query over many large documents, none of whose counts is kept)."""
        # term → (document indexes, counts): arrays, which the garbage collector never walks
        postings: dict[str, tuple[array[int], array[int]]] = {}
        lengths: list[int] = []
        wanted = None if only is None else set().union(*(match_keys(t) for t in only))
        for index, doc in enumerate(documents):
            counted = doc if isinstance(doc, Mapping) else Counter(doc)
            lengths.append(sum(counted.values()))
            terms = (
                counted.items()
                if wanted is None
                else ((t, counted[t]) for t in wanted if counted.get(t))
            )
            for term, f in terms:
                found = postings.get(term)
                if found is None:
                    found = postings[term] = (array("i"), array("i"))
                found[0].append(index)
                found[1].append(f)
        self._setup(postings, lengths, only)

    @classmethod
    def from_postings(
        cls, postings: dict[str, tuple[array[int], array[int]]], lengths: Sequence[int]
    ) -> Bm25:
        """A model from postings already made (term → document indexes and counts) and each
        document's number of terms."""
        model = cls.__new__(cls)
        model._setup(postings, list(lengths), None)
        return model

    def _setup(
        self,
        postings: dict[str, tuple[array[int], array[int]]],
        lengths: list[int],
        only: Iterable[str] | None,
    ) -> None:
        self.postings = postings
        self.lengths = lengths
        self.count = len(lengths)
        self.average = (sum(lengths) / self.count) if self.count else 0.0
        average = self.average or 1.0
        self._norms = array("d", [BM25_K1 * (1 - BM25_B + BM25_B * n / average) for n in lengths])
        self._only = None if only is None else frozenset(only)
        self._found: dict[str, dict[int, int]] = {}  # query term → frequencies (bounded below)
        # query term → (document indexes, its share of each score in units)
        self._contributions: dict[str, tuple[array[int], array[int]]] = {}
        self._held = 0  # shares held in _contributions, bounded by _HELD (see _contribution)
        self._sums: Memo[frozenset[str], list[int]] = Memo(8)  # query → scores, in units

    def frequencies(self, term: str) -> dict[int, int]:
        """Per document (by index) holding ``term`` in any of its forms, how often."""
        known = self._found.get(term)
        if known is None:
            indexes, counts = self.held(term)
            known = dict(zip(indexes, counts, strict=True))
            if len(self._found) >= 256:  # read by ledgers and the builder's boost
                self._found.clear()
            self._found[term] = known
        return known

    def held(self, term: str) -> tuple[array[int], array[int]]:
        """The documents holding ``term`` in any of its forms and how often, as arrays (the
        postings themselves where one form holds it: nothing is copied)."""
        if self._only is not None and term not in self._only:
            raise ValueError(f"this BM25 model was built for {sorted(self._only)}, not {term!r}")
        forms = [p for form in match_keys(term) if (p := self.postings.get(form)) is not None]
        if not forms:
            return array("i"), array("i")
        if len(forms) == 1:
            return forms[0]
        merged: dict[int, int] = {}
        for indexes, counts in forms:
            for index, f in zip(indexes, counts, strict=True):
                merged[index] = merged.get(index, 0) + f
        ordered = sorted(merged)
        return array("i", ordered), array("i", [merged[i] for i in ordered])

    def idf(self, term: str) -> float:
        """The inverse document frequency of ``term``."""
        n = len(self.held(term)[0])
        return math.log(1 + (self.count - n + 0.5) / (n + 0.5))

    def _contribution(self, term: str) -> tuple[array[int], array[int]]:
        """What ``term`` adds to each document holding it, in units of 2⁻⁴⁰ (integers, so a
        score is the same sum whichever queries came before; kept for the next queries)."""
        known = self._contributions.get(term)
        if known is None:
            indexes, counts = self.held(term)
            n = len(indexes)
            weight = math.log(1 + (self.count - n + 0.5) / (n + 0.5)) * (BM25_K1 + 1) * _UNIT
            norms = self._norms
            known = (
                indexes,
                array(
                    "q",
                    [
                        round(weight * f / (f + norms[i]))
                        for i, f in zip(indexes, counts, strict=True)
                    ],
                ),
            )
            # bounded by the shares held, not the terms: 256 common terms of a 100k-entry
            # context held 26 MB (a new query needs only the terms that changed)
            if self._held + n > max(4 * self.count, _HELD):
                self._contributions.clear()
                self._held = 0
            self._contributions[term] = known
            self._held += n
        return known

    def _shift(self, out: list[int], term: str, sign: int) -> None:
        indexes, values = self._contribution(term)
        if sign > 0:
            for index, value in zip(indexes, values, strict=True):
                out[index] += value
        else:
            for index, value in zip(indexes, values, strict=True):
                out[index] -= value

    def scores(self, query: Sequence[str]) -> list[float]:
        """Every document's score for ``query``, in document order: each query term counts
        once; worked out from the nearest query already scored (a few terms change at a
        time), so the cost is the terms that changed."""
        return [v / _UNIT for v in self.sums(query)]

    def sums(self, query: Sequence[str]) -> list[int]:
        """:meth:`scores` in units of 2⁻⁴⁰ (the exact integers; do not modify the list)."""
        return nearest(self._sums, frozenset(query), self.count, self._shift)


def relevance_score(matches: int) -> float:
    """``min(matches / 3, 1)``."""
    return min(matches / 3, 1.0)


RECENCY_BRACKETS = ((7, 1.0), (30, 0.7), (90, 0.4))
OLD_OR_UNDATED = 0.2


def recency_score(age_days: int | None) -> float:
    """1.0 up to 7 days, 0.7 up to 30, 0.4 up to 90, else (or undated) 0.2."""
    if age_days is None:
        return OLD_OR_UNDATED
    for limit, score in RECENCY_BRACKETS:
        if age_days <= limit:
            return score
    return OLD_OR_UNDATED


def local_date(now: datetime) -> date:
    """The local calendar date of ``now``: a naive datetime is local already, an aware one is
    converted to the machine's local time zone."""
    if now.tzinfo is None:
        return now.date()
    return now.astimezone().date()


class EntryScore(NamedTuple):
    """Why an entry scored what it did (a named tuple: a packet makes one per entry and per
    keyword set)."""

    age_days: int | None
    recency: float
    relevance: float
    keywords: tuple[str, ...]
    score: float
    note: str = ""


def score_entry(
    entry: Entry,
    keywords: Sequence[str],
    today: date,
    matched: tuple[str, ...] | None = None,
) -> EntryScore:
    """Score one entry against the task keywords on the local date ``today`` (``matched``:
    the keywords already known to match, in keyword order)."""
    found = (
        matched
        if matched is not None
        else tuple(matched_keywords(keywords, f"{entry.title}\n{entry.body}"))
    )
    return score_with(age_of(entry, today), found, entry.superseded)


Age = tuple[int | None, float, str]


def age_of(entry: Entry, today: date) -> Age:
    """What of a score depends only on the entry and the day: ``(age, recency, note)``."""
    if entry.day is None:
        if not entry.stamp:  # another layout's entry without a date
            return None, recency_score(None), "undated: ranked by relevance alone"
        return None, recency_score(None), f"malformed timestamp [{entry.stamp}]: scored as undated"
    age = max((today - entry.day).days, 0)
    return age, recency_score(age), "dated in the future: age 0" if entry.day > today else ""


def score_with(
    age: Age, found: tuple[str, ...], superseded: bool, relevance: float | None = None
) -> EntryScore:
    """The score from an entry's :func:`age_of` and its matched keywords (``relevance``: a
    relevance computed otherwise, e.g. BM25; default: the keyword rule)."""
    days, recency, note = age
    if relevance is None:
        relevance = relevance_score(len(found))
    if superseded:
        return EntryScore(
            age_days=days,
            recency=recency,
            relevance=relevance,
            keywords=found,
            score=0.0,
            note="superseded",
        )
    return EntryScore(
        age_days=days,
        recency=recency,
        relevance=relevance,
        keywords=found,
        score=round(recency + relevance, 6),
        note=note,
    )


_LONG_WORD = re.compile(r"[^\W_]{3,}")  # the runs of :data:`_WORD` that can be terms
# UTF-8 bytes → runs: ASCII letters lower-cased, ASCII digits and every byte of a non-ASCII
# character kept, every other ASCII byte a space (none of them is ever part of a word)
_RUNS = bytes(
    c if not chr(c).isascii() else ord(chr(c).lower()) if chr(c).isalnum() else ord(" ")
    for c in range(256)
)


def term_counts(text: str, stop_words: frozenset[str] = DEFAULT_STOP_WORDS) -> dict[str, int]:
    """:func:`terms` of ``text``, counted — for a large document: the text's UTF-8 bytes are
    split into runs at ASCII separators in one pass; a run that is plain ASCII is a word as it
    is, and only runs holding other characters go through the Unicode word rule."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: the word rule on the text itself
        return _unicode_term_counts(text, stop_words, 1, {})
    found: dict[str, int] = {}
    for run, f in Counter(data.translate(_RUNS).split()).items():
        if len(run) < 3:  # fewer than three characters
            continue
        if run.isascii():
            word = run.decode("ascii")
            if word not in stop_words:
                found[word] = found.get(word, 0) + f
        else:
            _unicode_term_counts(run.decode("utf-8"), stop_words, f, found)
    return found


def _unicode_term_counts(
    text: str, stop_words: frozenset[str], times: int, found: dict[str, int]
) -> dict[str, int]:
    """The word rule's runs in ``text`` as it is, each distinct one lower-cased and filtered
    once, added ``times`` over to ``found``."""
    for word, f in Counter(_LONG_WORD.findall(text)).items():
        lowered = word.lower()
        if len(lowered) >= 3 and lowered not in stop_words:
            found[lowered] = found.get(lowered, 0) + f * times
    return found
