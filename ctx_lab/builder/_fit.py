"""Fitting blocks into a build's budget: each block's sections and their count, degrading the
least important one step at a time, the list that references collapse into, and refilling
spare budget by climbing degraded blocks back up — with each step in the block's notes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from heapq import heapify, heappop, heappush
from typing import TYPE_CHECKING

from ..tokens import CountingCache, TokenCounter
from ._blocks import DEGRADATION, POLICIES, ContentBlock
from ._compress import Compressed, apply_policy
from ._held import PackedText, held_by
from ._result import BlockOutcome

__all__ = [
    "LIST_HEADER",
    "MEMORY_HEADER",
    "REFERENCE_SHARE",
    "Fitter",
    "Shrinker",
    "State",
    "cap_list",
    "list_line",
    "outcome",
    "own_text",
    "push_rung",
    "render_prompt",
    "rung_text",
    "section_text",
]


@dataclass(frozen=True)
class Remake:
    """A rung of a ladder whose text ``apply_policy(block, asked, size)`` makes again when a
    refill climbs to it: forms are kept by their maker, not their text (the skeletons and
    summaries of 20,000 files held ~290 MB while a large build was fitted)."""

    asked: str


def rung_text(state: State, text: str | Remake) -> str:
    """A ladder rung's text (made again where the rung keeps how)."""
    if isinstance(text, str):
        return text
    return apply_policy(state.block, text.asked, state.size).text


def push_rung(state: State) -> None:
    """Put the block's current form on its ladder (what refilling climbs back to): a made
    form as how to make it, the block's own text as itself — or, where the block's text is
    held (read again when asked), as the exact form made again."""
    kept: str | Remake = state.text
    if held_by(state.block) is not None or not own_text(state):
        kept = Remake(state.made_as or "exact")
    state.ladder.append((state.policy, kept, state.tokens))


def own_text(state: State) -> bool:
    """Whether the state's text is its block's own (not a form made of it) — known without
    reading a held text again: only a form kept as it is has no maker (``made_as``)."""
    if held_by(state.block) is not None:
        return state.made_as is None
    return state.made_as is None or state.text is state.block.text


@dataclass
class State:
    """One block while the build is fitted: its current form, tokens and history."""

    block: ContentBlock
    order: int
    size: int | None
    policy: str
    if TYPE_CHECKING:
        text: str
    else:
        text: str = PackedText()  # kept compressed where the block's own text is held
    tokens_before: int
    tokens: int = 0
    dropped: bool = False
    exhausted: bool = False
    notes: list[str] = field(default_factory=list)
    partial: bool = False
    boost: int = 0
    start_policy: str = ""
    # the forms this block went through, best first: (policy, text, tokens) — refill climbs back;
    # a form the block's policy makes is kept as how to make it again (Remake), not its text
    ladder: list[tuple[str, str | Remake, int]] = field(default_factory=list)
    made_as: str | None = None  # the policy apply_policy was asked for to make ``text``
    listed_tokens: int | None = None  # its line in the list of other files (counted once)
    unformed: bool = False  # referenced before its compressed form was made (never made)


def section_text(block: ContentBlock, text: str) -> str:
    body = text if text.endswith("\n") or not text else text + "\n"
    if block.source == "task":
        return f"## Task\n{body}"
    if block.source == "memory":
        lines = body.rstrip("\n").split("\n")
        return "- " + "\n  ".join(lines) + "\n"
    return f"\n## File: {block.path}\n{body}"


MEMORY_HEADER = "\n## Relevant Memory\n"
LIST_HEADER = "\n## Other Files (not shown)\n"
# References past this share of the budget go in as one list of paths instead
REFERENCE_SHARE = 0.25


def list_line(block: ContentBlock) -> str:
    """A referenced block as one line of the file list."""
    if block.binary:
        return f"- {block.path} (binary)\n"
    return f"- {block.path} ({block.lines():,} lines)\n"


def render_prompt(
    items: Sequence[tuple[ContentBlock, str]], listed: Sequence[ContentBlock] = ()
) -> str:
    """The prompt: ``## Task``, then ``## Relevant Memory`` bullets, then ``## File:`` sections,
    then the ``listed`` blocks as one list of paths (references collapsed)."""
    tasks = [section_text(b, t) for b, t in items if b.source == "task"]
    memory = [section_text(b, t) for b, t in items if b.source == "memory"]
    files = [section_text(b, t) for b, t in items if b.source == "file"]
    listing = LIST_HEADER + "".join(list_line(b) for b in listed) if listed else ""
    return (
        "".join(tasks)
        + (MEMORY_HEADER + "".join(memory) if memory else "")
        + "".join(files)
        + listing
    )


class Fitter:
    """Counts and degrades blocks under one counter and budget."""

    def __init__(self, counter: TokenCounter, budget: int) -> None:
        self.counter = counter
        self.count = CountingCache(counter).count
        self.budget = budget
        # the running sums of :meth:`total` over the tracked states (see :meth:`track`)
        self._tracked: Sequence[State] | None = None
        self._parts: dict[int, tuple[int, int, int, int]] = {}
        self._sums = [0, 0, 0, 0]  # other sections, reference sections, list lines, memories
        self._memory_header = self.count(MEMORY_HEADER)
        self._list_header = self.count(LIST_HEADER)

    def track(self, states: Sequence[State]) -> None:
        """Keep :meth:`total` of ``states`` as running sums: every change to a state goes
        through :meth:`changed`, so a total costs nothing however many blocks there are."""
        self._tracked, self._parts, self._sums = states, {}, [0, 0, 0, 0]
        for state in states:
            part = self._parts[id(state)] = self._part(state)
            for i, value in enumerate(part):
                self._sums[i] += value

    def _part(self, s: State) -> tuple[int, int, int, int]:
        if s.dropped:
            return 0, 0, 0, 0
        memory = 1 if s.block.source == "memory" else 0
        if s.policy == "reference" and s.block.source == "file":
            return 0, s.tokens, self.list_tokens(s), memory
        return s.tokens, 0, 0, memory

    def changed(self, state: State) -> None:
        """Take a tracked state's new form (or its dropping) into the running sums."""
        if self._tracked is None:
            return
        old = self._parts.get(id(state), (0, 0, 0, 0))
        new = self._parts[id(state)] = self._part(state)
        sums = self._sums
        sums[0] += new[0] - old[0]
        sums[1] += new[1] - old[1]
        sums[2] += new[2] - old[2]
        sums[3] += new[3] - old[3]

    def part(self, state: State) -> int:
        return self.count(section_text(state.block, state.text))

    @staticmethod
    def _listable(state: State) -> bool:
        return not state.dropped and state.policy == "reference" and state.block.source == "file"

    def listed(self, states: Sequence[State]) -> list[State]:
        """The file references that go in as one list: all of them once their sections would
        take more than :data:`REFERENCE_SHARE` of the budget, else none."""
        references = [s for s in states if self._listable(s)]
        if sum(s.tokens for s in references) <= self.budget * REFERENCE_SHARE:
            return []
        return references

    def list_tokens(self, state: State) -> int:
        if state.listed_tokens is None:  # the block never changes: neither does its line
            state.listed_tokens = self.count(list_line(state.block))
        return state.listed_tokens

    def total(self, states: Sequence[State]) -> int:
        """The prompt's tokens as the parts add up (from the running sums when ``states`` are
        the tracked ones, else one pass)."""
        if states is self._tracked:
            other, sections, as_list, memories = self._sums
        else:
            other = sections = as_list = memories = 0
            for s in states:
                o, r, li, m = self._part(s)
                other, sections, as_list, memories = (
                    other + o,
                    sections + r,
                    as_list + li,
                    memories + m,
                )
        header = self._memory_header if memories else 0
        if sections > self.budget * REFERENCE_SHARE:  # the rule of listed()
            return header + other + self._list_header + as_list
        return header + other + sections

    def render(self, states: Sequence[State]) -> str:
        listed = self.listed(states)
        chosen = {id(s) for s in listed}
        return render_prompt(
            [(s.block, s.text) for s in states if not s.dropped and id(s) not in chosen],
            [s.block for s in listed],
        )

    def degrade(self, state: State) -> bool:
        """One step down (skipping steps that would not shrink the block)."""
        policy = state.policy
        while policy in DEGRADATION:
            policy = DEGRADATION[policy]
            held = (  # the structural form it has now: a summary of it parses nothing again
                Compressed(state.text, "structural")
                if state.policy == "structural" and not own_text(state)
                else None
            )
            candidate = apply_policy(state.block, policy, state.size, skeleton=held)
            section = self.count(section_text(state.block, candidate.text))
            if section < state.tokens:
                # the text's own tokens, as tokens_before and tokens_after count them
                state.notes.append(
                    f"{state.policy} → {candidate.policy} ({self.count(state.text)} → "
                    f"{self.count(candidate.text)} tokens)"
                )
                push_rung(state)
                state.policy, state.text, state.tokens = candidate.policy, candidate.text, section
                state.made_as = policy
                state.partial = candidate.partial
                state.exhausted = candidate.policy not in DEGRADATION  # the last step taken
                self.changed(state)
                return True
        state.exhausted = True
        return False


class Shrinker:
    """One step of making a build smaller: degrade the least important block — the lowest
    priority, then the largest, then the latest — one step down; once no block can go further,
    drop the least important. The next block comes from heaps (stale entries skipped), so a
    step costs log n, not a scan of every block."""

    def __init__(self, states: Sequence[State], builder: Fitter) -> None:
        self.states = states
        self.builder = builder
        self.refresh()

    def refresh(self) -> None:
        """Rebuild the heaps (after changes made elsewhere, such as a refill)."""
        self._degradable = self._heap(degradable=True)
        # made when the first block must be dropped: until then no step needs it
        self._droppable: list[tuple[int, int, int, int]] | None = None
        self._untouched: list[tuple[int, int, int, int]] | None = None

    def _heap(self, *, degradable: bool) -> list[tuple[int, int, int, int]]:
        """The blocks that can still be dropped (or degraded), least important first."""
        heap = [
            self._entry(i)
            for i, state in enumerate(self.states)
            if state.policy != "exact"
            and not state.dropped
            and not (degradable and state.exhausted)
        ]
        heapify(heap)
        return heap

    def _entry(self, i: int) -> tuple[int, int, int, int]:
        state = self.states[i]
        return state.block.priority, -state.tokens, state.order, i

    def step(self) -> bool:
        """Degrade (or else drop) one block; False when nothing is left to give. Before a
        file the task touches would fall to a reference, a file it does not touch that is
        still shown is dropped instead (the task's files come before trivia)."""
        while self._degradable:
            entry = heappop(self._degradable)
            state = self.states[entry[3]]
            if state.dropped or state.exhausted or -state.tokens != entry[1]:
                continue  # changed since it was queued: its current entry is queued too
            if self._would_hide(state) and self._drop_untouched(state):
                heappush(self._degradable, entry)
                return True
            if self.builder.degrade(state):
                new = self._entry(entry[3])
                if not state.exhausted:
                    heappush(self._degradable, new)
                if self._droppable is not None:
                    heappush(self._droppable, new)
                return True
        if self._droppable is None:
            self._droppable = self._heap(degradable=False)
        droppable = self._droppable
        while droppable:
            entry = heappop(droppable)
            target = self.states[entry[3]]
            if target.dropped or -target.tokens != entry[1]:
                continue
            push_rung(target)
            target.dropped = True
            target.notes.append("dropped: still over budget with every non-exact block a reference")
            self.builder.changed(target)
            return True
        return False

    @staticmethod
    def _would_hide(state: State) -> bool:
        """Whether degrading ``state`` takes a file the task touches down to a reference."""
        return (
            state.boost > 0
            and state.block.source == "file"
            and DEGRADATION.get(state.policy) == "reference"
        )

    def _drop_untouched(self, touched: State) -> bool:
        """Drop the least important shown file the task does not touch (lower priority than
        ``touched``); False when there is none."""
        if self._untouched is None:
            self._untouched = [
                self._entry(i)
                for i, s in enumerate(self.states)
                if s.boost <= 0 and s.block.source == "file" and s.policy != "exact"
            ]
            heapify(self._untouched)
        while self._untouched:
            entry = self._untouched[0]
            target = self.states[entry[3]]
            if target.dropped or target.policy == "reference":
                heappop(self._untouched)
                continue
            if target.block.priority >= touched.block.priority:
                return False
            heappop(self._untouched)
            push_rung(target)
            target.dropped = True
            target.notes.append(
                "dropped: the files the task touches come first at this budget "
                f"({touched.block.path} would otherwise be only a reference)"
            )
            self.builder.changed(target)
            return True
        return False


def cap_list(states: list[State], builder: Fitter) -> None:
    """Keep the list of other files within :data:`REFERENCE_SHARE` of the budget: the
    lowest-priority entries leave it (dropped, and said so) until it fits."""
    listed = builder.listed(states)
    room = builder.budget * REFERENCE_SHARE - builder.count(LIST_HEADER)
    used = sum(builder.list_tokens(s) for s in listed)
    for state in sorted(listed, key=lambda s: (s.block.priority, -s.order)):
        if used <= room:
            return
        used -= builder.list_tokens(state)
        state.dropped = True  # no ladder: refilling must not bring it back into the list
        builder.changed(state)
        state.notes.append("dropped: the list of other files is at a quarter of the budget")


def _rank(policy: str) -> int:
    """0 for exact, the best form, up to the reference."""
    return POLICIES.index(policy) if policy in POLICIES else len(POLICIES)


def outcome(state: State, builder: Fitter, listed: bool = False) -> BlockOutcome:
    block = state.block
    if state.dropped:
        action, after = "dropped", 0
    elif listed:
        action, after = "listed", builder.list_tokens(state)
    elif _rank(state.policy) > _rank(state.start_policy):
        action, after = "degraded", builder.count(state.text)
    else:
        action, after = "kept", builder.count(state.text)
    reason = "; ".join(state.notes) or (
        "exact: never degraded" if state.policy == "exact" else f"{state.policy} by default"
    )
    return BlockOutcome(
        block=block.id,
        source=block.source,
        path=block.path,
        priority=block.priority - state.boost,  # its own priority; the task's boost is beside it
        policy_initial=block.policy,
        policy_final=state.policy,
        tokens_before=state.tokens_before,
        tokens_after=after,
        action=action,
        reason=reason,
        partial=state.partial,
        boost=state.boost,
    )
