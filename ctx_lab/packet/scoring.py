"""Scoring decisions and learnings: ``score = recency + relevance`` (superseded → 0).

Also the keyword extraction and matching that the context builder reuses for its memory search.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime

from .markdown import Entry

__all__ = [
    "CTX_STOP_WORDS",
    "DEFAULT_STOP_WORDS",
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


def extract_keywords(
    texts: Iterable[str], stop_words: Iterable[str] = DEFAULT_STOP_WORDS, min_length: int = 3
) -> list[str]:
    """Keywords of task texts: words of ≥ 3 characters that are not stop words, first-seen
    order, no duplicates. Pass text with tags already removed (tags are not words)."""
    stop = {w.lower() for w in stop_words}
    seen: dict[str, None] = {}
    for text in texts:
        for word in words(text):
            if len(word) >= min_length and word not in stop:
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


@dataclass(frozen=True)
class EntryScore:
    """Why an entry scored what it did."""

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
        return None, recency_score(None), f"malformed timestamp [{entry.stamp}]: scored as undated"
    age = max((today - entry.day).days, 0)
    return age, recency_score(age), "dated in the future: age 0" if entry.day > today else ""


def score_with(age: Age, found: tuple[str, ...], superseded: bool) -> EntryScore:
    """The score from an entry's :func:`age_of` and its matched keywords."""
    days, recency, note = age
    relevance = relevance_score(len(found))
    if superseded:
        return EntryScore(days, recency, relevance, found, 0.0, "superseded")
    return EntryScore(days, recency, relevance, found, round(recency + relevance, 6), note)
