"""Loss probes mined from a session: what a policy must not lose — the user's constraints and
decisions first, then file paths, error strings, identifiers and numbers — each with the
message it came from. Linear regular expressions over bounded text; at most ``PER_KIND`` of a
kind (the first seen), each probe once."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ...conversation import Message

__all__ = ["KINDS", "Probe", "mine_probes"]

KINDS = ("constraint", "decision", "path", "error", "identifier", "number")
PER_KIND = 60
SCAN = 20_000  # characters of a message looked at
_CONTROL = re.compile(r"\x1b\[[0-9;?]{0,20}[A-Za-z]|[\x00-\x08\x0b-\x1f\x7f]")
_SENTENCE = re.compile(r"[^.!?\n]{1,300}")
_CONSTRAINT = re.compile(r"\b(never|always|don't|do not|must(?: not)?|mustn't)\b", re.I)
_DECISION = re.compile(
    r"\b(decided|decision|we'll use|i'll use|let's use|going with|chose|we will use|instead of)\b",
    re.I,
)
_PATH = re.compile(r"(?<![\w/])(?:[\w.-]{1,60}/){1,12}[\w-]{1,60}\.[A-Za-z]{1,8}\b")
_ERROR = re.compile(r"\b[A-Z]\w{0,40}(?:Error|Exception)\b(?::[^\n]{0,80})?|\bFAILED\b[^\n]{0,80}")
_IDENT = re.compile(
    r"\b(?:[a-z][a-z0-9]{1,30}(?:_[a-z0-9]{1,30}){1,6}|[A-Z][a-z0-9]{1,20}(?:[A-Z][a-z0-9]{1,20}){1,5})\b"
)
_NUMBER = re.compile(
    r"(?<![\w.])\d{1,3}(?:,\d{3})+(?![\w,])|(?<![\w.])\d{4,9}(?:\.\d{1,4})?(?![\w.])"
)


@dataclass(frozen=True)
class Probe:
    """A fact a later call may need: its ``kind``, its text, and the message it came from."""

    kind: str
    text: str
    message: int


def _sentences(text: str, pattern: re.Pattern[str]) -> list[str]:
    return [s.group(0).strip() for s in _SENTENCE.finditer(text) if pattern.search(s.group(0))]


def _may_hold(kind: str, text: str) -> bool:
    """A cheap test that ``text`` can hold a probe of ``kind`` (every path has a slash, every
    error one of its words); the regular expression decides."""
    if kind == "path":
        return "/" in text
    if kind == "error":
        return "Error" in text or "Exception" in text or "FAILED" in text
    return True


def mine_probes(messages: Sequence[Message]) -> list[Probe]:
    """The session's probes, the user's constraints first (see the module docstring)."""
    found: dict[str, list[Probe]] = {kind: [] for kind in KINDS}
    seen: set[str] = set()

    def add(kind: str, text: str, at: int) -> None:
        text = text.strip()
        if len(text) < 4 or text in seen or len(found[kind]) >= PER_KIND:
            return
        seen.add(text)
        found[kind].append(Probe(kind, text, at))

    for at, message in enumerate(messages):
        text = _CONTROL.sub("", message.counted_as()[1][:SCAN])
        if message.role == "user":
            for sentence in _sentences(text, _CONSTRAINT):
                add("constraint", sentence, at)
        if message.role in ("user", "assistant"):
            for sentence in _sentences(text, _DECISION):
                add("decision", sentence, at)
        for kind, pattern in (("path", _PATH), ("error", _ERROR), ("identifier", _IDENT),
                              ("number", _NUMBER)):  # fmt: skip
            if len(found[kind]) >= PER_KIND or not _may_hold(kind, text):
                continue  # full (nothing more of it is added), or it cannot match
            for hit in pattern.finditer(text):
                add(kind, hit.group(0), at)
    return [p for kind in KINDS for p in found[kind]]
