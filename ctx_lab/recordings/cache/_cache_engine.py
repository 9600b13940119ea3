"""The one prompt-cache engine: every command that predicts, explains or prices a cache read
(``cache``, ``policies``, ``anatomy``, ``check``, the lab's monitor and the advice) steps it
call by call.

Mechanics, as the providers document them (rows in :mod:`ctx_lab.models` ``cache_rule``):

- **entries** — a request writes an entry at each of its breakpoints (Anthropic: the
  ``cache_control`` points the agent placed; Claude Code places them after its tools and system
  prompt and on the last message); an automatic cache (OpenAI, Gemini) keeps the request's
  prefix in ``step``-token increments. Several entries live at once per model, each for its
  lifetime, refreshed by every hit; a model's entries serve that model only.
- **reads** — a request reads the longest live entry that is a prefix of it. Two readings of
  which entries a request can find are run (:data:`READINGS`):

  ``"breakpoints"`` — Anthropic's guide: "the system automatically checks for cache hits at all
  previous content block boundaries (up to approximately 20 blocks before your explicit
  breakpoint)" (https://platform.claude.com/docs/en/build-with-claude/prompt-caching, "Automatic
  prefix checking", read 2026-12-07): an entry is found when it ends at one of the request's
  breakpoints or within :data:`LOOKBACK` blocks before one, and only whole — a request that
  changed a block inside an entry cannot read the part before the change unless another entry
  ends there.

  ``"prefix"`` — every prefix a request shares with a live entry is read, wherever it ends
  (what an automatic cache does in ``step`` increments, and what the lab assumed before).

  Automatic caches (``breakpoints == 0``) are read the ``"prefix"`` way under either reading.
- **what the file says** — a request's facts (:class:`Request`) carry what the recording shows
  about it: the tokens it shares with this model's previous request (``stable``; None: all of
  it), the blocks up to its last breakpoint, its other breakpoints, and, when the file explains
  a change (a compaction, a Codex turn start, a task notification), that change as a cause.

Where a call's usage was recorded, :meth:`CacheEngine.step` also names why it read what it did
(:data:`CAUSES`, each with a one-line reason): a read that equals another live entry is
"several entries", one that equals none and follows no change the file shows is "routing (best
effort)". An entry found only from a read (no request of the file wrote one that size: a
breakpoint inside the hidden system prompt) is added, so that later reads of it are explained.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from ...choices import CACHE_CAUSES, CACHE_READINGS, CacheCause, CacheReading
from ...models import CacheRule, cache_rule

__all__ = [
    "CAUSES",
    "LOOKBACK",
    "READINGS",
    "CacheEngine",
    "CacheOutcome",
    "CacheRequest",
    "Outcome",
    "Reading",
    "Request",
]

Reading = CacheReading
READINGS = cast("tuple[Reading, ...]", CACHE_READINGS)
# "up to approximately 20 blocks before your explicit breakpoint" (Anthropic's prompt caching
# guide, "Automatic prefix checking", read 2026-12-07)
LOOKBACK = 20
CLOSE = 0.02  # a read within this share of an entry's size is that entry
DROP = 0.10  # a read this far below what the previous call left cached is a miss to explain
# entries kept per model, the oldest beyond going first (bounded time and memory): the real
# 2.0.76 sessions read entries up to 8 calls old
KEPT = 24
ANCHORS = 6  # of them, breakpoints inside the system prompt

# why a call read less than the previous call of its model left cached — one vocabulary for
# every command
CAUSES = CACHE_CAUSES  # the vocabulary, declared once in ctx_lab.choices


@dataclass(frozen=True, slots=True)
class Request:
    """What the engine is told of one call (sizes in the provider's tokens).

    ``total``: every input token of the call; ``tail``: the tokens after its last breakpoint,
    never cached (Anthropic's uncached ``input_tokens``; 0 for an automatic cache); ``stable``:
    the tokens it shares with this model's previous request (None: all of that request, the
    file showing no change); ``blocks``: the content blocks up to its last breakpoint (for the
    lookback); ``anchors``: its other breakpoints, as token positions (the end of the system
    prompt and tools); ``change``/``why``: the cause and one-line reason, when the file shows
    why the request changed; ``reported``: the recording's ``(fresh, read, write)``.
    """

    number: int
    model: str
    at: float | None
    total: int
    tail: int = 0
    stable: int | None = None
    blocks: int = 0
    anchors: tuple[int, ...] = ()
    hour: bool = False
    change: CacheCause | None = None
    why: str = ""
    reported: tuple[int, int, int] | None = None


@dataclass(frozen=True, slots=True)
class Outcome:
    """One call as the engine sees it: the predicted split, and why less was read (the cause
    and its one-line reason; judged on the reported read where there is one)."""

    number: int
    fresh: int
    read: int
    write: int
    cause: CacheCause | None = None
    reason: str = ""


@dataclass(slots=True)
class _Entry:
    size: int
    block: int  # the blocks up to where it ends (its request's count)
    at: float | None
    lifetime: int
    call: int  # the call that wrote it (0: found from a read)
    valid: int  # the prefix it still shares with this model's latest request
    anchor: bool = False  # at a breakpoint every request places (system prompt and tools)


class CacheEngine:
    """Steps a session's calls through the cache (see the module docstring). ``rules`` are
    the user's own rows, before :data:`~ctx_lab.models.CACHE_RULES`."""

    def __init__(self, reading: Reading = "breakpoints", rules: Sequence[CacheRule] = ()) -> None:
        if reading not in READINGS:
            raise ValueError(f"reading must be one of {READINGS}, not {reading!r}")
        self.reading, self.rules = reading, tuple(rules)
        self.entries: dict[str, list[_Entry]] = {}
        self.expired: dict[str, list[_Entry]] = {}
        self.last_model: str | None = None
        self.previous: dict[str, int] = {}  # model → where its previous call's cache ended
        self.started = False
        self.rules_of: dict[str, CacheRule | None] = {}

    def _rule(self, model: str) -> CacheRule | None:
        if model not in self.rules_of:
            self.rules_of[model] = cache_rule(model, self.rules)
        return self.rules_of[model]

    # -- the prediction ------------------------------------------------------------------

    def step(self, request: Request) -> Outcome:
        """The call's predicted split, and the cause of a shortfall; then the cache as the
        call left it (the reported read, where there is one, decides what was refreshed)."""
        if not self.started and request.reported is not None and request.reported[1]:
            # the cache as the recording found it: its first call read what was already there
            self.seed(request.model, request.reported[1], request.at)
        self.started = True
        rule = self._rule(request.model)
        if rule is None:  # no caching known for this model: everything fresh
            self.last_model = request.model
            return Outcome(request.number, request.total, 0, 0)
        live = self._live(request, rule)
        automatic = rule.breakpoints == 0
        end = request.total if automatic else max(request.total - request.tail, 0)
        found = self._best(live, request, rule, end, automatic)
        read = found[0] if found else 0
        read -= read % rule.step
        if read < rule.minimum:
            read = 0
        if automatic:
            write, fresh = 0, request.total - read
        else:
            write = end - read if end >= rule.minimum else 0
            fresh = request.total - read - write
        cause, reason = self._cause(request, rule, live, read, end)
        self._keep(request, rule, live, read, end, automatic, found[1] if found else None)
        return Outcome(
            number=request.number, fresh=fresh, read=read, write=write, cause=cause, reason=reason
        )

    def _live(self, request: Request, rule: CacheRule) -> list[_Entry]:
        """This model's entries still alive at the request, their shared prefix updated."""
        entries = self.entries.get(request.model, [])
        now, kept, gone = request.at, [], []
        stable, compaction = request.stable, request.change == "compaction"
        for entry in entries:
            if stable is not None and stable < entry.valid:
                entry.valid = stable
            if compaction and entry.anchor:
                # the compaction request itself (Claude Code's agent-acompact file: the same
                # system prompt and tools) read the anchored prefix moments before
                entry.at = now
            if now is not None and entry.at is not None and now - entry.at > entry.lifetime:
                gone.append(entry)
            else:
                kept.append(entry)
        self.entries[request.model] = kept
        self.expired[request.model] = gone[-KEPT:]
        return kept

    def _best(
        self, live: list[_Entry], request: Request, rule: CacheRule, end: int, automatic: bool
    ) -> tuple[int, _Entry] | None:
        """The longest read a live entry gives, and that entry."""
        best: tuple[int, _Entry] | None = None
        whole = not automatic and self.reading == "breakpoints"
        reach_all = automatic or self.reading == "prefix"
        # what the request's lookup reaches: everything (automatic caching, "prefix"), else an
        # anchored entry, one within the lookback's blocks, or one at a breakpoint it places
        within, anchors = request.blocks - LOOKBACK, request.anchors
        for entry in live:
            if not (reach_all or entry.anchor or entry.block >= within or entry.size in anchors):
                continue
            if whole:
                if entry.size > entry.valid or entry.size > end:
                    continue
                size = entry.size
            else:
                size = min(entry.size, entry.valid, end)
            if size >= rule.minimum and (best is None or size > best[0]):
                best = (size, entry)
        return best

    def seed(self, model: str, size: int, at: float | None, lifetime: int = 300) -> None:
        """An entry the recording found already cached (its first call read it)."""
        self.entries.setdefault(model, []).append(
            _Entry(size=size, block=0, at=at, lifetime=lifetime, call=0, valid=size, anchor=True)
        )

    # -- what the call left ----------------------------------------------------------------

    def _keep(
        self,
        request: Request,
        rule: CacheRule,
        live: list[_Entry],
        read: int,
        end: int,
        automatic: bool,
        predicted: _Entry | None = None,
    ) -> None:
        lifetime = max(rule.lifetimes) if request.hour else rule.lifetimes[0]
        actual = request.reported[1] if request.reported is not None else read
        if request.reported is None:  # the prediction's entry was read
            hit = predicted if read else None
        else:
            hit = self._matching(live, actual) if actual else None
        if hit is not None:
            hit.at = request.at  # a hit refreshes its entry's lifetime
        elif actual and request.reported is not None and actual < end:
            # read from an entry no request of the file wrote: a breakpoint the file does not
            # show (inside the hidden system prompt), known from now on
            live.append(
                _Entry(
                    size=actual,
                    block=0,
                    at=request.at,
                    lifetime=lifetime,
                    call=0,
                    valid=actual,
                    anchor=True,
                )
            )
        sizes = {e.size for e in live}
        if automatic:
            points: tuple[int, ...] = (end - end % rule.step,) if end >= rule.minimum else ()
        else:
            points = (*request.anchors, end) if end >= rule.minimum else ()
        for point in points:
            if point and point not in sizes and point >= rule.minimum:
                anchor = point in request.anchors
                block = 0 if anchor else request.blocks
                live.append(
                    _Entry(
                        size=point,
                        block=block,
                        at=request.at,
                        lifetime=lifetime,
                        call=request.number,
                        valid=point,
                        anchor=anchor,
                    )
                )
                sizes.add(point)
        for entry in live:
            if entry.size in points:  # written again: fresh, and a prefix of this request
                entry.at, entry.valid = request.at, entry.size
        if len(live) > KEPT:
            anchors = [e for e in live if e.anchor][-ANCHORS:]
            rest = [e for e in live if not e.anchor]
            live[:] = anchors + rest[-(KEPT - len(anchors)) :]
        self.entries[request.model] = live
        self.previous[request.model] = end
        self.last_model = request.model

    @staticmethod
    def _matching(entries: Sequence[_Entry], read: int) -> _Entry | None:
        """The entry a read of ``read`` tokens was (within :data:`CLOSE`): the closest in size,
        the newest of equals."""
        near = [e for e in entries if abs(e.size - read) <= max(CLOSE * e.size, 1)]
        return min(near, key=lambda e: (abs(e.size - read), -e.call), default=None)

    # -- the cause -------------------------------------------------------------------------

    def _cause(
        self, request: Request, rule: CacheRule, live: list[_Entry], read: int, end: int
    ) -> tuple[CacheCause | None, str]:
        """Why the call read less than its model's previous call left cached (judged on the
        reported read where there is one, else on the prediction)."""
        expected = self.previous.get(request.model)
        if expected is None:
            if self.last_model not in (None, request.model):
                return "model switched", (
                    f"the first call to {request.model}: a cache serves only the model that "
                    f"wrote it (the previous call was {self.last_model})"
                )
            return None, ""
        if request.reported is None:
            if not expected or read >= (1 - DROP) * expected:
                return None, ""
            return self._predicted(request, rule, expected, read)
        actual = request.reported[1]
        if abs(actual - read) <= max(CLOSE * actual, 1):  # the prediction read what was read
            if not expected or actual >= (1 - DROP) * expected:
                return None, ""
            return self._predicted(request, rule, expected, read)
        if actual > read:  # read more than predicted: a miss only below what was cached
            if not expected or actual >= (1 - DROP) * expected:
                return None, ""
            cause = self._predicted(request, rule, expected, read)
            if cause[0] is not None:
                return cause
        return self._explained(request, rule, live, actual, expected)

    def _predicted(
        self, request: Request, rule: CacheRule, expected: int, read: int
    ) -> tuple[CacheCause | None, str]:
        """The cause the request's facts give (the prediction's own)."""
        if request.change is not None:
            return request.change, request.why
        gone = self._expired_best(request, read)
        if gone is not None:
            return "lifetime expired", gone
        if expected < rule.minimum:
            return "prefix below the minimum", (
                f"the previous call's {expected:,}-token prefix was too short to cache: "
                f"{request.model} caches from {rule.minimum:,}"
            )
        if request.stable is not None and read < expected and self.reading == "breakpoints":
            return "beyond the lookback", (
                f"no entry ends within {LOOKBACK} blocks before a breakpoint and before the "
                f"first changed token ({request.stable:,})"
            )
        return None, ""

    def _expired_best(self, request: Request, read: int) -> str | None:
        """The reason a larger entry than ``read`` was gone: its lifetime ran out."""
        gone = [e for e in self.expired.get(request.model, ()) if e.size > read]
        if not gone or request.at is None:
            return None
        entry = max(gone, key=lambda e: e.size)
        idle = request.at - (entry.at or request.at)
        return (
            f"{idle:,.0f} s since the {entry.size:,}-token prefix was last used, longer than "
            f"its {_duration(entry.lifetime)} lifetime"
        )

    def _explained(
        self, request: Request, rule: CacheRule, live: list[_Entry], actual: int, expected: int
    ) -> tuple[CacheCause, str]:
        """The cause of a recorded read the prediction missed, from what the file shows."""
        if request.change is not None:
            return request.change, request.why
        older = self._matching(live, actual) if actual else None
        if older is not None and not older.anchor:
            return "several entries", (
                f"read call {older.call}'s cached prefix ({older.size:,}), not the latest "
                f"({expected:,}): several entries live at once, and this call reached an older one"
            )
        hidden = request.anchors[0] if request.anchors else None
        if actual and hidden is not None and actual < (1 - CLOSE) * hidden:
            return "system prompt changed", (
                f"read {actual:,}, inside the {hidden:,}-token system prompt and tools the file "
                "does not hold: what follows a breakpoint inside them changed"
            )
        if actual and (older is not None or (hidden is not None and actual <= hidden * 1.02)):
            return "message modified", (
                f"read {actual:,}: only up to the breakpoint after the system prompt and tools; "
                "a message after it changed"
            )
        return "routing (best effort)", (
            f"read {actual:,} of the {expected:,} cached; nothing in the file explains it "
            f"({'routed by a hash of the prefix' if rule.provider == 'openai' else 'another'}"
            " cache server, or an eviction)"
        )


CacheRequest = Request  # the public names (ctx_lab.conversation)
CacheOutcome = Outcome


def _duration(seconds: int) -> str:
    return (
        f"{seconds // 3600} h"
        if seconds >= 3600 and not seconds % 3600
        else (f"{seconds // 60} min")
    )
