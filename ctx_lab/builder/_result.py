"""What a build answers: the prompt, its tokens against the budget, and one ledger row per
block saying what happened to it and why."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..display import RichResult, escape, html_table
from ..severity import SEVERITIES, fit_severity
from ..wire import derived, to_wire, wire

__all__ = ["LEDGER_COLUMNS", "BlockOutcome", "BuildResult"]

_POLICIES = ("exact", "structural", "summarizable", "reference")


@dataclass(frozen=True)
class BlockOutcome:
    """What happened to one block."""

    block: str
    source: str = field(metadata=wire(enum=("task", "memory", "file")))
    path: str
    priority: int
    policy_initial: str = field(metadata=wire(enum=_POLICIES))
    policy_final: str = field(metadata=wire(enum=_POLICIES))
    tokens_before: int = field(metadata=wire(minimum=0))
    tokens_after: int = field(metadata=wire(minimum=0))
    action: str = field(
        metadata=wire(
            "listed: a reference shown only in the list of other files",
            enum=("kept", "degraded", "listed", "dropped"),
        )
    )
    reason: str
    partial: bool = field(
        default=False,
        metadata=wire("parts of the file did not parse and are left out of its skeleton"),
    )
    boost: int = field(default=0, metadata=wire("priority added for matching the task", minimum=0))

    def to_dict(self) -> dict[str, Any]:
        """The ledger row as JSON."""
        return to_wire(self)


LEDGER_COLUMNS = list(BlockOutcome.__dataclass_fields__)


@dataclass(frozen=True, kw_only=True)
class BuildResult(RichResult):
    """The built prompt, its token count and budget, and every block's fate."""

    prompt: str
    tokens: int = field(metadata=wire(minimum=0))
    budget: int = field(metadata=wire(minimum=0))
    blocks: tuple[BlockOutcome, ...]
    warnings: tuple[str, ...] = ()
    counter: str = "chars/3"
    budget_source: str = "argument"
    counter_requested: str | None = field(
        default=None,
        metadata=wire("the counter asked for: a name, or model (the model's own tokenizer)"),
    )
    exact: bool | None = field(
        default=None, metadata=wire("whether counter is a real tokenizer (false: an estimate)")
    )

    payload_kind = "build"

    def __post_init__(self) -> None:
        if self.counter_requested is None:  # nothing asked for: the counter that counted
            object.__setattr__(self, "counter_requested", self.counter)

    @derived(
        {"type": "string", "enum": list(SEVERITIES)},
        "how full the meter is (ctx_lab.severity): renderers only read this",
        name="severity",
    )
    def _severity(self) -> str:
        return fit_severity(self.tokens, self.budget)

    def to_markdown(self) -> str:
        """The prompt."""
        return self.prompt

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
        from ._plots import plot_blocks

        return plot_blocks(self, ax=ax)
