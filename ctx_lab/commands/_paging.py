"""``page``, ``budget`` and ``read``: line ranges under a quota, and paginated reading of files,
web pages and PDFs."""

from __future__ import annotations

import os
import re
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Any

from ..errors import AccessDenied, UsageError
from ..files import resolve_root
from ..instructions import PAGE_INSTRUCTIONS, READ_INSTRUCTIONS
from ..limits import DEFAULT_MAX_CHARS, DEFAULT_MAX_PAGES, DEFAULT_MAX_TOKENS, MAX_CHARS_LIMIT
from . import _params as params
from ._param import ALL, CLI, SERVED, Param, hidden
from ._params import AllowPrivate, AllowRemote, parse_lines
from ._registry import Command, Invocation, command
from ._session import local_reader

if TYPE_CHECKING:
    from ..paging import BudgetTable, PageRequest, PageResult, PagingBudget
    from ..read import Reader, ReadResult

PAGE_HELP = (
    PAGE_INSTRUCTIONS + " Every result names its quota's budget_id; pass it back to keep "
    "spending from the same quota (a connection that keeps state does this for you). The "
    "budget tool reports what is left."
)

__all__ = ["budget", "page", "read"]

PathArg = str | os.PathLike[str]


def _is_http(uri: str) -> bool:
    from ..read import is_http  # loaded with the command, not with `ctx-lab --help`

    return is_http(uri)


def _is_uri(artifact: str) -> bool:
    return _is_http(artifact) or artifact.lower().startswith("file:")


Root = Annotated[
    PathArg,
    Param(
        "directory artifact ids and paths are relative to; nothing outside it is read",
        metavar="DIR",
        surfaces=CLI,
        session="root",
    ),
]
Reading = Annotated[
    "Reader | None", hidden("the reader to use (its cache and cursors)", session="reader")
]
BudgetId = Annotated[
    str | None,
    Param(
        "the budget_id of an earlier page result: spend from that quota",
        surfaces=SERVED,
        session="budget_id",
        max_length=64,
        default_text="a new quota",
    ),
]
Budgets = Annotated["BudgetTable | None", hidden("a server's budgets by id", session="budgets")]
_LAB = frozenset({"cli", "rest"})


def page(
    artifact_id: Annotated[
        str,
        Param(
            "a path (from the working directory, inside the root), or a URI (file:, http(s))",
            positional=True,
            metavar="ID",
            max_length=8192,
            path=True,
        ),
    ],
    *,
    lines: Annotated[
        tuple[int, int] | str | None,
        Param(
            "line range, 1-based inclusive: A-B, A- (to the end) or A",
            metavar="A-B|A-|A",
            parse=parse_lines,
            surfaces=_LAB,
            default_text="all",
        ),
    ] = None,
    start_line: Annotated[int, Param("first line (1-based)", metavar="N", minimum=1)] = 1,
    end_line: Annotated[int, Param("last line (inclusive); 0 means to the end", metavar="N")] = 0,
    counter: Annotated[str | None, params.counter("bytes/4", model=True)] = None,
    model: Annotated[
        str | None,
        Param(
            "count with this model's own tokenizer", metavar="M", max_length=200, names_model=True
        ),
    ] = None,
    budget_id: BudgetId = None,
    max_pages: Annotated[
        int | None,
        Param(
            "page quota of a new budget",
            metavar="N",
            surfaces=_LAB,
            default_text=str(DEFAULT_MAX_PAGES),
        ),
    ] = None,
    max_tokens: Annotated[
        int | None,
        Param(
            "token quota of a new budget",
            metavar="N",
            surfaces=_LAB,
            default_text=str(DEFAULT_MAX_TOKENS),
        ),
    ] = None,
    state: Annotated[
        PathArg | None, Param("keep the budget in FILE across calls", metavar="FILE", surfaces=CLI)
    ] = None,
    browse: Annotated[
        bool,
        Param(
            "a person reading: no quota is charged or kept",
            surfaces=frozenset({"rest"}),
        ),
    ] = False,
    root: Root = ".",
    allow_private: AllowPrivate = False,
    allow_remote: AllowRemote = True,
    reader: Reading = None,
    kept_budget: Annotated[PagingBudget | None, hidden("a paging budget the caller keeps")] = None,
    budgets: Budgets = None,
) -> PageResult:
    """Lines ``start_line`` … ``end_line`` (``end_line`` 0 = to the end; or ``lines``, ``(start,
    end)`` or ``"A-B"``) of ``artifact_id`` — a path under ``root`` or a ``file:``/``http(s)``
    URI — charged to a paging quota.

    The paging budget is chosen once (:func:`budget_source`): ``kept_budget`` (kept by the
    caller), else the one ``budget_id`` names in a server's ``budgets`` (a new one when none is
    named), else the one saved in the ``state`` file (created with ``max_pages``/``max_tokens``,
    saved after the page, under a lock), else a fresh one; ``browse`` charges none.
    ``counter`` defaults to ``model``'s own tokenizer when a model is given, else ``bytes/4``.
    """
    from ..paging import PageRequest, budget_source

    if lines is not None:
        if (start_line, end_line) != (1, 0):
            raise UsageError("give lines or start_line/end_line, not both")
        start_line, end_line = parse_lines(lines) if isinstance(lines, str) else lines
    request = PageRequest(artifact_id, start_line, end_line)
    source = budget_source(browse, kept_budget, budgets, budget_id, state, max_pages, max_tokens)
    state = state if source.kind == "state" else None

    def run(charged: PagingBudget | None) -> PageResult:
        return _page(request, root, counter, model, charged, source.budget_id, state, max_pages,
                     max_tokens, allow_private, allow_remote, reader)  # fmt: skip

    if state is not None:  # check, charge and save under one lock across processes
        from ..files import locked

        with locked(state):
            return run(None)
    return run(source.budget)


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
            reader or local_reader(base, allow_private, allow_remote)
        )
    else:
        store = DirectoryStore(base)
    choice = resolve_counter(counter, model, "bytes/4", budget=True)
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


def budget(
    *,
    state: Annotated[
        PathArg | None,
        Param("the state file of `ctx-lab page --state`", metavar="FILE", surfaces=CLI),
    ] = None,
    budget_id: BudgetId = None,
    max_pages: Annotated[
        int | None,
        Param(
            "raise the page quota of budget_id to N (never lowers it; what was used is kept)",
            metavar="N",
            surfaces=frozenset({"rest"}),
        ),
    ] = None,
    max_tokens: Annotated[
        int | None,
        Param(
            "raise the token quota of budget_id to N (never lowers it; what was used is kept)",
            metavar="N",
            surfaces=frozenset({"rest"}),
        ),
    ] = None,
    budgets: Budgets = None,
) -> PagingBudget:
    """A paging quota: the one saved in ``state`` (a fresh one when there is none), or on a
    server the one ``budget_id`` names in ``budgets`` — its limits raised first when
    ``max_pages``/``max_tokens`` are given. Asking never makes a quota."""
    from ..paging import load_budget

    if budgets is None:
        if budget_id is not None:
            raise UsageError("budget_id names a server's quota: give --state FILE here")
        return load_budget(state)
    if budget_id is None:
        raise UsageError("budget needs budget_id (the budget_id of a page result)")
    if max_pages is not None or max_tokens is not None:
        return budgets.raise_limits(budget_id, max_pages, max_tokens)
    return budgets.find(budget_id)


def read(
    uri: Annotated[
        str,
        Param(
            "a path (from the working directory, inside the root), file: URI, or http(s) URL",
            positional=True,
            metavar="URI",
            max_length=8192,
            path=True,
        ),
    ],
    *,
    cursor: Annotated[
        str | None,
        Param(
            "the next_cursor of the previous result, to continue reading (in %ctx also "
            "@last, the last read of this URI in the kernel, or @name, a variable holding a "
            "cursor or a read result)",
            metavar="C",
            max_length=4096,
            exclusive="start",
        ),
    ] = None,
    page: Annotated[
        int | None,
        Param(
            "start at this page of a PDF, or at the Nth chunk of another document (1-based; "
            "past the end: the last, with a note)",
            metavar="N",
            minimum=1,
            exclusive="start",
        ),
    ] = None,
    max_chars: Annotated[
        int, Param("characters per chunk", metavar="N", minimum=1, maximum=MAX_CHARS_LIMIT)
    ] = DEFAULT_MAX_CHARS,
    root: Root = ".",
    allow_private: AllowPrivate = False,
    allow_remote: AllowRemote = True,
    reader: Reading = None,
) -> ReadResult:
    """One chunk of ``uri`` (a path under ``root``, a ``file:`` URI or an http(s) URL) of at
    most ``max_chars`` characters; pass the previous ``next_cursor`` to continue, or ``page``
    to start at a page (PDF) or chunk."""
    if _is_http(uri) and not allow_remote:
        raise AccessDenied("remote reads are off here (CtxLab.allow_remote_reads)")
    use = reader or local_reader(root, allow_private, allow_remote)
    return use.read(uri, cursor, max_chars, page=page)


command(
    Command(
        "page",
        "fetch a line range of a file or URI under a page and token quota",
        page,
        surfaces=ALL,
        agent_help=PAGE_HELP,
        read_only=False,  # each page spends from the connection's quota
        idempotent=False,
        epilog="examples:\n  ctx-lab page src/app.py --lines 40-80 --state .ctx-paging.json\n"
        "  ctx-lab page notes.md --lines 120- --max-tokens 2000",
        group="reading",
    )
)
command(
    Command(
        "budget",
        "show a paging budget: limits, used, remaining",
        budget,
        surfaces=ALL,
        agent_help="What is used and left of a paging quota (pages and tokens): this "
        "connection's, or budget_id's.",
        epilog="example:\n  ctx-lab budget --state .ctx-paging.json",
        group="reading",
    )
)
_REFERENCE = re.compile(r"^@([A-Za-z_][A-Za-z0-9_]*)$")


def _cursor_key(kwargs: dict[str, Any]) -> tuple[str, str, str]:
    return ("read", str(kwargs.get("uri", "")), os.fspath(kwargs.get("root") or "."))


def _prepare_read(kwargs: dict[str, Any], inv: Invocation) -> dict[str, Any]:
    """``--cursor @last`` (the last read of this URI in the kernel) and ``--cursor @name`` or
    ``$name`` (a variable of the kernel holding a cursor or a read result) — looked up, never
    evaluated."""
    cursor = kwargs.get("cursor")
    if isinstance(cursor, str) and cursor.startswith("$") and inv.namespace is not None:
        cursor = "@" + cursor[1:]  # %ctx takes its line as written: $c names a variable too
    if not isinstance(cursor, str) or not cursor.startswith("@"):
        return kwargs
    found = _REFERENCE.match(cursor)
    if found is None:
        raise UsageError(f"--cursor {cursor!r}: use @last or @name (a variable's name)")
    name = found[1]
    if name == "last":
        if inv.state is None:
            raise UsageError(
                "--cursor @last is the last read of this URI in a kernel (%ctx); here, pass the "
                "next_cursor the previous read printed"
            )
        if _cursor_key(kwargs) not in inv.state:
            raise UsageError(f"--cursor @last: no earlier read of {kwargs.get('uri')} here")
        value, size = inv.state[_cursor_key(kwargs)]
        if value is None:
            raise UsageError(f"--cursor @last: the last read of {kwargs.get('uri')} was its end")
        if size is not None and kwargs.get("max_chars") in (None, DEFAULT_MAX_CHARS):
            kwargs = {**kwargs, "max_chars": size}  # the chunks go on at the same size
    else:
        if inv.namespace is None or name not in inv.namespace:
            raise UsageError(f"--cursor @{name}: no variable {name} in this kernel")
        value = inv.namespace[name]
        value = getattr(value, "next_cursor", value)
        if not isinstance(value, str):
            raise UsageError(f"--cursor @{name}: {name} holds no cursor (a string or a read)")
    return {**kwargs, "cursor": value}


def _remember_read(kwargs: dict[str, Any], result: Any, inv: Invocation) -> Any:
    """Keep the read's next cursor, for ``--cursor @last`` (in a kernel); the result names the
    path as typed and its next chunk's line — ``%ctx … --cursor @last`` in a kernel, the whole
    ``ctx-lab read … --cursor CURSOR`` in a shell — repeats ``--root`` and the chunk size."""
    if inv.state is not None:  # the cursor and the chunk size it was cut at
        inv.state[_cursor_key(kwargs)] = (
            getattr(result, "next_cursor", None),
            getattr(result, "max_chars", None),
        )
    from ..read import ReadResult

    if not isinstance(result, ReadResult):
        return None
    given = inv.given or {}
    again: list[str] = []
    if given.get("root") not in (None, "", "."):
        again += ["--root", os.fspath(given["root"])]
    if result.max_chars is not None and result.max_chars != DEFAULT_MAX_CHARS:
        again += ["--max-chars", str(result.max_chars)]
    typed = given.get("uri")
    uri = typed if isinstance(typed, str) and typed else result.uri
    via = "%ctx" if inv.state is not None else "ctx-lab"
    return replace(result, uri=uri, next_flags=tuple(again), next_via=via)


command(
    Command(
        "read",
        "read a file, web page or PDF one chunk at a time (opaque cursor)",
        read,
        surfaces=ALL,
        agent_help=READ_INSTRUCTIONS,
        open_world=True,  # http(s) URIs reach the web
        prepare=_prepare_read,
        remember=_remember_read,
        epilog="examples:\n  ctx-lab read docs/guide.pdf --max-chars 4000\n"
        "  ctx-lab read docs/guide.pdf --cursor <next_cursor of the previous call>",
        group="reading",
    )
)
