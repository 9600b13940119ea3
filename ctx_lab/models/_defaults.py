"""Every model ctx_lab uses when none is given, in one place, each with where its lifecycle was
read and when (a test fails once one is past its provider's retirement date, or resolves to a row
its data marks deprecated)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_MODELS", "DefaultModel", "default_model"]


@dataclass(frozen=True)
class DefaultModel:
    """A default: what it is for, the model, its provider's lifecycle status and retirement
    date as read (None: none announced), the page it was read from and when."""

    role: str
    model: str
    status: str
    retires: str | None
    source: str
    as_of: str


DEFAULT_MODELS: tuple[DefaultModel, ...] = (
    DefaultModel(
        role="anthropic",  # the anthropic counter, README and notebook examples
        model="claude-sonnet-4-6",
        status="active (legacy): the replacement Anthropic names for the retired Sonnet 4 and 4.5",
        retires=None,
        source="https://platform.claude.com/docs/en/about-claude/model-deprecations",
        as_of="2026-12-07",
    ),
    DefaultModel(
        role="summarizer",  # AnthropicSummarizer's model: the cheapest current Claude
        model="claude-haiku-5-5",
        status="latest, released 2026-10-07",
        retires=None,
        source="https://platform.claude.com/docs/en/models/haiku-5-5/overview",
        as_of="2026-12-07",
    ),
)


def default_model(role: str) -> str:
    """The default model for ``role`` (``anthropic``, ``summarizer``)."""
    return next(d.model for d in DEFAULT_MODELS if d.role == role)
