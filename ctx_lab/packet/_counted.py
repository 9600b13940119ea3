"""The one counted-packet entry: :func:`assembler_for` gives a context's shared assembler
together with its counter choice (the counter asked for, or the model's own tokenizer, or
``bytes/4``; ctx's estimate for the ``ctx-0.8`` profile), and every packet it makes says which
counter counted it and whether that is the model's real tokenizer. The CLI, ``%ctx``, REST, MCP,
the budget explorer and corpus sweeps all assemble through it."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from cachetools import LRUCache

from ..choices import CTX08_PROFILE
from ..tokens import CounterChoice, CounterLike, get_counter, resolve_counter
from ._assemble import PacketAssembler
from ._context import ProjectContext
from ._packet import Packet
from ._scoring import DEFAULT_STOP_WORDS

if TYPE_CHECKING:
    from ..models import ModelRegistry

__all__ = [
    "CountedAssembler",
    "assemble_packet",
    "assembler_for",
    "packet_counter",
    "with_counter",
]


def packet_counter(counter: CounterLike | None, model: str | None, profile: str) -> CounterChoice:
    """The counter a packet counts with: ``counter``; none given, the model's own tokenizer
    when a model is given (``counter="model"``), else ``bytes/4``. The ctx-0.8 profile always
    counts with ctx's byte estimate. Counter objects are taken as they are."""
    if profile == CTX08_PROFILE:
        from . import _ctx08 as ctx08

        ctx08.check_counter(counter if isinstance(counter, str) or counter is None else "custom")
        return CounterChoice(ctx08.COUNTER, ctx08.COUNTER, False)
    if counter is not None and not isinstance(counter, str):
        made = get_counter(counter)
        return CounterChoice(made.name, made.name, made.exact, "", made)
    return resolve_counter(counter, model, "bytes/4", budget=True)


def with_counter(packet: Packet, choice: CounterChoice) -> Packet:
    """The packet saying which counter counted it, what was asked for, and whether it is the
    model's real tokenizer (an estimate standing in for a model is also a warning)."""
    warnings = (*packet.warnings, choice.note) if choice.note else packet.warnings
    return replace(
        packet, counter_requested=choice.requested, exact=choice.exact, warnings=warnings
    )


@dataclass(frozen=True)
class CountedAssembler:
    """An assembler and the counter choice its packets carry."""

    assembler: PacketAssembler
    choice: CounterChoice

    def assemble(
        self,
        budget: int | None = None,
        now: datetime | None = None,
        model: str | None = None,
        **options: Any,
    ) -> Packet:
        """:meth:`PacketAssembler.assemble`, the packet saying how it was counted."""
        return with_counter(self.assembler.assemble(budget, now, model, **options), self.choice)


_ASSEMBLERS: LRUCache[tuple[int, str], tuple[ProjectContext, PacketAssembler]] = LRUCache(
    maxsize=16
)
_ASSEMBLERS_LOCK = threading.Lock()


def _shared(ctx: ProjectContext, counter: CounterLike) -> PacketAssembler:
    """The shared assembler of ``ctx`` and a counter given by name (others get a fresh one)."""
    if not isinstance(counter, str):
        return PacketAssembler(ctx, counter)
    key = (id(ctx), counter)
    with _ASSEMBLERS_LOCK:
        found = _ASSEMBLERS.get(key)
        if found is not None and found[0] is ctx:
            return found[1]
    made = PacketAssembler(ctx, counter)
    with _ASSEMBLERS_LOCK:
        _ASSEMBLERS[key] = (ctx, made)
    return made


def assembler_for(
    ctx: ProjectContext,
    counter: CounterLike | None = None,
    *,
    model: str | None = None,
    profile: str = "design",
    shared: bool = True,
) -> CountedAssembler:
    """The assembler of ``ctx`` for the counter :func:`packet_counter` chooses. Shared: the
    CLI, ``%ctx`` and REST re-assembling an unchanged ``.context/`` (which
    :func:`load_context` returns as the same object) at another budget reuse its parsed
    scores and token counts; ``shared=False`` (a context read once, as a sweep's worker does)
    makes a fresh one."""
    choice = packet_counter(counter, model, profile)
    made = _shared(ctx, choice.use) if shared else PacketAssembler(ctx, choice.use)
    return CountedAssembler(made, choice)


def assemble_packet(
    ctx: ProjectContext,
    budget: int | None = None,
    now: datetime | None = None,
    counter: CounterLike | None = None,
    model: str | None = None,
    *,
    registry: str | ModelRegistry | None = None,
    stop_words: Iterable[str] = DEFAULT_STOP_WORDS,
    environ: Mapping[str, str] | None = None,
    focus: str | None = None,
    relevance: str = "auto",
    steering: Iterable[str] = (),
    profile: str = "design",
    display_dir: str | None = None,
) -> Packet:
    """Assemble a context packet from a loaded ``.context/``.

    Budget precedence: ``budget``; else ``model``'s effective input budget; else
    ``CTX_TOKEN_BUDGET``; else ``.ctxrc``; else 8000. ``now`` (default: the current time) dates
    the packet and the entries' ages; the same inputs and ``now`` give byte-identical output.
    Whenever the budget covers tier 1, the Markdown's count under ``counter`` is ≤ the budget
    and equals ``tokens_used``; otherwise the packet is tier 1 only with ``over_budget``.

    Decisions and learnings are scored ``recency + relevance``; ``relevance`` picks the rule:
    ``keywords`` (matched keywords / 3, capped at 1), ``bm25`` (Okapi BM25 over the project's
    decisions and learnings, divided by the highest score) or ``auto`` (the default: keywords
    unless, with no focus, at least half of the entries share the top keyword relevance or 50
    or more would get fewer than 10 distinct scores — then bm25; the packet's ``relevance`` and
    ``relevance_reason`` say which and why). The
    query is ``focus``'s keywords when given, else the included tasks'. Steering files apply
    when ``always``, when ``auto`` and a keyword of their description is among those keywords,
    or when named in ``steering``.

    ``counter`` defaults to the model's own tokenizer when ``model`` is given (``"model"``:
    o200k for GPT-4o …, a named estimate marked inexact for models whose tokenizer ctx_lab does
    not have), else to ``bytes/4``.

    ``profile="ctx-0.8"`` reproduces what ``ctx agent`` 0.8.1 sends instead, bugs included
    (:mod:`ctx_lab.packet._ctx08`; counted with ctx's byte estimate only, ``display_dir`` the
    directory string it prints and counts — default the absolute ``.context/`` path).
    """
    choice = packet_counter(counter, model, profile)
    made = PacketAssembler(ctx, choice.use, stop_words=stop_words)
    return CountedAssembler(made, choice).assemble(
        budget,
        now,
        model,
        focus=focus,
        relevance=relevance,
        steering=steering,
        registry=registry,
        environ=environ,
        profile=profile,
        display_dir=display_dir,
    )
