"""From diagnosis to action: the largest avoidable cost of a request or a session, and the
ctx_lab command or policy that addresses it, with the saving estimated where ctx_lab can.

For one request the candidates are the parts ctx_lab has a tool for: tool results over one
page (paging, chunked reads, ``compress``) and memory files (a budgeted ``build``). The saving
of paging is what is left above one page per result, priced as fresh input. For a session,
add the policy lab's cheapest policy against the recorded one (open-loop, priced with the cache
model) and the prompt-cache breaks (what their rewrites cost above cache reads; a compaction
rewrites the cache by design and is left out). The system
prompt and tool definitions are named where they are the largest, without a saving: ctx_lab
has no command that shrinks them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..claims import ClaimValue, claim_schema
from ..models import cache_prices, get_registry
from ..wire import derived, to_wire
from ._claims import ADVICE_CLAIM

if TYPE_CHECKING:
    from ._request import RequestAnatomy
    from ._session import SessionAnatomy

__all__ = ["PAGE_TOKENS", "Advice", "request_advice", "session_advice"]

# one page of a file: a read chunk of 8,000 characters is ~2,000 tokens (bytes/4)
PAGE_TOKENS = 2_000
# what is worth advice without a saving in dollars: this many tokens, and this share of the request
MATERIAL_TOKENS = 1_000
MATERIAL_SHARE = 0.10
_FILE_TOOLS = ("read", "view", "cat", "open", "file", "fetch", "webfetch", "get")


@dataclass(frozen=True)
class Advice:
    """One avoidable cost: what it is, how many tokens it takes, what addresses it (a ctx_lab
    command or policy), and the saving where it can be estimated (``basis`` says how)."""

    cost: str
    tokens: int
    action: str
    command: str
    saving_tokens: int | None = None
    saving_usd: float | None = None
    basis: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The advice as JSON (by the declaration: :func:`ctx_lab.wire.to_wire`)."""
        return to_wire(self)

    @derived(claim_schema(), name="claim")
    def claim(self) -> ClaimValue:
        """The cost is counted; the saving is open-loop."""
        return ADVICE_CLAIM

    def line(self) -> str:
        """One sentence: the cost, the action and the command, the saving."""
        saving = ""
        if self.saving_tokens:
            saving = f" — saves ~{self.saving_tokens:,} tokens"
            if self.saving_usd is not None:
                saving += f" (${self.saving_usd:.4f})"
            saving += f" ({self.basis})" if self.basis else ""
            saving += " [open-loop]"
        elif self.saving_usd:
            saving = f" — saves ~${self.saving_usd:.4f} ({self.basis})"
        return f"{self.cost}: {self.action}: `{self.command}`{saving}"


def _fresh_price(anatomy: RequestAnatomy) -> float | None:
    prices = get_registry().get(anatomy.model).prices
    return cache_prices(anatomy.model, prices).input


def _usd(tokens: int, per_mtok: float | None) -> float | None:
    return None if per_mtok is None else round(tokens * per_mtok / 1_000_000, 6)


def _tool_results(anatomy: RequestAnatomy) -> Advice | None:
    results = [i for i in anatomy.items if i.category == "tool_result"]
    if not results:
        return None
    by_name: dict[str, list[int]] = {}
    for item in results:
        by_name.setdefault(item.name or "?", []).append(item.tokens)
    name, sizes = max(by_name.items(), key=lambda kv: sum(kv[1]))
    total = sum(sizes)
    over = sum(max(size - PAGE_TOKENS, 0) for size in sizes)
    share = total / max(anatomy.used, 1)
    cost = f"tool_result {name}: {total:,} tokens ({share:.0%} of the request)"
    if name.lower().startswith(_FILE_TOOLS) or "read" in name.lower():
        action, command = "read files a page at a time", "ctx-lab page FILE --lines 1-200"
    else:
        action, command = "page long tool output", "ctx-lab read FILE --max-chars 8000"
    if not over:
        return Advice(cost, total, action, command, basis="every result fits in one page")
    return Advice(
        cost=cost,
        tokens=total,
        action=f"{action} (results over one page: {sum(1 for s in sizes if s > PAGE_TOKENS)})",
        command=command,
        saving_tokens=over,
        saving_usd=_usd(over, _fresh_price(anatomy)),
        basis=f"above {PAGE_TOKENS:,} tokens a result, as fresh input, per call",
    )


def _memory(anatomy: RequestAnatomy) -> Advice | None:
    memory = anatomy.categories().get("memory", 0)
    if memory <= PAGE_TOKENS:
        return None
    saving = memory - PAGE_TOKENS
    return Advice(
        cost=f"memory files: {memory:,} tokens",
        tokens=memory,
        action="build the memory to a budget",
        command=f"ctx-lab build . --budget {PAGE_TOKENS}",
        saving_tokens=saving,
        saving_usd=_usd(saving, _fresh_price(anatomy)),
        basis=f"down to a {PAGE_TOKENS:,}-token budget, as fresh input, per call",
    )


def _fixed(anatomy: RequestAnatomy) -> Advice | None:
    categories = anatomy.categories()
    fixed = categories.get("tools", 0) + categories.get("mcp_tools", 0)
    if not fixed:
        return None
    return Advice(
        f"tool definitions: {fixed:,} tokens",
        fixed,
        "offer fewer tools (MCP servers a task does not use); ctx_lab cannot shrink them",
        "ctx-lab anatomy FILE --format json  # tools, mcp_tools by name",
    )


def _ranked(found: Iterable[Advice | None], used: int) -> list[Advice]:
    """The material costs (≥ 1,000 tokens and ≥ 10 % of ``used``, or a saving in dollars),
    the largest saving first."""
    kept = [
        a
        for a in found
        if a is not None
        and (a.saving_usd or (a.tokens >= MATERIAL_TOKENS and a.tokens >= used * MATERIAL_SHARE))
    ]
    return sorted(kept, key=lambda a: (-(a.saving_usd or 0), -(a.saving_tokens or 0), -a.tokens))


def request_advice(anatomy: RequestAnatomy) -> list[Advice]:
    """The avoidable costs of one request, the largest saving first."""
    return _ranked([_tool_results(anatomy), _memory(anatomy), _fixed(anatomy)], anatomy.used)


def _policies(session: SessionAnatomy) -> Advice | None:
    """The cheapest policy the recording's agent can run, with the setting that runs it; a
    cheaper one only another agent runs is said as such (``ctx_lab.conversation.agent_rule``)."""
    if session.transcript is None:
        return None
    from ..recordings import agent_rule, run_policies

    # a recording that names no model runs as the model the anatomy was asked for (--model)
    named = session.transcript.models or not session.calls
    model = None if named else session.calls[0].model
    # costs alone decide the advice: no probe is mined or followed
    report = run_policies(
        session.transcript, model=model, source=session.source, follow_probes=False
    )
    results = {p.name: p for p in report.policies if p.cost is not None}
    costs: dict[str, float] = {name: float(p.cost or 0.0) for name, p in results.items()}
    if "recorded" not in costs:
        return None
    if report.baseline_cost is not None:  # like with like: the recording priced as each policy
        costs["recorded"] = report.baseline_cost
    rule = agent_rule(session.transcript.format)
    runnable = {n: c for n, c in costs.items() if rule is None or rule.runs(n)}
    best = min(runnable, key=lambda name: runnable[name])
    cheapest = min(costs, key=lambda name: costs[name])
    other = ""
    if rule is not None and cheapest != best and costs[cheapest] < costs["recorded"]:
        other = (
            f"; another agent would run {cheapest} (${costs[cheapest]:.4f}), which "
            f"{rule.name} cannot"
        )
    if best == "recorded" or costs[best] >= costs["recorded"]:
        if not other:
            return None
        best = "recorded"
    agent = rule.name if rule is not None else "this agent"
    setting = ""
    if rule is not None and best != "recorded":
        setting = rule.setting(best, results[best].params, report.window)
    action = (
        f"run the {best} policy instead (${costs[best]:.4f}, {len(costs)} compared"
        + (f"; {agent}: {setting}" if setting else "")
        + ")"
        if best != "recorded"
        else f"no policy {agent} runs costs less"
    )
    shown = best if best != "recorded" else cheapest
    return Advice(
        cost=f"the recorded context policy: ${costs['recorded']:.4f} of input",
        tokens=results["recorded"].mean,
        action=action + other,
        command=f"ctx-lab policies {session.source} --policy recorded --policy {shown}",
        saving_tokens=None,
        saving_usd=round(costs["recorded"] - costs[best], 6) if best != "recorded" else None,
        basis="the policy lab, open-loop, priced with the cache model",
    )


def _breaks(session: SessionAnatomy) -> Advice | None:
    broken = [
        (call, diff.cache_break)
        for call, diff in zip(session.calls, session.diffs, strict=True)
        if diff is not None and diff.cache_break and "compacted" not in diff.cache_break
    ]
    if not broken:
        return None
    rewritten = sum(call.cache_write or 0 for call, _ in broken)
    model = broken[0][0].model
    prices = cache_prices(model, get_registry().get(model).prices)
    saving = None
    if prices.write is not None and prices.read is not None:
        saving = round(rewritten * (prices.write - prices.read) / 1_000_000, 6)
    reasons: dict[str, int] = {}
    for _, reason in broken:
        reasons[reason] = reasons.get(reason, 0) + 1
    reason, times = max(reasons.items(), key=lambda kv: kv[1])
    return Advice(
        cost=f"{len(broken)} prompt-cache break(s), {rewritten:,} tokens written again",
        tokens=rewritten,
        action=f"keep the cached prefix unchanged (most often: {reason}, {times}×)",
        command=f"ctx-lab cache {session.source}",
        saving_tokens=None,
        saving_usd=saving,
        basis="the rewrites priced as cache writes instead of reads",
    )


def session_advice(session: SessionAnatomy) -> list[Advice]:
    """The avoidable costs of a session — the policy lab's cheaper policy, the cache breaks,
    and the largest request's own — the largest saving first."""
    largest = max(session.calls, key=lambda c: c.used, default=None)
    own = request_advice(largest) if largest is not None else []
    return _ranked([_policies(session), _breaks(session), *own[:1]], 0)
