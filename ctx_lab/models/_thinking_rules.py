"""Which earlier thinking a request sends again, per model — a provider rule, with its source.

Anthropic's extended-thinking guide, "Thinking block preservation by model"
(https://platform.claude.com/docs/en/build-with-claude/extended-thinking, read 2026-11):
Claude Opus 4.5 and later Opus models, Claude Sonnet 4.6 and later Sonnet models and Claude
Mythos Preview keep every earlier thinking block in context; Opus 4.1 and earlier, Sonnet 4.5
and earlier and every Haiku through Haiku 4.5 keep only the current assistant turn's (the tool
loop since the last user prompt). The guide also says a Claude 4 model returns a *summary* of its
thinking while the request that sends it back carries the full thinking (what the summary was
made from), so a file's thinking text is a lower bound on what it costs.

Models the guide does not list (other providers, an unlisted Claude family) keep only the
current turn's, the behaviour documented for every model before these.
"""

from __future__ import annotations

import re

__all__ = ["THINKING_DOC", "keeps_earlier_thinking"]

THINKING_DOC = "https://platform.claude.com/docs/en/build-with-claude/extended-thinking"

# family → the first version that keeps every earlier thinking block
_KEEPS_ALL_FROM = {"opus": (4, 5), "sonnet": (4, 6)}
_CLAUDE = re.compile(r"claude-(opus|sonnet|haiku|mythos)(?:-(\d{1,2})(?:-(\d{1,2})(?!\d))?)?")


def keeps_earlier_thinking(model: str | None) -> bool:
    """True when ``model`` sends every earlier thinking block again (see the module
    docstring); False where only the current turn's is sent."""
    found = _CLAUDE.search((model or "").lower())
    if found is None:
        return False
    family, major, minor = found.group(1), found.group(2), found.group(3)
    if family == "mythos":
        return True
    start = _KEEPS_ALL_FROM.get(family)
    if start is None or major is None:
        return False
    return (int(major), int(minor or 0)) >= start
