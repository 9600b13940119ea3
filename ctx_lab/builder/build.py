"""``build_context``: collect task, memory and file blocks, compress each by policy, and
degrade the least important blocks until the prompt fits the budget (design:
context-builder.md, refined by the builder issue). Rule-based and deterministic."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..display import RichResult, escape, html_table
from ..errors import (
    ContextNotFound,
    ExactContentTooLarge,
    FileTooLarge,
    InputFileError,
)
from ..files import decode_text, is_binary, read_bytes
from ..limits import LIMITS
from ..models import ModelRegistry
from ..packet.context import load_context
from ..packet.scoring import DEFAULT_STOP_WORDS, Bm25, extract_keywords, terms, words
from ..severity import fit_severity
from ..token_budget import config_budget, resolve_token_budget
from ..tokens import (
    CounterChoice,
    CounterLike,
    CountingCache,
    TokenCounter,
    get_counter,
    resolve_counter,
)
from .blocks import DEGRADATION, ContentBlock
from .collect import collect_paths, display_path
from .compress import apply_policy
from .memory import ContextMemory, MemorySource

__all__ = [
    "DEFAULT_BUILD_BUDGET",
    "BlockOutcome",
    "BuildResult",
    "build_context",
    "render_prompt",
    "resolve_build_budget",
]

DEFAULT_BUILD_BUDGET = 60_000
MEMORY_RESULTS = 10


@dataclass(frozen=True)
class BlockOutcome:
    """What happened to one block."""

    block: str
    source: str
    path: str
    priority: int
    policy_initial: str
    policy_final: str
    tokens_before: int
    tokens_after: int
    action: str
    reason: str
    partial: bool = False  # parts of the file did not parse and are left out of its skeleton
    boost: int = 0  # priority added for matching the task

    def to_dict(self) -> dict[str, Any]:
        """The ledger row as JSON."""
        return dict(self.__dict__)


LEDGER_COLUMNS = list(BlockOutcome.__dataclass_fields__)


@dataclass
class _State:
    block: ContentBlock
    order: int
    size: int | None
    policy: str
    text: str
    tokens_before: int
    tokens: int = 0
    dropped: bool = False
    exhausted: bool = False
    notes: list[str] = field(default_factory=list)
    partial: bool = False
    boost: int = 0
    start_policy: str = ""
    # the forms this block went through, best first: (policy, text, tokens) — refill climbs back
    ladder: list[tuple[str, str, int]] = field(default_factory=list)
    listed_tokens: int | None = None  # its line in the list of other files (counted once)


def _section_text(block: ContentBlock, text: str) -> str:
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


def _list_line(block: ContentBlock) -> str:
    """A referenced block as one line of the file list."""
    if block.binary:
        return f"- {block.path} (binary)\n"
    lines = block.text.count("\n") + (0 if block.text.endswith("\n") or not block.text else 1)
    return f"- {block.path} ({lines:,} lines)\n"


def render_prompt(
    items: Sequence[tuple[ContentBlock, str]], listed: Sequence[ContentBlock] = ()
) -> str:
    """The prompt: ``## Task``, then ``## Relevant Memory`` bullets, then ``## File:`` sections,
    then the ``listed`` blocks as one list of paths (references collapsed)."""
    tasks = [_section_text(b, t) for b, t in items if b.source == "task"]
    memory = [_section_text(b, t) for b, t in items if b.source == "memory"]
    files = [_section_text(b, t) for b, t in items if b.source == "file"]
    listing = LIST_HEADER + "".join(_list_line(b) for b in listed) if listed else ""
    return (
        "".join(tasks)
        + (MEMORY_HEADER + "".join(memory) if memory else "")
        + "".join(files)
        + listing
    )


def resolve_build_budget(
    budget: int | None,
    model: str | None,
    root: str | os.PathLike[str] = ".",
    registry: str | ModelRegistry | None = None,
    warnings: list[str] | None = None,
) -> tuple[int, str]:
    """The argument; else the model's effective input budget; else ``CTX_TOKEN_BUDGET``; else
    ``token_budget`` in the project's ``.ctxrc``, ``ctx-lab.toml`` or ``pyproject.toml``; else
    60 000 (:func:`ctx_lab.token_budget.resolve_token_budget`)."""
    configured = None
    if budget is None and model is None:
        configured = config_budget(Path(root), [] if warnings is None else warnings)
    return resolve_token_budget(
        budget, model, default=DEFAULT_BUILD_BUDGET, configured=configured, registry=registry
    )


@dataclass(frozen=True)
class BuildResult(RichResult):
    """The built prompt, its token count and budget, and every block's fate."""

    prompt: str
    tokens: int
    budget: int
    blocks: tuple[BlockOutcome, ...]
    warnings: tuple[str, ...] = ()
    counter: str = "chars/3"
    budget_source: str = "argument"
    counter_requested: str | None = None
    exact: bool | None = None

    payload_kind = "build"

    def to_markdown(self) -> str:
        """The prompt."""
        return self.prompt

    def to_dict(self) -> dict[str, Any]:
        """Prompt, tokens, budget, counter, blocks and warnings."""
        return {
            "prompt": self.prompt,
            "tokens": self.tokens,
            "budget": self.budget,
            "counter": self.counter,
            "counter_requested": self.counter_requested or self.counter,
            "exact": self.exact,
            "budget_source": self.budget_source,
            "severity": fit_severity(self.tokens, self.budget),
            "blocks": [b.to_dict() for b in self.blocks],
            "warnings": list(self.warnings),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BuildResult:
        """The inverse of :meth:`to_dict` (``severity`` is derived)."""
        return cls(
            data["prompt"],
            data["tokens"],
            data["budget"],
            tuple(BlockOutcome(**b) for b in data.get("blocks", ())),
            tuple(data.get("warnings", ())),
            data.get("counter", "chars/3"),
            data.get("budget_source", "argument"),
            data.get("counter_requested"),
            data.get("exact"),
        )

    def render(self, fmt: str = "md") -> str:
        """``md`` (the prompt) or ``json``."""
        return self.to_json() if fmt == "json" else self.prompt

    def to_text(self) -> str:
        """A summary table, then the prompt."""
        rows = [
            [b.block, b.policy_final, b.tokens_before, b.tokens_after, b.action]
            for b in self.blocks
        ]
        from ..display import text_table

        table = text_table(["block", "policy", "before", "after", "action"], rows)
        return f"{self.tokens} of {self.budget} tokens ({self.counter})\n{table}"

    def html_body(self) -> str:
        """Blocks with their final policies and savings, and the prompt."""
        rows = [
            [
                b.block,
                b.priority,
                f"{b.policy_initial} → {b.policy_final}"
                if b.policy_initial != b.policy_final
                else b.policy_final,
                b.tokens_before,
                b.tokens_after,
                f"{1 - b.tokens_after / b.tokens_before:.0%}" if b.tokens_before else "",
                b.action,
                b.reason,
            ]
            for b in self.blocks
        ]
        table = html_table(
            ["block", "priority", "policy", "before", "after", "saved", "action", "reason"],
            rows,
            numeric=(1, 3, 4),
        )
        return (
            f"<h4 data-ctx-build>Built prompt: <span data-ctx-tokens>{self.tokens:,}</span> / "
            f"<span data-ctx-budget>{self.budget:,}</span> tokens "
            f'<span class="ctx-muted">({escape(self.counter)})</span></h4>{table}'
            f"<details><summary>Prompt</summary><pre>{escape(self.prompt)}</pre></details>"
        )

    def ledger(self) -> Any:
        """A DataFrame: block, source, path, priority, policies, tokens, action, reason."""
        import pandas as pd

        return pd.DataFrame([b.to_dict() for b in self.blocks], columns=LEDGER_COLUMNS)

    def plot(self, ax: Any = None) -> Any:
        """Tokens per block before and after, coloured by final policy. Returns the Figure."""
        from .plots import plot_blocks

        return plot_blocks(self, ax=ax)


def _read_file(
    path: Path,
    base: Path,
    warnings: list[str],
    priorities: Mapping[str, int] | None,
    exact: set[str],
    room: int,
) -> tuple[ContentBlock, int] | None:
    """The file's block; a file over the per-file limit, or beyond what the build may still
    read, becomes a reference that says so (never read, never failing the build)."""
    label = display_path(path, base)
    try:
        size = path.stat().st_size
        over = _over_limit(size, room)
        binary, text = over is not None, ""
        if not binary:
            data = read_bytes(path)
            size = len(data)
            binary = is_binary(data)  # the whole file: a NUL far in is still binary
            if not binary:
                text = decode_text(data, label, warnings)
    except FileTooLarge as exc:  # grew while being read
        over, binary, text = str(exc), True, ""
    except (InputFileError, OSError) as exc:
        warnings.append(f"{label}: {exc}; skipped")
        return None
    if over is not None:
        warnings.append(f"{label}: {over}; referenced, not read")
    policy = "exact" if label in exact or str(path) in exact else None
    block = ContentBlock.for_file(
        label, text, policy=policy, binary=binary, priorities=dict(priorities or {})
    )
    return block, size


def _over_limit(size: int, room: int) -> str | None:
    rule = LIMITS["file"]
    if size > rule.value():
        return f"{size:,} bytes is over {rule.describe()}"
    if size > room:
        build = LIMITS["build"]
        return f"reading it would pass {build.describe()}"
    return None


class _Builder:
    def __init__(self, counter: TokenCounter, budget: int) -> None:
        self.counter = counter
        self.count = CountingCache(counter).count
        self.budget = budget

    def part(self, state: _State) -> int:
        return self.count(_section_text(state.block, state.text))

    @staticmethod
    def _listable(state: _State) -> bool:
        return not state.dropped and state.policy == "reference" and state.block.source == "file"

    def listed(self, states: Sequence[_State]) -> list[_State]:
        """The file references that go in as one list: all of them once their sections would
        take more than :data:`REFERENCE_SHARE` of the budget, else none."""
        references = [s for s in states if self._listable(s)]
        if sum(s.tokens for s in references) <= self.budget * REFERENCE_SHARE:
            return []
        return references

    def list_tokens(self, state: _State) -> int:
        if state.listed_tokens is None:  # the block never changes: neither does its line
            state.listed_tokens = self.count(_list_line(state.block))
        return state.listed_tokens

    def total(self, states: Sequence[_State]) -> int:
        """The prompt's tokens as the parts add up (one pass: the degrade loop asks often)."""
        other = sections = as_list = 0
        memory = False
        for s in states:
            if s.dropped:
                continue
            memory = memory or s.block.source == "memory"
            if s.policy == "reference" and s.block.source == "file":
                sections += s.tokens
                as_list += self.list_tokens(s)
            else:
                other += s.tokens
        header = self.count(MEMORY_HEADER) if memory else 0
        if sections > self.budget * REFERENCE_SHARE:  # the rule of listed()
            return header + other + self.count(LIST_HEADER) + as_list
        return header + other + sections

    def render(self, states: Sequence[_State]) -> str:
        listed = self.listed(states)
        chosen = {id(s) for s in listed}
        return render_prompt(
            [(s.block, s.text) for s in states if not s.dropped and id(s) not in chosen],
            [s.block for s in listed],
        )

    def degrade(self, state: _State) -> bool:
        """One step down (skipping steps that would not shrink the block)."""
        policy = state.policy
        while policy in DEGRADATION:
            policy = DEGRADATION[policy]
            candidate = apply_policy(state.block, policy, state.size)
            section = self.count(_section_text(state.block, candidate.text))
            if section < state.tokens:
                # the text's own tokens, as tokens_before and tokens_after count them
                state.notes.append(
                    f"{state.policy} → {candidate.policy} ({self.count(state.text)} → "
                    f"{self.count(candidate.text)} tokens)"
                )
                state.ladder.append((state.policy, state.text, state.tokens))
                state.policy, state.text, state.tokens = candidate.policy, candidate.text, section
                state.partial = candidate.partial
                return True
        state.exhausted = True
        return False


def build_context(
    task: str | ContentBlock,
    files: Iterable[str | os.PathLike[str] | ContentBlock] = (),
    memory: MemorySource | str | os.PathLike[str] | None = None,
    budget: int | None = None,
    counter: CounterLike | None = None,
    model: str | None = None,
    *,
    root: str | os.PathLike[str] = ".",
    priorities: Mapping[str, int] | None = None,
    exact: Iterable[str] = (),
    registry: str | ModelRegistry | None = None,
    confined: bool = False,
    task_boost: bool = True,
) -> BuildResult:
    """Build a prompt from a task, files (paths, directories, globs or blocks) and memory (a
    :class:`MemorySource` or a ``.context/`` directory) within ``budget`` tokens.

    Default policies: the task and paths listed in ``exact`` are exact; code and data files
    structural; text summarizable; binary reference. While the prompt is over budget, the
    lowest-priority degradable block goes one step down (ties: the larger first, then input
    order); when only references are left, the lowest-priority non-exact blocks are dropped.
    Then spare budget is used again: degraded blocks climb back up (reference → summarizable →
    structural → their first form), highest priority first, while the prompt still fits — each
    upgrade in the ledger. File blocks that match the task's words (the packet's BM25) get up to
    +15 priority, in proportion (``task_boost=False`` turns that off).
    The final prompt is re-counted: its tokens are ≤ the budget, or
    :class:`ExactContentTooLarge` says which exact blocks do not fit.

    Relative paths and the budget configuration are taken from ``root``. With ``confined``
    (the REST server), every file — named, found in a directory or matched by a glob — and the
    memory directory must resolve inside ``root`` (:class:`~ctx_lab.errors.PathOutsideRoot`).
    """
    if counter is None or isinstance(counter, str):
        choice = resolve_counter(counter, model, "chars/3")
    else:
        made = get_counter(counter)
        choice = CounterChoice(made.name, made.name, made.exact, "", made)
    tokens = get_counter(choice.use)
    warnings: list[str] = [choice.note] if choice.note else []
    budget_value, budget_source = resolve_build_budget(budget, model, root, registry, warnings)
    base = Path(root)
    if confined and memory is not None and not isinstance(memory, MemorySource):
        try:
            memory = ContextMemory(load_context(memory, root=root))
        except ContextNotFound as exc:
            warnings.append(f"memory: {exc}; built without memory")
            memory = None
    exact_paths = set(exact)
    boosts: dict[str, tuple[int, tuple[str, ...], str]] = {}

    blocks: list[tuple[ContentBlock, int | None]] = []
    blocks.append((task if isinstance(task, ContentBlock) else ContentBlock.for_task(task), None))
    memory_blocks: list[ContentBlock] = []
    if memory is not None:
        query = blocks[0][0].text
        try:
            source = memory if isinstance(memory, MemorySource) else ContextMemory(memory)
            memory_blocks = list(source.search(query, MEMORY_RESULTS))
        except Exception as exc:  # a failing memory source is skipped, never fatal
            warnings.append(
                f"memory source failed ({type(exc).__name__}: {exc}); built without memory"
            )
    blocks += [(b, None) for b in memory_blocks]
    paths: list[str] = []
    for item in files:
        if isinstance(item, ContentBlock):
            blocks.append((item, None))
        else:
            paths.append(os.fspath(item))
    found, missing = collect_paths(paths, base, confined=confined)
    warnings += missing
    room = LIMITS["build"].value()
    for path in found:
        read = _read_file(path, base, warnings, priorities, exact_paths, room)
        if read is not None:
            blocks.append(read)
            room -= read[1] if not read[0].binary else 0

    if task_boost:
        blocks, boosts = _boost(blocks)
    builder = _Builder(tokens, budget_value)
    states: list[_State] = []
    for order, (block, size) in enumerate(blocks):
        raw_tokens = builder.count(block.text)
        compressed = apply_policy(block, block.policy, size)
        state = _State(block, order, size, compressed.policy, compressed.text, raw_tokens)
        state.partial = compressed.partial
        state.start_policy = compressed.policy
        if block.id in boosts:
            boost, matched, why = boosts[block.id]
            state.boost = boost
            note = why or f"task boost {boost:+d}"
            if matched:
                note += f" (matches {', '.join(matched[:5])})"
            state.notes.append(note)
        if block.reason:
            state.notes.append(block.reason)
        if compressed.note:
            state.notes.append(compressed.note)
        state.tokens = builder.part(state)
        raw_section = builder.count(_section_text(block, block.text))
        if compressed.policy != "exact" and state.tokens >= raw_section and not block.binary:
            state.text, state.tokens = block.text, raw_section  # the step would not shrink it
            state.start_policy = state.policy = block.policy
            state.notes.append(f"{compressed.policy} form not smaller; kept as is")
        states.append(state)

    exact_states = [s for s in states if s.policy == "exact"]
    exact_prompt = render_prompt([(s.block, s.text) for s in exact_states])
    exact_tokens = builder.count(exact_prompt)
    if exact_tokens > budget_value:
        raise ExactContentTooLarge(
            [(s.block.id, builder.count(s.block.text)) for s in exact_states],
            exact_tokens,
            budget_value,
        )

    def over() -> bool:
        return builder.total(states) > budget_value

    def shrink() -> bool:
        candidates = [
            s for s in states if not s.dropped and s.policy != "exact" and not s.exhausted
        ]
        while candidates:
            target = min(candidates, key=lambda s: (s.block.priority, -s.tokens, s.order))
            if builder.degrade(target):
                return True
            candidates.remove(target)
        droppable = [s for s in states if not s.dropped and s.policy != "exact"]
        if not droppable:
            return False
        target = min(droppable, key=lambda s: (s.block.priority, -s.tokens, s.order))
        target.ladder.append((target.policy, target.text, target.tokens))
        target.dropped = True
        target.notes.append("dropped: still over budget with every non-exact block a reference")
        return True

    while over() and shrink():
        pass
    _cap_list(states, builder)
    _refill(states, builder, budget_value)
    prompt = builder.render(states)
    final = builder.count(prompt)
    while final > budget_value and shrink():  # part sums may differ from the whole's count
        prompt = builder.render(states)
        final = builder.count(prompt)
    listed = {id(s) for s in builder.listed(states)}
    for state in states:
        if id(state) in listed:
            state.notes.append(
                "in the list of other files (references over a quarter of the budget)"
            )
    if final > budget_value:
        raise ExactContentTooLarge(
            [(s.block.id, builder.count(s.block.text)) for s in exact_states], final, budget_value
        )
    return BuildResult(
        prompt,
        final,
        budget_value,
        tuple(_outcome(s, builder, id(s) in listed) for s in states),
        tuple(warnings),
        tokens.name,
        budget_source,
        choice.requested,
        choice.exact,
    )


TASK_BOOST = 15  # the most priority a block gains for matching the task's words
NAMED_BOOST = 25  # a file the task names, or that defines a symbol the task names
TEST_PENALTY = 10  # a test file, when the task is not about tests
_GENERIC_FOLDERS = {"src", "lib", "crates", "pkg", "internal", "source", "app", "packages", ""}
_TEST_WORDS = {"test", "tests", "testing", "spec", "specs", "fixture", "fixtures"}
_TEST_PATH = re.compile(
    r"(?:^|/)(?:tests?|__tests__|specs?|testdata)/|(?:^|/)test_[^/]*\.py$|_test\.\w+$|"
    r"\.(?:test|spec)\.[jt]sx?$|(?:^|/)tests?\.rs$|Tests?\.(?:java|kt|cs)$"
)
_IDENTIFIER = re.compile(r"`[^`]+`|[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?:\(\))?")


def _is_test(path: str) -> bool:
    return _TEST_PATH.search(path) is not None


def _task_names(task: str) -> tuple[set[str], set[str]]:
    """What the task names: (code-like identifiers — dotted, backquoted, with ``_``, an inner
    capital or ``()`` — and file names with an extension)."""
    symbols: set[str] = set()
    files: set[str] = set()
    for token in _IDENTIFIER.findall(task):
        quoted = token.startswith("`")
        token = token.strip("`").removesuffix("()")
        for part in re.split(r"[^A-Za-z0-9_]+", token):
            code_like = quoted or "." in token or "_" in part or re.search(r"[a-z][A-Z]", part)
            if len(part) >= 3 and (code_like or re.fullmatch(r"[A-Z]{2,}\w*[a-z]\w*", part)):
                symbols.add(part)
    for found in re.findall(r"[\w./-]+\.[A-Za-z]{1,5}\b", task):
        files.add(found.rsplit("/", 1)[-1].lower())
    return symbols, files


def _definitions(symbols: set[str]) -> re.Pattern[str] | None:
    if not symbols:
        return None
    names = "|".join(sorted(map(re.escape, symbols)))
    return re.compile(
        r"\b(?:def|class|func|fn|function|type|struct|enum|trait|interface|impl|const|let|var|"
        rf"mod|module|object|record)\s+(?:\([^)]*\)\s*)?(?P<name>{names})\b"
    )


def _boost(
    blocks: list[tuple[ContentBlock, int | None]],
) -> tuple[list[tuple[ContentBlock, int | None]], dict[str, tuple[int, tuple[str, ...], str]]]:
    """File and memory blocks ranked against the task: the packet's BM25 over their paths and
    text (the best match gains :data:`TASK_BOOST`, others in proportion); a file the task
    names — by file name, or by a symbol it defines — gains :data:`NAMED_BOOST` instead; a
    test file loses :data:`TEST_PENALTY` unless the task is about tests."""
    task = next((b.text for b, _ in blocks if b.source == "task"), "")
    query = extract_keywords([task])
    ranked = [
        (i, b) for i, (b, _) in enumerate(blocks) if b.source in ("file", "memory") and not b.binary
    ]
    if not ranked:
        return blocks, {}
    documents = [terms(f"{b.path.replace('/', ' ')}\n{b.text}") for _, b in ranked]
    model = Bm25(documents)
    scores = model.scores(query) if query else [0.0] * len(ranked)
    top = max(scores, default=0.0)
    holding = {t: model.frequencies(t) for t in dict.fromkeys(query)}
    symbols, file_names = _task_names(task)
    defines = _definitions(symbols)
    lowered = {s.lower() for s in symbols}
    task_words = set(words(task)) - DEFAULT_STOP_WORDS
    about_tests = not _TEST_WORDS.isdisjoint(task_words)
    found: dict[str, tuple[int, tuple[str, ...], str]] = {}
    boosted = list(blocks)
    for j, ((i, block), score) in enumerate(zip(ranked, scores, strict=True)):
        boost = round(TASK_BOOST * score / top) if top > 0 else 0
        matched = tuple(t for t, where in holding.items() if j in where)
        why = ""
        if block.source == "file":
            name = block.path.rsplit("/", 1)[-1]
            stem = name.rsplit(".", 1)[0].lower()
            defined = defines.search(block.text) if defines is not None else None
            folders = set(block.path.lower().split("/")[:-1]) - _GENERIC_FOLDERS
            if name.lower() in file_names or stem in lowered:
                boost, why = NAMED_BOOST, f"named by the task ({name})"
            elif stem in task_words and not folders.isdisjoint(task_words):
                boost, why = NAMED_BOOST, f"named by the task ({block.path}: its folder and name)"
            elif defined is not None:
                boost, why = NAMED_BOOST, f"defines {defined['name']}, which the task names"
            if _is_test(block.path) and not about_tests:
                boost -= TEST_PENALTY
                why = "; ".join(
                    filter(None, [why, f"test file −{TEST_PENALTY} (the task is not about tests)"])
                )
        if boost == 0:
            continue
        boosted[i] = (replace(block, priority=block.priority + boost), blocks[i][1])
        found[block.id] = (boost, matched, why)
    return boosted, found


def _cap_list(states: list[_State], builder: _Builder) -> None:
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
        state.notes.append("dropped: the list of other files is at a quarter of the budget")


def _refill(states: list[_State], builder: _Builder, budget: int) -> None:
    """Climb degraded (and dropped) blocks back up their ladder, highest priority first, while
    the prompt fits: spare budget is never left unused when an upgrade would fit."""
    while True:
        climbed = False
        candidates = sorted(
            (s for s in states if s.ladder), key=lambda s: (-s.block.priority, s.order)
        )
        for state in candidates:
            policy, text, tokens = state.ladder[-1]
            saved = (state.policy, state.text, state.tokens, state.dropped)
            before = "dropped" if state.dropped else f"{state.policy} ({state.tokens} tokens)"
            state.policy, state.text, state.tokens, state.dropped = policy, text, tokens, False
            if builder.total(states) <= budget:
                state.ladder.pop()
                state.exhausted = False
                state.notes.append(f"refilled: {before} → {policy} ({tokens} tokens)")
                climbed = True
                break
            state.policy, state.text, state.tokens, state.dropped = saved
        if not climbed:
            return


def _outcome(state: _State, builder: _Builder, listed: bool = False) -> BlockOutcome:
    block = state.block
    if state.dropped:
        action, after = "dropped", 0
    elif listed:
        action, after = "listed", builder.list_tokens(state)
    elif state.policy != state.start_policy:
        action, after = "degraded", builder.count(state.text)
    else:
        action, after = "kept", builder.count(state.text)
    reason = "; ".join(state.notes) or (
        "exact: never degraded" if state.policy == "exact" else f"{state.policy} by default"
    )
    return BlockOutcome(
        block.id,
        block.source,
        block.path,
        block.priority - state.boost,  # its own priority; the task's boost is beside it
        block.policy,
        state.policy,
        state.tokens_before,
        after,
        action,
        reason,
        state.partial,
        state.boost,
    )
