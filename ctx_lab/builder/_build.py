"""``build_context``: collect task, memory and file blocks, compress each by policy, and
degrade the least important blocks until the prompt fits the budget (design:
context-builder.md, refined by the builder issue). Rule-based and deterministic.

Its parts have a module each: which files the task is about (``_boost``), fitting blocks into
the budget (``_fit``) and the result with its ledger (``_result``)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..display import first_of
from ..errors import (
    ContextNotFound,
    ExactContentTooLarge,
    FileTooLarge,
    InputFileError,
)
from ..files import RealPaths, decode_text, is_binary, read_bytes
from ..limits import LIMITS
from ..models import ModelRegistry
from ..packet import load_context
from ..token_budget import config_budget, resolve_token_budget
from ..tokens import (
    CounterChoice,
    CounterLike,
    get_counter,
    resolve_counter,
)
from ._blocks import ContentBlock
from ._boost import boost_blocks
from ._collect import collect_paths
from ._compress import apply_policy
from ._fit import (
    Fitter,
    Shrinker,
    State,
    cap_list,
    outcome,
    render_prompt,
    section_text,
)
from ._held import Reread, digest, held_by, keep_within, line_count, replaced
from ._memory import ContextMemory, MemorySource
from ._refill import refill
from ._result import BlockOutcome, BuildResult

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


def _read_file(
    path: Path,
    base: Path,
    warnings: list[str],
    priorities: Mapping[str, int] | None,
    exact: set[str],
    room: int,
    paths: RealPaths,
    keep: int,
    past: list[str],
) -> tuple[ContentBlock, int] | None:
    """The file's block; a file over the per-file limit, or beyond what the build may still
    read, becomes a reference that says so (never read, never failing the build; a file past
    the build's total is named in ``past``, said once for all). A text
    larger than ``keep`` (what the build may still keep in memory) is kept as where to read
    it again (:class:`~._held.Reread`)."""
    label = paths.display(path, base)
    try:
        size = path.stat().st_size
        over = _over_limit(size, room)
        binary, text, data = over is not None, "", b""
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
    if over == PAST_TOTAL:
        past.append(label)
    elif over is not None:
        warnings.append(f"{label}: {over}; referenced, not read")
    policy = "exact" if label in exact or str(path) in exact else None
    block = ContentBlock.for_file(
        label, text, policy=policy, binary=binary, priorities=dict(priorities or {})
    )
    if text and len(data) > keep:
        where = Reread(os.fspath(path), label, len(data), digest(data), line_count(text))
        block = replaced(block, text=where)
    return block, size


def _over_limit(size: int, room: int) -> str | None:
    rule = LIMITS["file"]
    if size > rule.value():
        return f"{size:,} bytes is over {rule.describe()}"
    if size > room:
        return PAST_TOTAL
    return None


PAST_TOTAL = "past the build's total"  # a file the build's byte limit leaves unread


def past_total(labels: list[str]) -> str:
    """One warning for every file left unread by the build's byte limit (a tree of 40,000
    files gave one line per file: 18,000 lines), naming the first few."""
    files = "a file" if len(labels) == 1 else f"{len(labels):,} files"
    return (
        f"{files} referenced, not read: reading them would pass {LIMITS['build'].describe()} "
        f"({first_of(labels)})"
    )


def _state(
    block: ContentBlock,
    order: int,
    size: int | None,
    builder: Fitter,
    boosts: Mapping[str, tuple[int, tuple[str, ...], str]],
    *,
    formed: bool,
    raw_tokens: int | None = None,
) -> State:
    """A block's state: in its default (compressed) form when ``formed``, else referenced
    (``raw_tokens``: its text's tokens, when already counted)."""
    if raw_tokens is None:
        raw_tokens = builder.count(block.text)
    compressed = apply_policy(block, block.policy if formed else "reference", size)
    state = State(block=block, order=order, size=size, policy=compressed.policy,
                  text=compressed.text, tokens_before=raw_tokens)  # fmt: skip
    state.made_as = block.policy if formed else "reference"
    state.partial = compressed.partial
    state.start_policy = compressed.policy if formed else block.policy
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
    if not formed:
        state.exhausted = state.unformed = True
        return state
    # the original's section is counted only when the compressed form could be as large
    # (a section costs about its text's tokens: far smaller is smaller)
    raw_section = (
        builder.count(section_text(block, block.text))
        if 2 * state.tokens >= raw_tokens
        else raw_tokens
    )
    if compressed.policy != "exact" and state.tokens >= raw_section and not block.binary:
        state.text, state.tokens = block.text, raw_section  # the step would not shrink it
        state.made_as = None
        state.start_policy = state.policy = block.policy
        state.notes.append(f"{compressed.policy} form not smaller; kept as is")
    return state


# Below the cut, only code (whose structural form needs a parse) larger than this many times
# its reference is left unformed: anything else is given its compressed form, which may cost
# less than the reference
SMALL_BLOCK = 4


def _form_from_the_top(
    states: list[State],
    builder: Fitter,
    boosts: Mapping[str, tuple[int, tuple[str, ...], str]],
    budget: int,
) -> None:
    """Give blocks their compressed forms a priority at a time, highest first, until the
    prompt no longer fits with every lower-priority block a reference.

    Degrading takes the lowest priorities first and takes each block down to a reference
    before touching the next priority, so the blocks below that point end as references: code
    files among them are referenced as they are (not parsed, and so not refilled), and a build
    of thousands of files parses only the files that can be in the prompt. Small files and
    everything summarized rather than parsed are formed and degraded as usual (a summary may
    cost less than a reference)."""
    unformed: dict[int, list[State]] = {}
    for state in states:
        if state.unformed:
            unformed.setdefault(state.block.priority, []).append(state)

    def form(state: State) -> None:
        made = _state(
            state.block,
            state.order,
            state.size,
            builder,
            boosts,
            formed=True,
            raw_tokens=state.tokens_before,
        )
        vars(state).update(vars(made))
        builder.changed(state)

    for priority in sorted(unformed, reverse=True):
        for state in unformed.pop(priority):
            form(state)
        if builder.total(states) > budget:
            break
    for waiting in unformed.values():
        for state in waiting:
            if (
                state.block.policy != "structural"
                or state.tokens_before <= SMALL_BLOCK * state.tokens
                or state.boost > 0
            ):
                # a summary (cheap to make, and a document's may cost less than its reference),
                # a small file, or a file the task touches (it comes before files the task
                # does not touch): formed, then degraded like every block of its priority
                form(state)
                continue
            state.notes.append(
                "referenced as it is: the budget is full with higher-priority blocks, so it "
                "was not compressed first"
            )


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
        choice = resolve_counter(counter, model, "chars/3", budget=True)
    else:
        made = get_counter(counter)
        choice = CounterChoice(made.name, made.name, made.exact, "", made)
    tokens = get_counter(choice.use)
    warnings: list[str] = [choice.note] if choice.note else []
    budget_value, budget_source = resolve_build_budget(budget, model, root, registry, warnings)
    if confined and memory is not None and not isinstance(memory, MemorySource):
        try:
            memory = ContextMemory(load_context(memory, root=root))
        except ContextNotFound as exc:
            warnings.append(f"memory: {exc}; built without memory")
            memory = None
    task_block = task if isinstance(task, ContentBlock) else ContentBlock.for_task(task)
    blocks: list[tuple[ContentBlock, int | None]] = [(task_block, None)]
    blocks += [(b, None) for b in _memory_blocks(memory, task_block.text, warnings)]
    blocks += _file_blocks(files, Path(root), confined, priorities, set(exact), warnings)
    boosts: dict[str, tuple[int, tuple[str, ...], str]] = {}
    if task_boost:
        blocks, boosts = boost_blocks(blocks)
    builder = Fitter(tokens, budget_value)
    # Every block starts as a reference (cheap); its compressed form is made only for the
    # blocks that can be in the prompt — see _form_from_the_top.
    states = [
        _state(block, order, size, builder, boosts, formed=block.policy == "exact")
        for order, (block, size) in enumerate(blocks)
    ]
    exact_states = [s for s in states if s.policy == "exact"]
    exact_tokens = builder.count(render_prompt([(s.block, s.text) for s in exact_states]))
    if exact_tokens > budget_value:
        raise ExactContentTooLarge(
            [(s.block.id, builder.count(s.block.text)) for s in exact_states],
            exact_tokens,
            budget_value,
        )
    prompt, final, listed = _fit_states(states, builder, boosts, budget_value)
    if final > budget_value:
        raise ExactContentTooLarge(
            [(s.block.id, builder.count(s.block.text)) for s in exact_states], final, budget_value
        )
    return BuildResult(
        prompt=prompt,
        tokens=final,
        budget=budget_value,
        blocks=tuple(outcome(s, builder, id(s) in listed) for s in states),
        warnings=tuple(warnings),
        counter=tokens.name,
        budget_source=budget_source,
        counter_requested=choice.requested,
        exact=choice.exact,
    )


def _memory_blocks(memory: Any, query: str, warnings: list[str]) -> list[ContentBlock]:
    """The memory's entries for the task; a failing memory source is skipped, never fatal."""
    if memory is None:
        return []
    try:
        source = memory if isinstance(memory, MemorySource) else ContextMemory(memory)
        return list(source.search(query, MEMORY_RESULTS))
    except Exception as exc:
        warnings.append(f"memory source failed ({type(exc).__name__}: {exc}); built without memory")
        return []


def _file_blocks(
    files: Iterable[str | os.PathLike[str] | ContentBlock],
    base: Path,
    confined: bool,
    priorities: Mapping[str, int] | None,
    exact_paths: set[str],
    warnings: list[str],
) -> list[tuple[ContentBlock, int | None]]:
    """Blocks given as such, then every file the paths, directories and globs name (read
    under the build's byte limit, all files together)."""
    blocks: list[tuple[ContentBlock, int | None]] = []
    paths: list[str] = []
    for item in files:
        if isinstance(item, ContentBlock):
            blocks.append((item, None))
        else:
            paths.append(os.fspath(item))
    resolver = RealPaths()
    found, missing = collect_paths(paths, base, confined=confined, paths=resolver)
    warnings += missing
    room, keep = LIMITS["build"].value(), keep_within()
    past: list[str] = []
    for path in found:
        read = _read_file(path, base, warnings, priorities, exact_paths, room, resolver, keep, past)
        if read is not None:
            blocks.append(read)
            room -= read[1] if not read[0].binary else 0
            keep -= read[1] if held_by(read[0]) is None and not read[0].binary else 0
    if past:
        warnings.append(past_total(past))
    return blocks


def _fit_states(
    states: list[Any], builder: Fitter, boosts: Mapping[str, Any], budget: int
) -> tuple[str, int, set[int]]:
    """Shrink until the prompt fits, list the references, spend what is left again; the
    prompt, its count and the states shown in the list of other files."""
    builder.track(states)
    _form_from_the_top(states, builder, boosts, budget)
    shrinker = Shrinker(states, builder)
    while builder.total(states) > budget and shrinker.step():
        pass
    cap_list(states, builder)
    refill(states, builder, budget)
    prompt = builder.render(states)
    final = builder.count(prompt)
    shrinker.refresh()
    while final > budget and shrinker.step():  # part sums may differ from the whole's
        prompt = builder.render(states)
        final = builder.count(prompt)
    listed = {id(s) for s in builder.listed(states)}
    for state in states:
        if id(state) in listed:
            state.notes.append(
                "in the list of other files (references over a quarter of the budget)"
            )
    return prompt, final, listed
