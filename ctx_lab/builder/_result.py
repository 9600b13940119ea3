"""What a build answers: the prompt, its tokens against the budget, and one ledger row per
block saying what happened to it and why."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..display import RichResult, escape, html_table
from ..severity import fit_severity

__all__ = ["LEDGER_COLUMNS", "BlockOutcome", "BuildResult"]


@dataclass(frozen=True)
class BlockOutcome:
    """What happened to one block."""

    block: str
    source: str
    path: str
    priority: int
    policy_initial: str
    policy_final: str
    tokens_before: int
    tokens_after: int
    action: str
    reason: str
    partial: bool = False  # parts of the file did not parse and are left out of its skeleton
    boost: int = 0  # priority added for matching the task

    def to_dict(self) -> dict[str, Any]:
        """The ledger row as JSON."""
        return dict(self.__dict__)


LEDGER_COLUMNS = list(BlockOutcome.__dataclass_fields__)


@dataclass(frozen=True)
class BuildResult(RichResult):
    """The built prompt, its token count and budget, and every block's fate."""

    prompt: str
    tokens: int
    budget: int
    blocks: tuple[BlockOutcome, ...]
    warnings: tuple[str, ...] = ()
    counter: str = "chars/3"
    budget_source: str = "argument"
    counter_requested: str | None = None
    exact: bool | None = None

    payload_kind = "build"

    def to_markdown(self) -> str:
        """The prompt."""
        return self.prompt

    def to_dict(self) -> dict[str, Any]:
        """Prompt, tokens, budget, counter, blocks and warnings."""
        return {
            "prompt": self.prompt,
            "tokens": self.tokens,
            "budget": self.budget,
            "counter": self.counter,
            "counter_requested": self.counter_requested or self.counter,
            "exact": self.exact,
            "budget_source": self.budget_source,
            "severity": fit_severity(self.tokens, self.budget),
            "blocks": [b.to_dict() for b in self.blocks],
            "warnings": list(self.warnings),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BuildResult:
        """The inverse of :meth:`to_dict` (``severity`` is derived)."""
        return cls(
            data["prompt"],
            data["tokens"],
            data["budget"],
            tuple(BlockOutcome(**b) for b in data.get("blocks", ())),
            tuple(data.get("warnings", ())),
            data.get("counter", "chars/3"),
            data.get("budget_source", "argument"),
            data.get("counter_requested"),
            data.get("exact"),
        )

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
