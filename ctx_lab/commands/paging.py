"""``ctx-lab page``, ``ctx-lab budget`` and ``ctx-lab read``: line ranges under a quota, and
paginated reading of files, web pages and PDFs."""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
from dataclasses import replace
from pathlib import Path

from ..display import RichResult
from ..errors import CtxLabError, UsageError
from ..fileio import write_atomic
from ..paging import DirectoryStore, Pager, PageRequest, PagingBudget, ReaderStore
from ..read import DEFAULT_MAX_CHARS, Reader
from ..read.fetch import is_http
from ..textfile import read_text
from .options import add_counter, non_negative_int
from .registry import Command, Invocation, command

_LINES = re.compile(r"^\s*(\d+)\s*(?:(-)\s*(\d*)\s*)?$")


def parse_lines(text: str) -> tuple[int, int]:
    """``A-B`` → (A, B); ``A-`` → (A, 0) (to the end); ``A`` → (A, A)."""
    match = _LINES.match(text)
    if not match:
        raise argparse.ArgumentTypeError(f"{text!r}: use A-B, A- (to the end) or A")
    start = int(match[1])
    if match[2] is None:
        return start, start
    return start, int(match[3]) if match[3] else 0


def load_budget(
    state: str | None, max_pages: int | None, max_tokens: int | None, warnings: list[str]
) -> PagingBudget:
    """The budget in ``state`` (which, once created, holds the limits), else a new one."""
    if state and Path(state).exists():
        try:
            budget = PagingBudget.from_dict(json.loads(read_text(state, warnings)))
        except ValueError as exc:
            raise CtxLabError(f"{state}: not a paging state file ({exc})") from None
        for flag, given, kept in (
            ("--max-pages", max_pages, budget.max_pages),
            ("--max-tokens", max_tokens, budget.max_tokens),
        ):
            if given is not None and given != kept:
                warnings.append(f"{state} holds the limits: {flag} {given} ignored (it is {kept})")
        return budget
    defaults = PagingBudget()
    return PagingBudget(
        defaults.max_pages if max_pages is None else max_pages,
        defaults.max_tokens if max_tokens is None else max_tokens,
    )


def save_budget(state: str | None, budget: PagingBudget) -> None:
    """Write the budget to the state file atomically (nothing when there is none)."""
    if state:
        write_atomic(state, json.dumps(budget.to_dict(), indent=2) + "\n")


def cli_secret() -> bytes:
    """A per-user key for signing read cursors across CLI calls (created once, mode 0600)."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ctx-lab"
    key = base / "cursor.key"
    try:
        return bytes.fromhex(key.read_text().strip())
    except (OSError, ValueError):
        base.mkdir(parents=True, exist_ok=True)
        value = secrets.token_bytes(16)
        fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(value.hex())
        return value


def cli_reader(root: str | None, allow_private: bool) -> Reader:
    """The reader the CLI uses: one root, a stable cursor key, cursors that survive the
    process (re-validated against the re-extracted text)."""
    return Reader(
        [root or os.getcwd()],
        allow_private,
        secret=cli_secret(),
        resume_after_expiry=True,
    )


def _page_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("artifact", metavar="ID", help="a path under --root, or a URI (file:, http(s))")
    p.add_argument(
        "--lines",
        type=parse_lines,
        default=(1, 0),
        metavar="A-B|A-|A",
        help="line range, 1-based inclusive (default: all)",
    )
    p.add_argument(
        "--root", metavar="DIR", help="directory artifact ids are relative to (default .)"
    )
    p.add_argument(
        "--max-pages", type=non_negative_int, metavar="N", help="page quota (default 10)"
    )
    p.add_argument(
        "--max-tokens", type=non_negative_int, metavar="N", help="token quota (default 8000)"
    )
    p.add_argument("--state", metavar="FILE", help="keep the budget in FILE across calls")
    p.add_argument(
        "--allow-private", action="store_true", help="let http(s) URIs reach private addresses"
    )
    add_counter(p, "bytes/4")


def _run_page(args: argparse.Namespace, inv: Invocation) -> RichResult:
    warnings: list[str] = []
    budget = load_budget(args.state, args.max_pages, args.max_tokens, warnings)
    root = args.root or "."
    if not Path(root).is_dir():
        raise UsageError(f"--root {root}: not a directory")
    uri_like = is_http(args.artifact) or args.artifact.lower().startswith("file:")
    store = ReaderStore(cli_reader(root, args.allow_private)) if uri_like else DirectoryStore(root)
    pager = Pager(store, budget, args.counter)
    start, end = args.lines
    result = pager.page(PageRequest(args.artifact, start, end))
    save_budget(args.state, pager.budget)
    return replace(result, warnings=tuple(warnings)) if warnings else result


def _budget_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--state", metavar="FILE", help="the state file of `ctx-lab page --state`")


def _run_budget(args: argparse.Namespace, inv: Invocation) -> RichResult:
    return load_budget(args.state, None, None, [])


def _read_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("uri", metavar="URI", help="a path, file: URI, or http(s) URL")
    p.add_argument("--cursor", metavar="C", help="continue where the previous read stopped")
    p.add_argument(
        "--max-chars",
        type=non_negative_int,
        default=DEFAULT_MAX_CHARS,
        metavar="N",
        help=f"characters per chunk (default {DEFAULT_MAX_CHARS}, at most 20000)",
    )
    p.add_argument("--root", metavar="DIR", help="local reads only under DIR (default .)")
    p.add_argument(
        "--allow-private",
        action="store_true",
        help="let http(s) reach loopback and private addresses",
    )


def _run_read(args: argparse.Namespace, inv: Invocation) -> RichResult:
    return cli_reader(args.root, args.allow_private).read(args.uri, args.cursor, args.max_chars)


PAGE = command(
    Command(
        "page",
        "fetch a line range of a file or URI under a page and token quota",
        _page_arguments,
        _run_page,
        epilog="examples:\n  ctx-lab page src/app.py --lines 40-80 --state .ctx-paging.json\n"
        "  ctx-lab page notes.md --lines 120- --max-tokens 2000",
    )
)
BUDGET = command(
    Command(
        "budget",
        "show a paging budget: limits, used, remaining",
        _budget_arguments,
        _run_budget,
        epilog="example:\n  ctx-lab budget --state .ctx-paging.json",
    )
)
READ = command(
    Command(
        "read",
        "read a file, web page or PDF one chunk at a time (opaque cursor)",
        _read_arguments,
        _run_read,
        epilog="examples:\n  ctx-lab read docs/guide.pdf --max-chars 4000\n"
        "  ctx-lab read docs/guide.pdf --cursor <next_cursor of the previous call>",
    )
)
