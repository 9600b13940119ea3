"""The policy lab: context policies (compaction, summaries, clearing, masking, windows) replayed
on a recorded session under the cache, with what each costs and loses; the agents' own rules."""

from __future__ import annotations

from ._agents import AGENTS, GEMINI_CLI_COMPRESSION, AgentRule, agent_point, agent_rule
from ._policy_kinds import ContextPolicy
from ._policy_lab import run_policies
from ._policy_report import PoliciesReport, PolicyResult, plot_policies
from ._policy_session import peak_input
from ._policy_specs import (
    POLICIES,
    PolicySpec,
    agent_registry,
    claude_code_registry,
    claude_code_reserve,
    claude_code_window,
    parse_policy,
)

__all__ = [
    "AGENTS",
    "GEMINI_CLI_COMPRESSION",
    "POLICIES",
    "AgentRule",
    "ContextPolicy",
    "PoliciesReport",
    "PolicyResult",
    "PolicySpec",
    "agent_point",
    "agent_registry",
    "agent_rule",
    "claude_code_registry",
    "claude_code_reserve",
    "claude_code_window",
    "parse_policy",
    "peak_input",
    "plot_policies",
    "run_policies",
]
