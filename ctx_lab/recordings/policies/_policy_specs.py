"""Context policies as data: each a kind of rule with parameters whose defaults come from the
agent's or provider's documentation (cited per parameter), or say they have none.

``NAME[:key=value,…]`` names a policy and overrides its parameters (:func:`parse_policy`);
users' own policies implement :class:`~ctx_lab.conversation.ContextPolicy` instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from ...choices import PolicyKind
from ...errors import UsageError

__all__ = [
    "CLAUDE_CODE_RESERVES",
    "CLAUDE_CODE_WINDOW",
    "POLICIES",
    "PolicySpec",
    "agent_registry",
    "claude_code_registry",
    "claude_code_reserve",
    "claude_code_window",
    "codex_window",
    "parse_policy",
]

ANTHROPIC_EDITING = "https://platform.claude.com/docs/en/build-with-claude/context-editing"
# "You can define up to 4 cache breakpoints" per request: the system prompt and tools' one, the
# last message's, and one more at a mask's boundary fit (read 2026-12-07)
ANTHROPIC_BREAKPOINTS = (
    "https://platform.claude.com/docs/en/build-with-claude/prompt-caching (up to 4 cache "
    "breakpoints per request)"
)
ANTHROPIC_COMPACTION = "https://platform.claude.com/docs/en/build-with-claude/compaction"
OPENAI_TRUNCATION = (
    "https://platform.openai.com/docs/api-reference/responses/create#responses-create-truncation"
)
# Claude Code's autocompact buffer by version: 45,000 tokens in 2.0.x (/context showing
# "Autocompact buffer: 45k" in 2.0.2x–2.0.42: https://github.com/anthropics/claude-code/issues/10266
# and /issues/11781, read 2026-12-07; a real 2.0.76 session compacted at preTokens 155,979 of
# 200,000), 33,000 from 2.1 (/issues/23409). The first version prefix that matches wins.
CLAUDE_CODE_RESERVES: tuple[tuple[str, int], ...] = (("2.0.", 45_000), ("1.", 45_000), ("", 33_000))


def claude_code_reserve(version: str) -> int:
    """The tokens Claude Code ``version`` keeps free of a 200k window before compacting (2.1's
    where the recording does not say its version)."""
    return next(r for prefix, r in CLAUDE_CODE_RESERVES if version.startswith(prefix))


# Claude Code runs a model in a 200,000-token window whatever the API offers (Opus 4.6's API
# window is 1M): /context in 2.1 shows "claude-opus-4-6 · 103k/200k tokens"
# (https://github.com/anthropics/claude-code/issues/24208 and /issues/23409, read 2026-12-07).
# A [1m] model runs in 1,000,000 — from 2.1.75 the default Opus of some plans — and the file
# writes the model without the suffix (https://github.com/sirmalloc/ccstatusline/issues/233,
# https://github.com/Ruya-AI/cozempic/releases/tag/v1.5.2, read 2026-12-07): a call whose
# input passed 200,000 shows that the session ran in 1M.
CLAUDE_CODE_WINDOW = 200_000
CLAUDE_CODE_1M_WINDOW = 1_000_000


def claude_code_window(peak_input: int = 0) -> int:
    """The window a Claude Code session ran in: 200,000, or 1M where a call's reported input
    passed 200,000 (a [1m] model, which the file does not name)."""
    return CLAUDE_CODE_1M_WINDOW if peak_input > CLAUDE_CODE_WINDOW else CLAUDE_CODE_WINDOW


def agent_registry(transcript: Any, registry: Any = None) -> Any:
    """The registry a recording's calls are sized with: a Claude Code session's models in
    Claude Code's window with its buffer as the reserve (its budget is what it compacts at,
    less the 5 % margin); a Codex rollout's in the window it reports; any other recording's as
    the registry has them."""
    from ...models import AgentRegistry, get_registry

    form = getattr(transcript, "format", None)
    if form == "codex" and transcript.agent_window:  # Codex said the window it sized calls by
        # its window for the model is input only (gpt-5.5: 272,000 of the API's 400,000 less
        # 128,000 output), so nothing more is reserved: the budget is 95 % of it, what Codex says
        window = codex_window(transcript.agent_window)
        version = transcript.agent_version
        return AgentRegistry(get_registry(registry), f"Codex {version}".strip(), window, 0, "gpt")
    if form != "claude-code":
        return get_registry(registry)
    peak = max((c.usage.reported_input for c in transcript.calls if c.usage), default=0)
    return claude_code_registry(registry, transcript.agent_version, peak)


def claude_code_registry(registry: Any = None, version: str = "", peak_input: int = 0) -> Any:
    """``registry`` as Claude Code ``version`` sizes its models (:func:`agent_registry`)."""
    from ...models import AgentRegistry, get_registry

    return AgentRegistry(
        get_registry(registry),
        f"Claude Code {version or '2.1+'}",
        claude_code_window(peak_input),
        claude_code_reserve(version),
        "claude",
    )


CLAUDE_CODE_THRESHOLD = (
    "https://github.com/anthropics/claude-code/issues/12004 (threshold = the input the window "
    "leaves after a 20,000-token output reserve, less a 13,000-token buffer) and /issues/23409 "
    "(/context in 2.1.x: 'Autocompact buffer: 33k tokens (16.5%)' of 200k)"
)
# Codex reports the window it sizes a call by in each token_count (info.model_context_window):
# 95 % of its window for the model (258,400 = 0.95 × 272,000 for gpt-5.5 in a real 0.125.0
# rollout, codemie-ai/codemie-code@8e8d4ce; effective_context_window_percent, openai/codex#9429).
CODEX_EFFECTIVE_SHARE = 0.95


def codex_window(reported: int) -> int:
    """Codex's window for the model, from the effective window its rollout reports."""
    return round(reported / CODEX_EFFECTIVE_SHARE)


CODEX_THRESHOLD = (
    "https://github.com/openai/codex/issues/9429 (effective window = context window − 128k "
    "output, auto-compaction at 0.95 of it)"
)
# "Set the percentage of context capacity (1-100) at which auto-compaction triggers … Values
# above the default threshold have no effect" (read 2026-12-07)
CLAUDE_CODE_PCT = (
    "https://code.claude.com/docs/en/env-vars (CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: the percentage "
    "of context capacity at which auto-compaction triggers; above the default, no effect)"
)
# config.toml's model_auto_compact_token_limit: the token usage at which Codex compacts
CODEX_LIMIT = (
    "https://github.com/openai/codex/blob/main/codex-rs/core/src/config/mod.rs "
    "(model_auto_compact_token_limit), read 2026-12-07"
)
COMPLEXITY_TRAP = "https://arxiv.org/abs/2508.21433 (observation masking, a window of M = 10 turns)"
NO_SOURCE = "no documented default: the session's recorded summary size where it has one"


@dataclass(frozen=True)
class PolicySpec:
    """A named policy: its ``kind`` (the rule it applies), its parameters with defaults, and
    where each default comes from."""

    name: str
    kind: PolicyKind | Literal["custom"]  # custom: a user's ContextPolicy, its own rule
    description: str
    params: Mapping[str, Any] = field(default_factory=dict)
    sources: Mapping[str, str] = field(default_factory=dict)

    def with_params(self, overrides: Mapping[str, str]) -> PolicySpec:
        """This policy with ``overrides`` (text, typed by each default)."""
        params = dict(self.params)
        for key, text in overrides.items():
            if key not in params:
                known = ", ".join(sorted(params)) or "none"
                raise UsageError(f"policy {self.name}: no parameter {key!r} (it has: {known})")
            params[key] = _typed(self.name, key, text, params[key])
        return replace(self, params=params)


# what each integer parameter may be: token amounts within the largest window there is (10M
# tokens), counts of messages or tool uses within what a session holds
MAX_TOKENS = 10_000_000
MAX_ITEMS = 100_000
RANGES: dict[str, tuple[int, int]] = {
    "batch": (1, MAX_ITEMS), "pct": (1, 100), "limit": (1, MAX_TOKENS),
    "reserve": (0, MAX_TOKENS), "summary": (0, MAX_TOKENS), "threshold": (1, MAX_TOKENS),
    "trigger": (1, MAX_TOKENS), "clear_at_least": (0, MAX_TOKENS),
    "output_reserve": (0, MAX_TOKENS), "keep": (0, MAX_ITEMS), "preserve_recent": (0, MAX_ITEMS),
}  # fmt: skip
MAX_NAMES = 100  # tool names one exclude list may hold
_DIGITS = 12  # no parameter needs more digits than this


def _typed(policy: str, key: str, text: str, default: Any) -> Any:
    """``text`` as the type of ``default`` (a tuple of names: ``a|b``), within its range."""
    try:
        if isinstance(default, bool):
            if text.lower() not in ("true", "false", "1", "0", "yes", "no"):
                raise ValueError(text)
            return text.lower() in ("true", "1", "yes")
        if isinstance(default, int) or (default is None and text.isdigit()):
            low, high = RANGES.get(key, (0, MAX_TOKENS))
            if len(text) > _DIGITS or not text.isdigit() or not low <= int(text) <= high:
                raise UsageError(
                    f"policy {policy}: {key}={text[:20]!r} must be an integer in "
                    f"[{low:,}, {high:,}]"
                )
            return int(text)
        if isinstance(default, float):
            value_f = float(text)
            if not 0 < value_f <= 1:
                raise ValueError(text)
            return value_f
        if isinstance(default, tuple):
            names = tuple(t for t in text.split("|") if t)
            if len(names) > MAX_NAMES or any(len(t) > 200 for t in names):
                raise ValueError(text[:40])
            return names
    except UsageError:  # already says what is wrong (a UsageError is a ValueError too)
        raise
    except ValueError:
        raise UsageError(
            f"policy {policy}: {key}={text[:40]!r} is not a valid {type(default).__name__}"
        ) from None
    return text


POLICIES: dict[str, PolicySpec] = {
    spec.name: spec
    for spec in (
        PolicySpec("recorded", "recorded", "what the agent sent, its compactions included"),
        PolicySpec("none", "none", "never trim: the whole history every call"),
        PolicySpec(
            "claude-code",
            "compact",
            "Claude Code's auto-compaction: the whole history summarized once the input passes "
            "the window less its autocompact buffer (33,000 tokens from 2.1, 45,000 in 2.0: by "
            "the recording's version unless reserve= is given), or pct= percent of the window "
            "(CLAUDE_AUTOCOMPACT_PCT_OVERRIDE) where that is lower",
            {"reserve": None, "summary": 0, "pct": None},
            {"reserve": CLAUDE_CODE_THRESHOLD, "summary": NO_SOURCE, "pct": CLAUDE_CODE_PCT},
        ),
        PolicySpec(
            "summary",
            "compact",
            "compact at a share of the window to a summary of S tokens",
            {"threshold": 150_000, "summary": 0},
            {
                "threshold": ANTHROPIC_COMPACTION + " (trigger default 150,000 input tokens)",
                "summary": NO_SOURCE,
            },
        ),
        PolicySpec(
            "clear-tool-uses",
            "clear-tool-uses",
            "Anthropic context editing: past the trigger, the oldest tool results cleared but "
            "the last few tool uses",
            {
                "trigger": 100_000,
                "keep": 3,
                "clear_at_least": 0,
                "exclude_tools": (),
                "clear_inputs": False,
            },
            {
                "trigger": ANTHROPIC_EDITING + " (trigger: 100,000 input tokens)",
                "keep": ANTHROPIC_EDITING + " (keep: 3 tool uses)",
                "clear_at_least": ANTHROPIC_EDITING + " (clear_at_least: none)",
                "exclude_tools": ANTHROPIC_EDITING + " (exclude_tools: none)",
                "clear_inputs": ANTHROPIC_EDITING + " (clear_tool_inputs: false)",
            },
        ),
        PolicySpec(
            "clear-thinking",
            "clear-thinking",
            "Anthropic context editing: thinking of all but the last assistant turns cleared",
            {"keep": 1},
            {"keep": ANTHROPIC_EDITING + " (clear_thinking keep: 1 thinking turn)"},
        ),
        PolicySpec(
            "observation-masking",
            "mask",
            "the last M tool results kept, older ones replaced by a placeholder; the boundary "
            "moves once batch results are due (1: every call), with a cache breakpoint there "
            "where breakpoint=true and the provider takes breakpoints",
            {"keep": 10, "batch": 1, "breakpoint": False},
            {
                "keep": COMPLEXITY_TRAP,
                "batch": COMPLEXITY_TRAP + " (the mask moves every turn)",
                "breakpoint": ANTHROPIC_BREAKPOINTS,
            },
        ),
        PolicySpec(
            "sliding-window",
            "sliding-window",
            "OpenAI truncation auto: the oldest items dropped while the input exceeds the window",
            {},
            {"truncation": OPENAI_TRUNCATION},
        ),
        PolicySpec(
            "codex",
            "compact",
            "Codex's auto-compaction: at 0.95 of the window less a 128k output reserve, or at "
            "limit= tokens (model_auto_compact_token_limit)",
            {"share": 0.95, "output_reserve": 128_000, "summary": 0, "limit": None},
            {
                "share": CODEX_THRESHOLD,
                "output_reserve": CODEX_THRESHOLD,
                "summary": NO_SOURCE,
                "limit": CODEX_LIMIT,
            },
        ),
        PolicySpec(
            "ctx-lab",
            "ctx-lab",
            "ctx_lab's working-context manager: past the model's effective input budget, the "
            "oldest messages summarized but the last few",
            {"preserve_recent": 4},
            {"preserve_recent": "ctx_lab.conversation.ContextManager (its default)"},
        ),
    )
}


def parse_policy(text: str) -> PolicySpec:
    """``NAME`` or ``NAME:key=value,…`` as a :class:`PolicySpec`."""
    name, _, rest = text.strip().partition(":")
    spec = POLICIES.get(name)
    if spec is None:
        raise UsageError(f"unknown policy {name!r}: use one of {', '.join(POLICIES)}")
    overrides = {}
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, sep, value = part.partition("=")
        if not sep or not key:
            raise UsageError(f"policy {name}: {part!r} is not key=value")
        overrides[key.strip().replace("-", "_")] = value.strip()
    return spec.with_params(overrides)
