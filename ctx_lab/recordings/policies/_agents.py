"""What each recording's agent can run: its context policies and the setting that runs each,
cited and dated — the one rule the advice, the window view and the policies read.

A policy the recording's agent cannot run (Codex's compaction in a Claude Code session) is said
as "another agent would …", never as advice to the user; an API recording (Messages, Responses,
Chat Completions) can run the API's own context management.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

__all__ = ["AGENTS", "GEMINI_CLI_COMPRESSION", "AgentRule", "agent_point", "agent_rule"]

# Gemini CLI compresses its history once it passes this share of the model's token limit
# (GEMINI_SETTINGS below; tokenLimit is 1,048,576 for the Gemini 2.5 and 3 models)
GEMINI_CLI_COMPRESSION = 0.5

Setting = Callable[[Mapping[str, object], int], str]

CLAUDE_CODE_SETTINGS = (
    "https://github.com/anthropics/claude-code/issues/31806 (CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: a "
    "percentage of the window, which can only lower the point) and /issues/63186 (exported in "
    "the shell: the settings.json env block does not reach it), read 2026-12-07"
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
    value = params.get("threshold")
    if isinstance(value, int):
        return value
    share = params.get("share")
    if isinstance(share, float):
        return round(share * window)
    reserve = params.get("reserve")
    return window - reserve if isinstance(reserve, int) else window


def _claude_pct(params: Mapping[str, object], window: int) -> str:
    pct = max(1, min(100, round(100 * _threshold(params, window) / max(window, 1))))
    return f"export CLAUDE_AUTOCOMPACT_PCT_OVERRIDE={pct} before starting claude"


def _codex_limit(params: Mapping[str, object], window: int) -> str:
    return f"codex -c model_auto_compact_token_limit={_threshold(params, window)}"


def _gemini_share(params: Mapping[str, object], window: int) -> str:
    share = _threshold(params, window) / max(window, 1)
    return f'"model": {{"compressionThreshold": {share:.2f}}} in .gemini/settings.json'


@dataclass(frozen=True)
class AgentRule:
    """An agent's name, the policies of the lab it can run with the setting that runs each
    (``settings``: a policy's parameters and the window → the setting), and the source."""

    name: str
    settings: Mapping[str, Setting] = field(default_factory=dict)
    default: str = ""  # the policy the agent runs when nothing is set
    source: str = ""

    def runs(self, policy: str) -> bool:
        """Whether the agent can run ``policy`` (what it recorded, its default, or a setting)."""
        return policy in ("recorded", self.default) or policy in self.settings

    def setting(self, policy: str, params: Mapping[str, object], window: int) -> str:
        """What runs ``policy`` in this agent ("" for its default)."""
        make = self.settings.get(policy)
        return make(params, window) if make is not None else ""


_API_ANTHROPIC = {
    "clear-tool-uses": lambda p, w: f"context_management edits clear_tool_uses ({ANTHROPIC_API})",
    "clear-thinking": lambda p, w: f"context_management edits clear_thinking ({ANTHROPIC_API})",
    "summary": lambda p, w: "context_management edits compact (server-side compaction)",
}
_API_OPENAI = {"sliding-window": lambda p, w: f'truncation: "auto" ({OPENAI_API})'}

AGENTS: dict[str, AgentRule] = {
    "claude-code": AgentRule(
        "Claude Code",
        {"claude-code": _claude_pct, "summary": _claude_pct},
        "claude-code",
        CLAUDE_CODE_SETTINGS,
    ),
    "codex": AgentRule(
        "Codex", {"codex": _codex_limit, "summary": _codex_limit}, "codex", CODEX_SETTINGS
    ),
    "gemini-cli": AgentRule("Gemini CLI", {"summary": _gemini_share}, "", GEMINI_SETTINGS),
    "anthropic-messages": AgentRule("the Messages API", _API_ANTHROPIC, "", ANTHROPIC_API),
    "openai-responses": AgentRule("the Responses API", _API_OPENAI, "", OPENAI_API),
}


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


def agent_rule(format: str) -> AgentRule | None:
    """The rule of the agent that writes recordings of ``format`` (None: not known here)."""
    return AGENTS.get(format)
