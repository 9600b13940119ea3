"""``packet``, ``entries`` and ``context``: a budgeted context packet, its ledger, and where the
nearest ``.context/`` is."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from ..errors import UsageError
from ..files import display_path
from ..validate import choice
from .params import RELEVANCE_CHOICES, add_budget_or_model, add_counter, flag, parse_now
from .registry import Command, command

if TYPE_CHECKING:
    from ..packet import ContextLocation, EntriesReport, Packet, ProfileComparison

__all__ = ["context", "entries", "packet"]

PathArg = str | os.PathLike[str]


def packet(
    directory: PathArg | None = None,
    *,
    example: bool = False,
    budget: int | None = None,
    model: str | None = None,
    now: datetime | None = None,
    counter: str | None = None,
    root: PathArg | None = None,
    focus: str | None = None,
    relevance: str = "auto",
    steering: Sequence[str] = (),
    profile: str = "design",
    display_dir: str | None = None,
    compare: str | None = None,
    registry: str | None = None,
) -> Packet | ProfileComparison:
    """Assemble the packet of a project's ``.context/`` (``directory``, default ``.``) or of the
    shipped example (``example=True``, ``now`` pinned to its date).

    ``budget`` or ``model`` (its effective input budget) set the size, else the project's
    configuration does. ``counter`` defaults to the model's own tokenizer when a model is given
    (``model``; a named estimate, marked inexact, when ctx_lab lacks it), else ``bytes/4``.
    ``focus`` (text whose keywords replace the included tasks'),
    ``relevance`` (``auto``, ``keywords`` or ``bm25``) and ``steering`` (names of steering files to
    include whatever their ``inclusion``) shape the choice of entries. With ``root`` every file
    read must resolve inside it.

    ``profile="ctx-0.8"`` makes the packet ``ctx agent`` 0.8.1 would send; ``display_dir`` is
    the directory it prints and counts (default: the absolute ``.context/`` path, or with
    ``root`` the path relative to it — a server never reveals absolute paths).
    ``compare="ctx-0.8"`` returns the comparison of both profiles instead of a packet.
    """
    from ..examples import EXAMPLE_DIR, EXAMPLE_NOW
    from ..packet import PROFILES, RELEVANCE_RULES, ProfileComparison, assembler_for, load_context
    from ..packet.assemble import packet_counter, resolve_budget, with_counter

    if example and directory:
        raise UsageError("give either DIR or --example, not both")
    if budget is not None and model is not None:
        raise UsageError("give either a budget or a model, not both")
    choice(relevance, RELEVANCE_RULES, "--relevance")
    choice(profile, PROFILES, "--profile")
    if compare is not None:
        choice(compare, [p for p in PROFILES if p != "design"], "--compare")
        if profile != "design":
            raise UsageError("--compare compares the design profile with another: drop --profile")
    if example:
        ctx = load_context(EXAMPLE_DIR)
        now = now or EXAMPLE_NOW
    elif directory is None and root is None:
        # no directory named: the nearest .context/ at or above here, as the sidebar finds it
        ctx = load_context(_nearest_context())
    else:
        ctx = load_context(directory or (root if root is not None else "."), root=root)
    if display_dir is None and root is not None:  # never an absolute path over REST
        display_dir = ".context" if example else display_path(ctx.context_dir, root)
    if compare is not None:
        size, _ = resolve_budget(ctx, budget, model)
        return ProfileComparison.of(ctx, size, now, display_dir=display_dir)
    counting = packet_counter(counter, model, profile)
    made = assembler_for(ctx, counting.use).assemble(
        budget,
        now,
        model,
        focus=focus,
        relevance=relevance,
        steering=steering,
        profile=profile,
        display_dir=display_dir,
        registry=registry,
    )
    return with_counter(made, counting)


def entries(
    directory: PathArg | None = None,
    *,
    example: bool = False,
    budget: int | None = None,
    model: str | None = None,
    now: datetime | None = None,
    counter: str | None = None,
    root: PathArg | None = None,
    focus: str | None = None,
    relevance: str = "auto",
    steering: Sequence[str] = (),
    profile: str = "design",
    display_dir: str | None = None,
    registry: str | None = None,
) -> EntriesReport:
    """The scored entries of :func:`packet` for the same arguments: kept, summarized or left
    out, and why."""
    from ..packet import EntriesReport, Packet

    made = packet(
        directory,
        example=example,
        budget=budget,
        model=model,
        now=now,
        counter=counter,
        root=root,
        focus=focus,
        relevance=relevance,
        steering=steering,
        profile=profile,
        display_dir=display_dir,
        registry=registry,
    )
    assert isinstance(made, Packet)
    return EntriesReport(made)


def _nearest_context() -> str:
    """The nearest directory at or above the working directory that holds ``.context/``."""
    from pathlib import Path

    from ..errors import ContextNotFound
    from ..packet import find_context

    here = Path.cwd()
    found = find_context(here, root=here.anchor)
    if not found.found or found.directory is None:
        raise ContextNotFound(
            f"no .context/ directory in {here} or above it; pass the project directory "
            "(or --example for the shipped one)"
        )
    return str(Path(here.anchor) / found.directory) if found.directory != "." else here.anchor


def context(directory: PathArg = ".", *, root: PathArg = ".") -> ContextLocation:
    """The nearest directory at or above ``directory`` (not above ``root``) with a
    ``.context/``, and a signature of its files."""
    from ..packet import find_context

    return find_context(directory, root=root)


def _packet_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "directory", nargs="?", metavar="DIR", help="project or .context/ directory (default .)"
    )
    p.add_argument(
        "--example",
        action="store_true",
        help="use the example project shipped with ctx-lab (now pinned to its own date)",
    )
    add_budget_or_model(p)
    p.add_argument("--now", type=flag(parse_now), metavar="ISO", help="the current time")
    add_counter(p, "bytes/4", model_default=True)
    p.add_argument(
        "--focus",
        metavar="TEXT",
        help="score entries against TEXT's keywords instead of the included tasks'",
    )
    p.add_argument(
        "--relevance",
        choices=RELEVANCE_CHOICES,
        help="relevance rule: auto (the default: keywords unless they rank most entries alike, "
        "then bm25), keywords (matched keywords / 3) or bm25",
    )
    p.add_argument(
        "--steering",
        action="append",
        metavar="NAME",
        help="include steering file NAME whatever its inclusion (repeatable)",
    )
    p.add_argument(
        "--profile",
        choices=("design", "ctx-0.8"),
        help="design (the design doc's packet, the default) or ctx-0.8 (what ctx agent 0.8.1 "
        "sends, bugs included)",
    )
    p.add_argument(
        "--registry",
        metavar="NAME",
        help="where --model's limits come from: builtin (default) or models-dev",
    )
    p.add_argument(
        "--display-dir",
        metavar="PATH",
        help="ctx-0.8: the .context/ directory printed and counted in the read order "
        "(default its absolute path)",
    )


def _packet_options(p: argparse.ArgumentParser) -> None:
    _packet_arguments(p)
    p.add_argument(
        "--format", choices=("md", "json"), default="md", help="output format (default md)"
    )
    p.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write to FILE (atomically; a FIFO or device in place) instead of stdout",
    )
    p.add_argument(
        "--compare",
        choices=("ctx-0.8",),
        help="print how the design packet and PROFILE's differ, item by item, with the rule why",
    )


def _entries_options(p: argparse.ArgumentParser) -> None:
    _packet_arguments(p)
    p.add_argument(
        "--format",
        choices=("table", "csv", "json"),
        default="table",
        help="output format (default table)",
    )


def _context_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("directory", nargs="?", metavar="DIR", help="where to start (default .)")
    p.add_argument("--root", metavar="DIR", help="never look above DIR (default .)")


command(
    Command(
        "packet",
        "assemble a budgeted context packet from a project's .context/",
        packet,
        _packet_options,
        formats=("md", "json"),
        epilog="examples:\n  ctx-lab packet --example --budget 2000\n"
        "  ctx-lab packet ~/src/billing --model gpt-4o --counter cl100k\n"
        "  ctx-lab packet . --format json -o packet.json\n"
        '  ctx-lab packet . --focus "hook edge cases" --relevance bm25\n'
        "  ctx-lab packet . --steering release-checklist\n"
        "  ctx-lab packet . --profile ctx-0.8 --budget 8000 --format json\n"
        "  ctx-lab packet . --compare ctx-0.8 --budget 8000",
    )
)
command(
    Command(
        "entries",
        "show the scored entries of a packet: what was kept, summarized or left out, and why",
        entries,
        _entries_options,
        formats=("table", "csv", "json"),
        epilog="examples:\n  ctx-lab entries --example --budget 2000\n"
        "  ctx-lab entries . --format csv\n"
        '  ctx-lab entries . --focus "webhook retries" --relevance bm25',
    )
)
command(
    Command(
        "context",
        "find the nearest .context/ at or above a directory, with a signature of its files",
        context,
        _context_options,
        epilog="example:\n  ctx-lab context src/billing --root ~/src",
    )
)
