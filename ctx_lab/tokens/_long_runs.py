"""Counting text that holds a very long run of whitespace, which no regex pre-tokenizer may see.

tiktoken's pre-tokenizers (o200k, cl100k, and the open models counted through tiktoken) match a
whitespace run with a look-ahead (``\\s+(?!\\S)``); past about a million characters the regex
engine's backtracking limit is reached and tiktoken panics — a ``BaseException`` from native
code, not an error. So a counter never sees such a run: :func:`count_bounded` shortens every run
longer than :data:`LONG_RUN` and puts back what the removed part costs, exactly.

Why it is exact: a run the pre-tokenizer keeps as one piece is split by BPE into blocks from the
piece's start (measured: 128 spaces, 16 newlines, 4 for `` \\n`` in o200k), so a run periodic in
:data:`BLOCK` characters costs the same number of tokens per :data:`BLOCK` characters however
long it is. The cost per block is measured, in a window around the run, as the difference of two
counts, and checked by a third (the run lengthened once more must cost the same again). A run
that is not periodic in :data:`BLOCK`, or whose check fails, is counted in pieces cut at
:data:`BLOCK`-aligned points — as Meta's Llama 3 tokenizer cuts its input — which may differ by a
token per cut (:data:`APPROXIMATE` counts how often that happened in this process).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..errors import NativeCodeError, native_failure

__all__ = ["APPROXIMATE", "BLOCK", "LONG_RUN", "count_bounded"]

LONG_RUN = 65_536  # runs longer than this are shortened (the panic starts near 1,000,000)
BLOCK = 4_096  # a multiple of every block length measured (128, 16, 8, 4)
KEEP = LONG_RUN // 2  # what a shortened run keeps: far from the limit, many blocks long
WINDOW = 4_096  # context kept on each side of a run when measuring its cost per block
# the start of a long run: the look-behind fails at once inside a run, so this is linear
_RUN_START = re.compile(rf"(?<!\s)\s{{{LONG_RUN}}}|^\s{{{LONG_RUN}}}")
_NON_SPACE = re.compile(r"\S")
APPROXIMATE = [0]  # how many runs were counted in pieces (not periodic, or the check failed)


def _runs(text: str) -> list[tuple[int, int]]:
    """The (start, end) of every whitespace run longer than :data:`LONG_RUN`."""
    found: list[tuple[int, int]] = []
    position = 0
    while True:
        match = _RUN_START.search(text, position)
        if match is None:
            return found
        start = match.start()  # the look-behind: the run's first character
        after = _NON_SPACE.search(text, match.end())
        end = after.start() if after is not None else len(text)
        found.append((start, end))
        position = end


def _removable(run: str) -> int:
    """How many :data:`BLOCK`-long blocks can leave the run's middle without changing it: the
    middle (past a head of :data:`KEEP` characters, before a tail of two blocks or more, which
    may hold anything) must repeat itself every :data:`BLOCK` characters; 0 where it does not."""
    tail = 2 * BLOCK + (len(run) - KEEP) % BLOCK
    middle = run[KEEP : len(run) - tail]
    if len(middle) < 2 * BLOCK or middle[:-BLOCK] != middle[BLOCK:]:
        return 0
    return len(middle) // BLOCK - 1


def count_bounded(count: Callable[[str], int], text: str) -> int:
    """``count(text)``, with every whitespace run longer than :data:`LONG_RUN` shortened and
    its removed blocks' tokens added back (see the module docstring); whatever still escapes
    the tokenizer's native code is a :class:`~ctx_lab.errors.NativeCodeError` for this text."""
    try:
        return _count_bounded(count, text)
    except BaseException as exc:
        if not native_failure(exc):
            raise
        raise NativeCodeError(
            f"the tokenizer failed on a text of {len(text):,} characters "
            f"({type(exc).__name__}: {str(exc)[:200]})"
        ) from None


def _may_hold_run(text: str) -> bool:
    """Whether ``text`` can hold a run longer than :data:`LONG_RUN`: such a run covers a whole
    stretch between two consecutive multiples of half of it, so only those stretches whose two
    ends are whitespace are looked at (a few character reads per 32,768; the regex pass costs a
    counted text as much again as its counting)."""
    step = LONG_RUN // 2
    return any(
        text[i].isspace() and text[i + step].isspace() and text[i : i + step + 1].isspace()
        for i in range(0, len(text) - step, step)
    )


def _count_bounded(count: Callable[[str], int], text: str) -> int:
    if len(text) <= LONG_RUN or not _may_hold_run(text):
        return count(text)
    runs = _runs(text)
    if not runs:
        return count(text)
    parts: list[str] = []
    extra = 0
    last = 0
    for start, end in runs:
        run = text[start:end]
        blocks = _removable(run)
        per_block = _per_block(count, text[max(0, start - WINDOW) : start], run, blocks,
                               text[end : end + WINDOW]) if blocks else None  # fmt: skip
        if per_block is None:  # counted in pieces: within a token per cut
            APPROXIMATE[0] += 1
            parts.append(text[last:start])
            extra += _in_pieces(count, run)
        else:
            parts.append(text[last:start] + run[:KEEP] + run[KEEP + blocks * BLOCK :])
            extra += blocks * per_block
        last = end
    parts.append(text[last:])
    return count("".join(parts)) + extra


def _per_block(count: Callable[[str], int], before: str, run: str, blocks: int,
               after: str) -> int | None:  # fmt: skip
    """The tokens one more :data:`BLOCK` of the run costs, measured with :data:`WINDOW`
    characters of context on each side and checked once more; None when the measures differ."""
    head, unit, rest = run[:KEEP], run[KEEP : KEEP + BLOCK], run[KEEP + blocks * BLOCK :]

    def at(extra_blocks: int) -> int:
        return count(before + head + unit * extra_blocks + rest + after)

    base, once, twice = at(0), at(1), at(2)
    if once - base != twice - once:
        return None
    return once - base


def _in_pieces(count: Callable[[str], int], run: str) -> int:
    """A run counted in :data:`BLOCK`-aligned pieces of at most :data:`KEEP` characters."""
    step = KEEP - KEEP % BLOCK
    return sum(count(run[i : i + step]) for i in range(0, len(run), step))
