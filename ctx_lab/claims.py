"""How a figure was made, said beside it: every payload of a recorded session (``cache``,
``policies``, ``replay``, ``anatomy``, ``check``, ``calibrate``) carries a field named ``claim``
in each object that holds figures, with one label of :data:`ctx_lab.choices.CLAIMS`:

- ``billed``: taken from the recording's usage — what the provider reported (and billed);
- ``simulated``: rules (the prompt cache's, a compaction's) applied to billed sizes;
- ``estimated``: counted or calibrated from the text the file holds, with its band;
- ``open-loop``: a counterfactual — another policy, model or setting, the agent's actions held
  to the recorded ones (what it would have done differently is not known).

A ``claim`` is one label when every figure of its object (and of the objects inside it that
carry none) was made one way, or an object naming the label of each figure (or sub-object) by
its key, ``"*"`` for the rest. :func:`unlabelled` walks a payload and names every figure
without one; :data:`NOT_FIGURES` are the numbers that are not claims about the session —
positions, what the file holds, and settings. How well each label holds on real recordings is
``docs/accuracy.md``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .choices import CLAIMS, Claim

__all__ = [
    "CLAIMS",
    "CLAIM_MEANINGS",
    "NOT_FIGURES",
    "REST",
    "Claim",
    "ClaimValue",
    "claim_of",
    "claim_schema",
    "claim_text",
    "claims",
    "tag",
    "unlabelled",
]

ClaimValue = str | dict[str, str]
REST = "*"  # in a claim object: every figure it does not name

CLAIM_MEANINGS: dict[str, str] = {
    "billed": "from the recording's usage",
    "simulated": "rules applied to billed sizes",
    "estimated": "counted or calibrated, with its band",
    "open-loop": "a counterfactual: the agent's actions held to the recorded ones",
}
assert tuple(CLAIM_MEANINGS) == CLAIMS

# Numbers that are not figures about the session: positions (a call's number, a line), what
# the file holds (how many calls, messages, files), and settings (a model's window, a rule's
# threshold, a policy's parameters) — the same whatever ctx_lab measured.
NOT_FIGURES = frozenset(
    {
        # positions
        "call",
        "message",
        "line",
        "worst_call",
        "billed_peak_call",
        "billed_over_budget_calls",
        "compactions",
        "recorded_compactions",
        # what the recording holds
        "calls",
        "messages",
        "transcripts",
        "samples",
        "images",
        "sidechain_lines",
        "unknown_lines",
        "warnings",
        "breakpoints",
        "excluded",
        # settings: a model's limits, a rule's or a policy's parameters
        "window",
        "budget",
        "limit",
        "output_reserve",
        "autocompact_at",
        "threshold",
        "params",
        "rules",
        "band",
        "after",
        "min_calls",
    }
)


def claims(rest: Claim | None = None, /, **named: Claim) -> ClaimValue:
    """A ``claim`` value: ``claims("billed")`` for one label, ``claims("open-loop",
    cost="billed")`` for several (keyword names are figure keys; ``cost_usd="…"``)."""
    for label in (rest, *named.values()):
        if label is not None and label not in CLAIMS:
            raise ValueError(f"unknown claim {label!r}; use one of {', '.join(CLAIMS)}")
    if not named:
        if rest is None:
            raise ValueError("a claim needs a label")
        return rest
    return {**named, **({REST: rest} if rest is not None else {})}


def claim_schema() -> dict[str, Any]:
    """The JSON Schema of a ``claim`` field."""
    label = {"type": "string", "enum": list(CLAIMS)}
    return {
        "anyOf": [label, {"type": "object", "additionalProperties": label}],
        "description": "how the figures beside it were made: "
        + "; ".join(f"{k} ({v})" for k, v in CLAIM_MEANINGS.items())
        + " — one label, or one per figure key ('*' for the rest)",
    }


def claim_of(value: Any, key: str) -> str | None:
    """The label a ``claim`` value gives the figure (or sub-object) named ``key``."""
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        found = value.get(key, value.get(REST))
        return found if isinstance(found, str) else None
    return None


def claim_text(value: ClaimValue) -> str:
    """The claim, compactly, for a text report's last line: ``figures: billed`` or
    ``figures: cost billed; split simulated``."""
    if isinstance(value, str):
        return f"figures: {value} ({CLAIM_MEANINGS[value]})"
    named = [f"{key} {label}" for key, label in value.items() if key != REST]
    rest = value.get(REST)
    return "figures: " + "; ".join([*named, *([f"the rest {rest}"] if rest else [])])


def tag(value: ClaimValue, key: str = REST) -> str:
    """A figure's label in text, compactly: ``[billed]``."""
    label = claim_of(value, key)
    return f"[{label}]" if label else ""


def _is_figure(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def unlabelled(payload: Any, *, skip: Iterable[str] = ()) -> list[str]:
    """The paths of the figures of ``payload`` (a JSON form) that no ``claim`` labels: a
    number whose key is not in :data:`NOT_FIGURES` (or ``skip``), with neither a ``claim`` in
    its own object nor one above it that covers its key."""
    skipped = NOT_FIGURES | frozenset(skip)
    missing: list[str] = []
    stack: list[tuple[Any, str, str | None]] = [(payload, "", None)]
    while stack:
        node, path, inherited = stack.pop()
        if isinstance(node, Mapping):
            own = node.get("claim")
            for key, value in node.items():
                if key == "claim" or key in skipped:
                    continue
                label = (claim_of(own, key) if own is not None else None) or inherited
                where = f"{path}.{key}"
                if _is_figure(value):
                    if label is None:
                        missing.append(where)
                else:
                    stack.append((value, where, label))
        elif isinstance(node, list):
            for index, item in enumerate(node):
                if _is_figure(item):
                    if inherited is None:
                        missing.append(f"{path}[{index}]")
                else:
                    stack.append((item, f"{path}[{index}]", inherited))
    return sorted(missing)
