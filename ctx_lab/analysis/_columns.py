"""The columns of the corpus tables and their pandas types, one dict per kind of run (a sweep,
a replay per session or per call, a policies run): what :class:`~._report.CorpusReport` carries
and what a frame is typed by."""

from __future__ import annotations

__all__ = [
    "KINDS",
    "POLICIES_COLUMNS",
    "REPLAY_CALL_COLUMNS",
    "REPLAY_SESSION_COLUMNS",
    "SWEEP_COLUMNS",
]

_ERROR = {"error_type": "string", "error": "string"}

SWEEP_COLUMNS: dict[str, str] = {
    "item": "string",
    "budget": "Int64",  # as asked; empty when the model's budget decided
    "model": "string",
    "counter": "string",
    "exact": "boolean",
    "budget_tokens": "Int64",  # the budget the packet had
    "packet_tokens": "Int64",
    "over_budget": "boolean",
    "warnings": "Int64",
    "section": "string",
    "tokens": "Int64",
    "full": "Int64",
    "summary": "Int64",
    "counted": "Int64",
    **_ERROR,
}

REPLAY_SESSION_COLUMNS: dict[str, str] = {
    "item": "string",
    "model": "string",
    "counter": "string",
    "exact": "boolean",
    "format": "string",
    "calls": "Int64",
    "budget": "Int64",
    "peak_context": "Int64",
    "first_summarization": "Int64",
    "summarizations": "Int64",
    "cached_tokens": "Int64",
    "new_tokens": "Int64",
    "output_tokens": "Int64",
    "cost_usd": "Float64",
    "reported_input": "Int64",
    "counted_input": "Int64",
    "warnings": "Int64",
    **_ERROR,
}

_CALL_TYPES = {
    "model": "string",
    "recorded_model": "string",
    "timestamp": "string",
    "needed_summarization": "boolean",
    "recorded_compaction": "boolean",
    "event": "string",
}


def _call_columns() -> dict[str, str]:
    from ..recordings import REPLAY_COLUMNS

    columns = {"item": "string"}
    for name in REPLAY_COLUMNS:
        columns[name] = _CALL_TYPES.get(name, "Float64" if name.endswith("_usd") else "Int64")
    return {**columns, "counter": "string", "exact": "boolean", **_ERROR}


REPLAY_CALL_COLUMNS: dict[str, str] = _call_columns()
POLICIES_COLUMNS: dict[str, str] = {
    "item": "string",
    "setting": "string",  # the policy and the parameters that differ from its defaults
    "policy": "string",
    "params": "string",  # every parameter, as JSON
    "agent": "string",  # the recording's format
    "baseline_cost": "Float64",  # the recording's sizes priced as every setting is
    "model": "string",
    "calls": "Int64",
    "peak": "Int64",
    "mean": "Int64",
    "compactions": "Int64",
    "over_window": "Int64",
    "cost_usd": "Float64",
    "cache_hit_rate": "Float64",
    "probes_kept": "Int64",
    "probes_summarized": "Int64",
    "probes_lost": "Int64",
    "constraints_lost": "Int64",
    "refetch_tokens": "Int64",
    **_ERROR,
}
KINDS: dict[str, dict[str, str]] = {
    "policies": POLICIES_COLUMNS,
    "sweep": SWEEP_COLUMNS,
    "replay-session": REPLAY_SESSION_COLUMNS,
    "replay-call": REPLAY_CALL_COLUMNS,
}
