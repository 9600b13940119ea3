"""Simulating a long conversation against real model limits: when it fills, when it needs
summarizing, what a model switch does — as a DataFrame and a plot."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from ..errors import ContextBuildError, RecentMessagesTooLarge
from ..models import ModelRegistry
from ..tokens import CounterLike
from ._manager import ContextManager, Expanding, NoChange, PendingSummarization, Shrinking
from ._messages import Message
from ._summarizers import ExtractiveSummarizer, Summarizer

__all__ = ["SIMULATION_COLUMNS", "describe_adaptation", "plot_usage", "simulate", "step_clock"]

SIMULATION_COLUMNS = ["turn", "model", "budget", "used", "severity", "event"]
SIMULATION_START = datetime(2026, 6, 15, 9, 0, tzinfo=UTC)


def step_clock(
    start: datetime = SIMULATION_START, step: timedelta = timedelta(minutes=1)
) -> Callable[[], datetime]:
    """A deterministic clock that advances ``step`` on every call."""
    state = {"now": start - step}

    def clock() -> datetime:
        state["now"] += step
        return state["now"]

    return clock


def describe_adaptation(model: str, adaptation: NoChange | Shrinking | Expanding) -> str:
    """A short description of a model switch."""
    if isinstance(adaptation, NoChange):
        return f"switched to {model} (same budget)"
    if isinstance(adaptation, Shrinking):
        need = ", needs summarization" if adaptation.needs_summarization else ""
        return (
            f"switched to {model}: budget {adaptation.old_budget} → {adaptation.new_budget}{need}"
        )
    return (
        f"switched to {model}: budget {adaptation.old_budget} → {adaptation.new_budget}, "
        f"{adaptation.can_restore} originals restored"
    )


def target_size(pending: PendingSummarization, text: str) -> int:
    """In simulations a summary is as large as its target (the messages are placeholders)."""
    return pending.target_tokens


def summarize_now(manager: ContextManager, summarizer: Summarizer) -> str:
    """Summarize until the context fits (summaries sized at their target); the event text."""
    before = len(manager.history.summaries)
    manager.summarize_pending(summarizer, token_count=target_size)
    made = manager.history.summaries[before:]
    return "; ".join(
        f"summarized {s.start}–{s.end - 1} ({s.original_tokens} → {s.token_count} tokens)"
        for s in made
    )


def simulate(
    turns: Iterable[int | tuple[str, int]],
    model: str,
    switches: Mapping[int, str] | None = None,
    summarizer: Summarizer | None = None,
    preserve_recent: int = 4,
    *,
    registry: str | ModelRegistry | None = None,
    counter: CounterLike = "cl100k",
    target_ratio: float = 0.15,
    clock: Callable[[], datetime] | None = None,
    manager: ContextManager | None = None,
) -> Any:
    """Run a scripted conversation: ``turns`` are message sizes (alternating user and
    assistant) or ``(role, size)`` pairs; ``switches`` maps a turn number (1-based) to the model
    used from that turn on. Summarizes whenever the context stops fitting.

    Returns a DataFrame ``turn, model, budget, used, severity, event``. Pass ``manager`` to
    run on (and keep) your own :class:`ContextManager`; it is switched to ``model`` first.
    """
    import pandas as pd

    if manager is None:
        manager = ContextManager(
            model,
            registry,
            counter=counter,
            preserve_recent=preserve_recent,
            target_ratio=target_ratio,
            clock=clock or step_clock(),
        )
    elif manager.model != model:
        manager.switch_model(model)
    summarizer = summarizer or ExtractiveSummarizer(counter)
    rows: list[dict[str, Any]] = []
    for turn, spec in enumerate(turns, 1):
        events: list[str] = []
        if switches and turn in switches:
            events.append(describe_adaptation(switches[turn], manager.switch_model(switches[turn])))
        role, size = (
            spec if isinstance(spec, tuple) else (("user", "assistant")[(turn - 1) % 2], spec)
        )
        manager.push_message(
            Message(role, f"turn {turn}: a {role} message of {size} tokens."), size
        )
        status = manager.usage_status()
        if status.state == "needs_summarization":
            try:
                events.append(summarize_now(manager, summarizer))
            except ContextBuildError as exc:
                events.append(f"cannot fit: {exc}")
        elif isinstance(status.needed, RecentMessagesTooLarge):
            events.append("recent messages exceed the budget")
        usage = manager.usage_status().usage
        rows.append(
            {
                "turn": turn,
                "model": manager.model,
                "budget": usage.budget_tokens,
                "used": usage.used_tokens,
                "severity": usage.severity(),
                "event": "; ".join(e for e in events if e),
            }
        )
    return pd.DataFrame(rows, columns=SIMULATION_COLUMNS)


def plot_usage(frame: Any, ax: Any = None) -> Any:
    """Tokens used per turn against the budget, points coloured by severity, events marked."""
    from ..plotting import ACCENT, figure_axes
    from ._usage import SEVERITY_COLORS

    fig, ax = figure_axes(ax, (8, 3.6))
    ax.step(
        frame["turn"],
        frame["budget"],
        where="post",
        color=ACCENT["budget"],
        linewidth=1,
        label="budget",
    )
    ax.plot(frame["turn"], frame["used"], color=ACCENT["used"], linewidth=1)
    ax.scatter(
        frame["turn"],
        frame["used"],
        c=[SEVERITY_COLORS[s] for s in frame["severity"]],
        s=18,
        zorder=3,
        label="used",
    )
    # events as markers, one legend entry per kind: labels on points would run into each
    # other when events come turn after turn
    events = frame[frame["event"] != ""]
    kinds = events["event"].map(
        lambda e: "summarized" if "summarized" in e else e.split(":")[0].strip()
    )
    markers = ["v", "D", "s", "P", "X", "*"]
    for i, kind in enumerate(dict.fromkeys(kinds)):
        chosen = events[kinds == kind]
        ax.scatter(
            chosen["turn"],
            chosen["used"],
            marker=markers[i % len(markers)],
            s=46,
            facecolors="none",
            edgecolors=ACCENT["edge"],
            linewidths=1,
            zorder=4,
            label=kind,
        )
    ax.set_xlabel("turn")
    ax.set_ylabel("tokens")
    ax.set_title("Context usage over a simulated conversation")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    return fig
