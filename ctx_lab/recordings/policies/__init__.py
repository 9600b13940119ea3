"""The policy lab: context policies (compaction, summaries, clearing, masking, windows) replayed
on a recorded session under the cache, with what each costs and loses; the agents' own rules."""

from __future__ import annotations

from ._agents import (
    AGENTS,
    GEMINI_CLI_COMPRESSION,
    AgentConfig,
    AgentRule,
    agent_config,
    agent_point,
    agent_rule,
    is_claude_code_request,
)
from ._front import Recommendation, SessionOutcome, Setting, Spread, decide, pareto_front
from ._front_plot import FRONT_COLUMNS, front_frame, plot_front
from ._policy_kinds import ContextPolicy
from ._policy_lab import decision_row, run_policies
from ._policy_report import PoliciesReport, PolicyResult, plot_policies, recommendation_text
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
from ._sweep import expand_policies, expand_policy, setting_label

__all__ = [
    "AGENTS",
    "FRONT_COLUMNS",
    "GEMINI_CLI_COMPRESSION",
    "POLICIES",
    "AgentConfig",
    "AgentRule",
    "ContextPolicy",
    "PoliciesReport",
    "PolicyResult",
    "PolicySpec",
    "Recommendation",
    "SessionOutcome",
    "Setting",
    "Spread",
    "agent_config",
    "agent_point",
    "agent_registry",
    "agent_rule",
    "claude_code_registry",
    "claude_code_reserve",
    "claude_code_window",
    "decide",
    "decision_row",
    "expand_policies",
    "expand_policy",
    "front_frame",
    "is_claude_code_request",
    "pareto_front",
    "parse_policy",
    "peak_input",
    "plot_front",
    "plot_policies",
    "recommendation_text",
    "run_policies",
    "setting_label",
]
