"""Building the same inputs at several budgets: each block's final policy per budget."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..errors import ExactContentTooLarge
from ._build import build_context

__all__ = ["policy_sweep"]


def policy_sweep(task: Any, files: Iterable[Any], budgets: Iterable[int], **options: Any) -> Any:
    """A DataFrame ``budget, block, policy, tokens, action`` (``policy`` is ``dropped`` for
    dropped blocks); budgets too small for the exact content are skipped."""
    import pandas as pd

    files = list(files)
    rows = []
    for budget in budgets:
        try:
            result = build_context(task, files, budget=int(budget), **options)
        except ExactContentTooLarge:
            continue
        for b in result.blocks:
            rows.append(
                {
                    "budget": int(budget),
                    "block": b.block,
                    "policy": "dropped" if b.action == "dropped" else b.policy_final,
                    "tokens": b.tokens_after,
                    "action": b.action,
                }
            )
    return pd.DataFrame(rows, columns=["budget", "block", "policy", "tokens", "action"])
