"""What each recording's agent can run: its context policies and the setting that runs each,
cited and dated — the one rule the advice, the window view and the policies read.

A policy the recording's agent cannot run (Codex's compaction in a Claude Code session) is said
as "another agent would …", never as advice to the user; an API recording (Messages, Responses,
Chat Completions) can run the API's own context management.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ...wire import wire

__all__ = [
    "AGENTS",
    "GEMINI_CLI_COMPRESSION",
    "AgentConfig",
    "AgentRule",
    "AgentSetting",
    "agent_config",
    "agent_point",
    "agent_rule",
    "is_claude_code_request",
]

# Gemini CLI compresses its history once it passes this share of the model's token limit
# (GEMINI_SETTINGS below; tokenLimit is 1,048,576 for the Gemini 2.5 and 3 models)
GEMINI_CLI_COMPRESSION = 0.5

Setting = Callable[[Mapping[str, object], int], str]

CLAUDE_CODE_SETTINGS = (
    "https://code.claude.com/docs/en/env-vars (CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: the percentage "
    "of context capacity at which auto-compaction triggers; values above the default threshold "
    "have no effect), https://github.com/anthropics/claude-code/issues/31806 and /issues/63186 "
    "(exported in the shell: the settings.json env block does not reach it), read 2026-12-07"
)
CODEX_SETTINGS = (
    "https://github.com/openai/codex/blob/main/codex-rs/core/src/config/mod.rs "
    "(model_auto_compact_token_limit: the tokens at which history is compacted; -c or "
    "~/.codex/config.toml), read 2026-12-07"
)
GEMINI_SETTINGS = (
    "https://github.com/google-gemini/gemini-cli/blob/main/packages/core/src/services/"
    "chatCompressionService.ts (DEFAULT_COMPRESSION_TOKEN_THRESHOLD = 0.5 of the model's token "
    "limit; settings.json model.compressionThreshold), read 2026-12-07"
)
ANTHROPIC_API = "https://platform.claude.com/docs/en/build-with-claude/context-editing"
OPENAI_API = "https://platform.openai.com/docs/api-reference/responses/create#truncation"


def _threshold(params: Mapping[str, object], window: int) -> int:
    for key in ("threshold", "limit"):  # tokens, as given
        value = params.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    pct = params.get("pct")
    if isinstance(pct, int) and not isinstance(pct, bool):
        return pct * window // 100
    share = params.get("share")
    if isinstance(share, float):
        return round(share * window)
    reserve = params.get("reserve")
    return window - reserve if isinstance(reserve, int) else window


def _claude_pct(params: Mapping[str, object], window: int) -> str:
    pct = params.get("pct")
    if not isinstance(pct, int) or isinstance(pct, bool):  # a reserve: the share it leaves, down
        pct = max(1, min(100, 100 * _threshold(params, window) // max(window, 1)))
    return f"export CLAUDE_AUTOCOMPACT_PCT_OVERRIDE={pct}"


def _codex_limit(params: Mapping[str, object], window: int) -> str:
    return f"model_auto_compact_token_limit = {_threshold(params, window)}"


def _gemini_share(params: Mapping[str, object], window: int) -> str:
    share = _threshold(params, window) / max(window, 1)
    return f'{{"model": {{"compressionThreshold": {share:.2f}}}}}'


def _clear_tool_uses(params: Mapping[str, object], window: int) -> str:
    edit: dict[str, object] = {
        "type": "clear_tool_uses_20250919",
        "trigger": {"type": "input_tokens", "value": params.get("trigger")},
        "keep": {"type": "tool_uses", "value": params.get("keep")},
    }
    if params.get("clear_at_least"):
        edit["clear_at_least"] = {"type": "input_tokens", "value": params["clear_at_least"]}
    if params.get("exclude_tools"):
        edit["exclude_tools"] = list(params["exclude_tools"])  # type: ignore[call-overload]
    if params.get("clear_inputs"):
        edit["clear_tool_inputs"] = True
    return json.dumps({"context_management": {"edits": [edit]}})


def _clear_thinking(params: Mapping[str, object], window: int) -> str:
    edit = {
        "type": "clear_thinking_20251015",
        "keep": {"type": "thinking_turns", "value": params.get("keep")},
    }
    return json.dumps({"context_management": {"edits": [edit]}})


@dataclass(frozen=True)
class AgentSetting:
    """One of an agent's settings: its name and where it goes, and what writes its value from
    a policy's parameters and the window."""

    name: str
    make: Setting


@dataclass(frozen=True)
class AgentRule:
    """An agent's name, the policies of the lab it can run with the setting that runs each,
    and the source."""

    name: str
    settings: Mapping[str, AgentSetting] = field(default_factory=dict)
    default: str = ""  # the policy the agent runs when nothing is set
    source: str = ""
    # the highest share of the window a compaction setting can reach (Claude Code: its default
    # point; "values above the default threshold have no effect"); None: no such cap
    cap: Callable[[int], int] | None = None

    def runs(self, policy: str) -> bool:
        """Whether the agent can run ``policy`` (what it recorded, its default, or a setting)."""
        return policy in ("recorded", self.default) or policy in self.settings

    def setting(self, policy: str, params: Mapping[str, object], window: int) -> str:
        """What runs ``policy`` in this agent ("" for its default)."""
        chosen = self.settings.get(policy)
        return chosen.make(params, window) if chosen is not None else ""


_API_ANTHROPIC = {
    "clear-tool-uses": AgentSetting("context_management in the Messages request", _clear_tool_uses),
    "clear-thinking": AgentSetting("context_management in the Messages request", _clear_thinking),
}
_API_OPENAI = {
    "sliding-window": AgentSetting("truncation in the Responses request", lambda p, w: '"auto"')
}
_CLAUDE_PCT = AgentSetting("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE, exported before claude starts",
                           _claude_pct)  # fmt: skip
_CODEX_LIMIT = AgentSetting("~/.codex/config.toml (or codex -c)", _codex_limit)


def _claude_cap(window: int) -> int:
    """Claude Code's default compaction point (2.1's): no percentage compacts later."""
    from ._policy_specs import claude_code_reserve

    return window - claude_code_reserve("")


AGENTS: dict[str, AgentRule] = {
    "claude-code": AgentRule(
        "Claude Code",
        {"claude-code": _CLAUDE_PCT, "summary": _CLAUDE_PCT},
        "claude-code",
        CLAUDE_CODE_SETTINGS,
        cap=_claude_cap,
    ),
    "codex": AgentRule(
        "Codex", {"codex": _CODEX_LIMIT, "summary": _CODEX_LIMIT}, "codex", CODEX_SETTINGS
    ),
    "gemini-cli": AgentRule(
        "Gemini CLI",
        {"summary": AgentSetting(".gemini/settings.json", _gemini_share)},
        "",
        GEMINI_SETTINGS,
    ),
    "anthropic-messages": AgentRule("the Messages API", _API_ANTHROPIC, "", ANTHROPIC_API),
    "openai-responses": AgentRule("the Responses API", _API_OPENAI, "", OPENAI_API),
}


@dataclass(frozen=True, kw_only=True)
class AgentConfig:
    """One setting of the recording's agent, as it is pasted where the agent reads it."""

    agent: str = field(metadata=wire("the agent (or API) that reads it"))
    setting: str = field(metadata=wire("the setting, and where it goes"))
    value: str = field(metadata=wire("the text to paste"))
    source: str = field(metadata=wire("the documentation or source it comes from, dated"))


def agent_config(
    policy: str, params: Mapping[str, object], agent: str, window: int | None, label: str = ""
) -> tuple[AgentConfig | None, str]:
    """The configuration that runs ``policy`` at ``params`` in the agent of recordings of
    format ``agent``, or None and why there is none (``label``: the setting's name, equal to
    ``policy`` at its defaults). Printed for the user to apply; nothing here writes a file."""
    rule = agent_rule(agent)
    name = rule.name if rule is not None else (agent or "this recording's agent")
    if policy == "recorded" or (rule is not None and policy == rule.default and label == policy):
        return None, f"{name}'s own settings, as recorded: nothing to change"
    chosen = rule.settings.get(policy) if rule is not None else None
    if rule is None or chosen is None:
        return None, f"no setting in {name} runs {policy}"
    size = window or 0
    if rule.cap is not None and size and _threshold(params, size) >= rule.cap(size):
        return None, f"{name} compacts at {rule.cap(size):,} by default and cannot compact later"
    value = chosen.make(params, size)
    return AgentConfig(agent=rule.name, setting=chosen.name, value=value, source=rule.source), ""


def agent_point(transcript: object, window: int) -> int | None:
    """The input at which the recording's agent compacts, in the ``window`` it ran the model
    in, by the rule of its version (None: an agent without one known here). The window view,
    the agents' policies and check read this one rule."""
    from ._policy_specs import CODEX_EFFECTIVE_SHARE, claude_code_reserve

    form = getattr(transcript, "format", "")
    if form == "claude-code":
        return window - claude_code_reserve(getattr(transcript, "agent_version", ""))
    if form == "codex" and getattr(transcript, "agent_window", None):
        return round(CODEX_EFFECTIVE_SHARE * window)
    if form == "gemini-cli":
        return round(GEMINI_CLI_COMPRESSION * window)
    return None


# What tells a captured Anthropic request from Claude Code apart from any other client of the
# Messages API (a proxy stores no headers, so the body must say it): Claude Code's system prompt
# opens with its identity line — "You are Claude Code, Anthropic's official CLI for Claude."
# (2.0.31's cli.js, CuiYingyun/RE_ClaudeCode extracted_analysis.md; also "…, running within
# the Claude Agent SDK.") — and from 2.1 a billing block before it, "x-anthropic-billing-header:
# cc_version=2.1.62.023; cc_entrypoint=cli" (LouisShark/chatgpt_system_prompt
# prompts/official-product/claude/claudecode/ClaudeCodeSystem-2-1-62.md), both read 2026-12-07
CLAUDE_CODE_SIGNATURES = ("You are Claude Code, Anthropic's official CLI", "cc_entrypoint=")


def is_claude_code_request(system_text: str) -> bool:
    """Whether a Messages request's system prompt is Claude Code's (:data:`CLAUDE_CODE_SIGNATURES`):
    only then does the window view frame it with Claude Code's autocompact buffer."""
    head = system_text[:4_000]  # the identity line and the billing block come first
    return any(signature in head for signature in CLAUDE_CODE_SIGNATURES)


def agent_rule(format: str) -> AgentRule | None:
    """The rule of the agent that writes recordings of ``format`` (None: not known here)."""
    return AGENTS.get(format)
