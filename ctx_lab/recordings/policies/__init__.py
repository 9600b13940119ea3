"""The policy lab: context policies (compaction, summaries, clearing, masking, windows) replayed
on a recorded session under the cache, with what each costs and loses; the agents' own rules."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..._lazy import exports

if TYPE_CHECKING:
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

# where each public name lives: imported on first use (ctx_lab._lazy), so the anatomy of a
# session that asks only for an agent's rule does not pay for the lab, the front and the plots
_WHERE = {
    "AGENTS": "._agents",
    "GEMINI_CLI_COMPRESSION": "._agents",
    "AgentConfig": "._agents",
    "AgentRule": "._agents",
    "agent_config": "._agents",
    "agent_point": "._agents",
    "agent_rule": "._agents",
    "is_claude_code_request": "._agents",
    "Recommendation": "._front",
    "SessionOutcome": "._front",
    "Setting": "._front",
    "Spread": "._front",
    "decide": "._front",
    "pareto_front": "._front",
    "FRONT_COLUMNS": "._front_plot",
    "front_frame": "._front_plot",
    "plot_front": "._front_plot",
    "ContextPolicy": "._policy_kinds",
    "decision_row": "._policy_lab",
    "run_policies": "._policy_lab",
    "PoliciesReport": "._policy_report",
    "PolicyResult": "._policy_report",
    "plot_policies": "._policy_report",
    "recommendation_text": "._policy_report",
    "peak_input": "._policy_session",
    "POLICIES": "._policy_specs",
    "PolicySpec": "._policy_specs",
    "agent_registry": "._policy_specs",
    "claude_code_registry": "._policy_specs",
    "claude_code_reserve": "._policy_specs",
    "claude_code_window": "._policy_specs",
    "parse_policy": "._policy_specs",
    "expand_policies": "._sweep",
    "expand_policy": "._sweep",
    "setting_label": "._sweep",
}
__getattr__, __dir__ = exports(__name__, _WHERE)

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
