"""``packet``, ``entries`` and ``context``: a budgeted context packet, its ledger, and where the
nearest ``.context/`` is."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any

from ..choices import PacketProfile
from ..errors import UsageError
from ..files import display_path
from ..validate import choice
from . import _params as params
from ._param import ALL, CLI, Param, hidden
from ._params import RELEVANCE_CHOICES, Budget, Model, Now, Registry
from ._registry import Command, command

if TYPE_CHECKING:
    from ..packet import ContextLocation, EntriesReport, Packet, ProfileComparison

__all__ = ["context", "entries", "packet"]

PathArg = str | os.PathLike[str]

Directory = Annotated[
    PathArg | None,
    Param(
        "project or .context/ directory",
        positional=True,
        metavar="DIR",
        default_text="the nearest .context/ at or above here; a server: its root",
    ),
]
Example = Annotated[
    bool,
    Param(
        "use the example project shipped with ctx-lab (now pinned to its own date)",
        surfaces=frozenset({"cli", "rest"}),
    ),
]
Focus = Annotated[
    str | None,
    Param(
        "score entries against TEXT's keywords instead of the included tasks'",
        metavar="TEXT",
        max_length=10_000,
    ),
]
Relevance = Annotated[
    str,
    Param(
        "relevance rule: auto (keywords unless they rank most entries alike, then bm25), "
        "keywords (matched keywords / 3) or bm25",
        choices=RELEVANCE_CHOICES,
    ),
]
Steering = Annotated[
    Sequence[str],
    Param(
        "include steering file NAME whatever its inclusion (repeatable)",
        metavar="NAME",
        flag="--steering",
    ),
]
Profile = Annotated[
    PacketProfile,
    Param(
        "design (the design doc's packet) or ctx-0.8 (what ctx agent 0.8.1 sends, bugs included)",
    ),
]
DisplayDir = Annotated[
    str | None,
    Param(
        "ctx-0.8: the .context/ directory printed and counted in the read order",
        metavar="PATH",
        surfaces=frozenset({"cli", "rest"}),
        default_text="its absolute path; a server: the path relative to its root",
    ),
]
Root = Annotated[PathArg | None, hidden("every file read must resolve inside it", session="root")]
PacketCounter = Annotated[str | None, params.counter("bytes/4", model=True)]


def packet(
    directory: Directory = None,
    *,
    example: Example = False,
    budget: Budget = None,
    model: Model = None,
    now: Now = None,
    counter: PacketCounter = None,
    focus: Focus = None,
    relevance: Relevance = "auto",
    steering: Steering = (),
    profile: Profile = "design",
    registry: Registry = None,
    display_dir: DisplayDir = None,
    compare: Annotated[
        str | None,
        Param(
            "answer how the design packet and PROFILE's differ, item by item, with the rule why",
            choices=("ctx-0.8",),
            surfaces=frozenset({"cli", "rest"}),
        ),
    ] = None,
    root: Root = None,
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
    from ..packet import PROFILES, RELEVANCE_RULES, assembler_for, load_context

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
    extra_warnings: list[str] = []
    if example:
        ctx = load_context(EXAMPLE_DIR)
        now = now or EXAMPLE_NOW
    elif directory is None and root is None:
        # no directory named: the nearest .context/ at or above here, as the sidebar finds it
        ctx = load_context(_nearest_context())
    else:
        start = directory or (root if root is not None else ".")
        found, note = _project_of(start, root)
        ctx = load_context(found, root=root)
        if note:
            extra_warnings.append(note)

    if _is_example(ctx.context_dir, EXAMPLE_DIR):
        now = now or EXAMPLE_NOW  # the shipped example, however it is opened: its own date
    if display_dir is None and root is not None:  # never an absolute path over REST
        display_dir = ".context" if example else display_path(ctx.context_dir, root)
    if compare is not None:
        from ..packet import ProfileComparison, resolve_budget

        size, _ = resolve_budget(ctx, budget, model)
        return ProfileComparison.of(ctx, size, now, display_dir=display_dir)
    made = assembler_for(ctx, counter, model=model, profile=profile).assemble(
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
    if extra_warnings:
        from dataclasses import replace

        made = replace(made, warnings=(*made.warnings, *extra_warnings))
    return made


def _project_of(start: PathArg, root: PathArg | None) -> tuple[PathArg, str]:
    """``start``, or — when it is a folder inside a project but holds no ``.context/`` of its
    own (``src/``) — the nearest folder above it that does (never above ``root``), with a
    note saying so. Anything else is left to :func:`load_context` to refuse in its words."""
    from pathlib import Path

    from ..files import confine, real_path

    # not a declared input: the packet names its files by the path as given (load_context
    # confines it again), so only this look upward resolves it
    path = confine(root, start, what="dir") if root is not None else Path(start)
    if path.name == ".context" or (path / ".context").is_dir() or not path.is_dir():
        return start, ""
    from ..packet import find_context  # only a folder without its own .context/ looks up

    absolute = real_path(path)
    base = Path(root) if root is not None else Path(absolute.anchor)
    found = find_context(absolute, root=base)
    if not found.found or found.directory is None:
        from ..errors import ContextNotFound
        from ..packet import kiro_specs

        above = "the root" if root is not None else os.fspath(base)
        specs = kiro_specs(absolute)
        raise ContextNotFound(
            f"{os.fspath(start)} has no .context/ directory, and no folder above it (up to "
            f"{above}) holds one or another agent's memory; pass the project directory or its "
            ".context/"
            + (f" (its Kiro specs, {'; '.join(specs[:3])}, are plans, not memory)" if specs else "")
        )
    project = base / found.directory if found.directory != "." else base
    if real_path(project) == absolute:  # the folder is the project (another agent's memory)
        return start, ""
    shown = found.directory if root is not None else os.fspath(project)
    return project, f"{os.fspath(start)} has no .context/: the nearest project above it, {shown}"


def entries(
    directory: Directory = None,
    *,
    example: Example = False,
    budget: Budget = None,
    model: Model = None,
    now: Now = None,
    counter: PacketCounter = None,
    focus: Focus = None,
    relevance: Relevance = "auto",
    steering: Steering = (),
    profile: Profile = "design",
    registry: Registry = None,
    display_dir: DisplayDir = None,
    offset: Annotated[int, Param("the first row shown (0-based)", metavar="N")] = 0,
    limit: Annotated[
        int | None,
        Param("rows shown", metavar="N", minimum=1, maximum=100_000, default_text="all"),
    ] = None,
    root: Root = None,
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
    return EntriesReport(packet=made, offset=offset, limit=limit)


def _is_example(context_dir: Any, example_dir: Any) -> bool:
    """True when ``context_dir`` is the shipped example's ``.context/`` (by its real path), so
    the example is dated the same however it is opened."""
    from pathlib import Path

    from ..errors import InputFileError
    from ..files import real_path

    try:
        return real_path(context_dir) == real_path(Path(example_dir) / ".context")
    except InputFileError:
        return False


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


def context(
    directory: Annotated[
        PathArg,
        Param("where to start", positional=True, metavar="DIR", max_length=4096, path=True),
    ] = ".",
    *,
    root: Annotated[
        PathArg | None,
        Param(
            "never look above DIR",
            metavar="DIR",
            surfaces=CLI,
            session="root",
            default_text="the working directory; for an absolute DIR, the file system's root",
        ),
    ] = None,
) -> ContextLocation:
    """The nearest directory at or above ``directory`` (not above ``root``) with a
    ``.context/``, and a signature of its files. An absolute ``directory`` with no root is
    looked up as it is (as ``packet`` takes it), and the project shown by its absolute path."""
    from dataclasses import replace
    from pathlib import Path

    from ..packet import find_context

    if root is None and os.path.isabs(directory):
        anchor = Path(directory).anchor
        found = find_context(directory, root=anchor)
        if found.found and found.directory is not None:
            found = replace(found, directory=os.fspath(Path(anchor) / found.directory))
        return _with_layout(found, anchor)
    base = "." if root is None else root
    return _with_layout(find_context(directory, root=base), base)


def _with_layout(found: ContextLocation, root: PathArg) -> ContextLocation:
    """``found`` with each of its files and what a packet reads it as (the layout report)."""
    from dataclasses import replace
    from pathlib import Path

    from ..packet import load_context

    if not found.found or found.directory is None:
        return found
    project = Path(root) / found.directory
    return replace(found, files=load_context(project, root=root).layout.files)


command(
    Command(
        "packet",
        "assemble a budgeted context packet from a project's .context/",
        packet,
        formats=("md", "json"),
        surfaces=ALL,
        agent_help="The project's context packet: its constitution, tasks, conventions, "
        "decisions and learnings within a token budget (or a model's), ranked by recency and "
        "relevance to focus. format=md gives the packet to read; format=json adds the ledger of "
        "why each entry went in, was summarized or left out.",
        output="write to FILE (atomically; a FIFO or device in place) instead of stdout",
        epilog="examples:\n  ctx-lab packet --example --budget 2000\n"
        "  ctx-lab packet ~/src/billing --model gpt-4o --counter cl100k\n"
        "  ctx-lab packet . --format json -o packet.json\n"
        '  ctx-lab packet . --focus "hook edge cases" --relevance bm25\n'
        "  ctx-lab packet . --steering release-checklist\n"
        "  ctx-lab packet . --profile ctx-0.8 --budget 8000 --format json\n"
        "  ctx-lab packet . --compare ctx-0.8 --budget 8000",
        group="packets",
    )
)
command(
    Command(
        "entries",
        "show the scored entries of a packet: what was kept, summarized or left out, and why",
        entries,
        formats=("table", "csv", "json"),
        surfaces=frozenset({"cli", "rest"}),
        epilog="examples:\n  ctx-lab entries --example --budget 2000\n"
        "  ctx-lab entries . --format csv\n"
        '  ctx-lab entries . --focus "webhook retries" --relevance bm25',
        group="packets",
    )
)
command(
    Command(
        "context",
        "find the nearest .context/ at or above a directory, with a signature of its files",
        context,
        surfaces=frozenset({"cli", "rest"}),
        epilog="example:\n  ctx-lab context ~/src/billing --root ~/src",
        group="context",
    )
)
