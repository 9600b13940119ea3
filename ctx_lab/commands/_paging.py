"""``page``, ``budget`` and ``read``: line ranges under a quota, and paginated reading of files,
web pages and PDFs."""

from __future__ import annotations

import argparse
import os
from dataclasses import replace
from typing import TYPE_CHECKING

from ..errors import AccessDenied
from ..files import resolve_root
from ..limits import DEFAULT_MAX_CHARS, DEFAULT_MAX_PAGES, DEFAULT_MAX_TOKENS
from .params import add_allow_private, add_counter, flag, parse_lines, whole
from .registry import Command, command, default_of

if TYPE_CHECKING:
    from ..paging import PageRequest, PageResult, PagingBudget
    from ..read import Reader, ReadResult

__all__ = ["budget", "page", "read"]

PathArg = str | os.PathLike[str]


def _is_http(uri: str) -> bool:
    from ..read.fetch import is_http  # loaded with the command, not with `ctx-lab --help`

    return is_http(uri)


def _is_uri(artifact: str) -> bool:
    return _is_http(artifact) or artifact.lower().startswith("file:")


def _reader(root: PathArg, allow_private: bool, allow_remote: bool) -> Reader:
    """The reader of one call: one root, a per-user cursor key and the on-disk document
    cache, so cursors survive the process and a continuation does not extract again (a cursor
    continues only into the same text: its id carries the text's hash)."""
    from ..read import Reader
    from ..read.cursor import user_cursor_secret
    from ..read.disk_cache import DiskDocumentCache

    return Reader(
        [root],
        allow_private,
        allow_http=allow_remote,
        secret=user_cursor_secret(),
        disk_cache=DiskDocumentCache(),
    )


def page(
    artifact: str,
    *,
    lines: tuple[int, int] | str = (1, 0),
    root: PathArg = ".",
    counter: str | None = None,
    model: str | None = None,
    budget: PagingBudget | None = None,
    budget_id: str | None = None,
    state: PathArg | None = None,
    max_pages: int | None = None,
    max_tokens: int | None = None,
    allow_private: bool = False,
    allow_remote: bool = True,
    reader: Reader | None = None,
) -> PageResult:
    """Lines ``lines`` (``(start, end)`` or ``"A-B"``, ``end`` 0 = to the end) of ``artifact``
    — a path under ``root`` or a ``file:``/``http(s)`` URI — charged to a paging budget.

    The budget is ``budget`` (kept by the caller, e.g. the server's per-``budget_id`` table),
    else the one saved in the ``state`` file (created with ``max_pages``/``max_tokens``, saved
    after the page), else a fresh one. ``counter`` defaults to ``model``'s own tokenizer when
    a model is given, else ``bytes/4``.
    """
    from ..paging import PageRequest

    start, end = parse_lines(lines) if isinstance(lines, str) else lines
    request = PageRequest(artifact, start, end)

    def run(charged: PagingBudget | None) -> PageResult:
        return _page(request, root, counter, model, charged, budget_id, state, max_pages,
                     max_tokens, allow_private, allow_remote, reader)  # fmt: skip

    if budget is None and state:  # check, charge and save under one lock across processes
        from ..files import locked

        with locked(state):
            return run(None)
    return run(budget)


def _page(
    request: PageRequest,
    root: PathArg,
    counter: str | None,
    model: str | None,
    budget: PagingBudget | None,
    budget_id: str | None,
    state: PathArg | None,
    max_pages: int | None,
    max_tokens: int | None,
    allow_private: bool,
    allow_remote: bool,
    reader: Reader | None,
) -> PageResult:
    from ..paging import DirectoryStore, Pager, ReaderStore, load_budget, save_budget
    from ..tokens import resolve_counter

    artifact = request.artifact_id
    warnings: list[str] = []
    if budget is None:
        budget = load_budget(state, max_pages, max_tokens, warnings)
    base = resolve_root(root)
    if _is_uri(artifact):
        if _is_http(artifact) and not allow_remote:
            raise AccessDenied("remote reads are off here (CtxLab.allow_remote_reads)")
        store: DirectoryStore | ReaderStore = ReaderStore(
            reader or _reader(base, allow_private, allow_remote)
        )
    else:
        store = DirectoryStore(base)
    choice = resolve_counter(counter, model, "bytes/4")
    if choice.note:
        warnings.append(choice.note)
    pager = Pager(store, budget, choice.use)
    result = pager.page(request)
    save_budget(state, pager.budget)
    return replace(
        result,
        warnings=tuple(warnings),
        budget_id=budget_id,
        counter_requested=choice.requested,
        exact=choice.exact,
    )


def budget(*, state: PathArg | None = None) -> PagingBudget:
    """The paging budget saved in ``state`` (a fresh one when there is none)."""
    from ..paging import load_budget

    return load_budget(state)


def read(
    uri: str,
    *,
    cursor: str | None = None,
    max_chars: int = DEFAULT_MAX_CHARS,
    root: PathArg = ".",
    allow_private: bool = False,
    allow_remote: bool = True,
    reader: Reader | None = None,
) -> ReadResult:
    """One chunk of ``uri`` (a path under ``root``, a ``file:`` URI or an http(s) URL) of at
    most ``max_chars`` characters; pass the previous ``next_cursor`` to continue."""
    if _is_http(uri) and not allow_remote:
        raise AccessDenied("remote reads are off here (CtxLab.allow_remote_reads)")
    use = reader or _reader(resolve_root(root), allow_private, allow_remote)
    return use.read(uri, cursor, max_chars)


def _page_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("artifact", metavar="ID", help="a path under --root, or a URI (file:, http(s))")
    p.add_argument(
        "--lines",
        type=flag(parse_lines),
        metavar="A-B|A-|A",
        help="line range, 1-based inclusive (default: all)",
    )
    p.add_argument(
        "--root", metavar="DIR", help="directory artifact ids are relative to (default .)"
    )
    p.add_argument(
        "--max-pages",
        dest="max_pages",
        type=whole("--max-pages"),
        metavar="N",
        help=f"page quota (default {DEFAULT_MAX_PAGES})",
    )
    p.add_argument(
        "--max-tokens",
        dest="max_tokens",
        type=whole("--max-tokens"),
        metavar="N",
        help=f"token quota (default {DEFAULT_MAX_TOKENS})",
    )
    p.add_argument("--state", metavar="FILE", help="keep the budget in FILE across calls")
    add_allow_private(p)
    add_counter(p, "bytes/4", model_default=True)
    p.add_argument("--model", metavar="M", help="count with this model's own tokenizer")


def _budget_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--state", metavar="FILE", help="the state file of `ctx-lab page --state`")


def _read_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("uri", metavar="URI", help="a path, file: URI, or http(s) URL")
    p.add_argument("--cursor", metavar="C", help="continue where the previous read stopped")
    p.add_argument(
        "--max-chars",
        dest="max_chars",
        type=whole("--max-chars"),
        metavar="N",
        help=f"characters per chunk (default {default_of(read, 'max_chars')}, at most 20000)",
    )
    p.add_argument("--root", metavar="DIR", help="local reads only under DIR (default .)")
    add_allow_private(p)


command(
    Command(
        "page",
        "fetch a line range of a file or URI under a page and token quota",
        page,
        _page_arguments,
        epilog="examples:\n  ctx-lab page src/app.py --lines 40-80 --state .ctx-paging.json\n"
        "  ctx-lab page notes.md --lines 120- --max-tokens 2000",
    )
)
command(
    Command(
        "budget",
        "show a paging budget: limits, used, remaining",
        budget,
        _budget_arguments,
        epilog="example:\n  ctx-lab budget --state .ctx-paging.json",
    )
)
command(
    Command(
        "read",
        "read a file, web page or PDF one chunk at a time (opaque cursor)",
        read,
        _read_arguments,
        epilog="examples:\n  ctx-lab read docs/guide.pdf --max-chars 4000\n"
        "  ctx-lab read docs/guide.pdf --cursor <next_cursor of the previous call>",
    )
)
