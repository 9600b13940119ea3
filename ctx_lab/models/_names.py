"""Unknown model names: a mistyped ``--model`` is refused with the names it was close to.

A registry answers every name — an unknown one with the default 8,192 / 4,096 limits — so a
typo (``gpt4o``) would silently size everything against a tiny model. :func:`check_model_name`
is the one check every command runs on a model the caller typed (the command layer calls it for
each parameter declared as a model name); ``--allow-unknown-model`` skips it.
"""

from __future__ import annotations

import difflib
import re

from ..errors import UnknownModelError
from ._registry import ModelRegistry, get_registry, tokenizer_for

__all__ = ["check_model_name", "is_known_model", "similar_models"]

_SUGGESTIONS = 3
_CUTOFF = 0.6


def is_known_model(name: str, registry: ModelRegistry) -> bool:
    """True when ``registry`` resolves ``name`` to something other than its default limits,
    or ctx_lab has the name's own tokenizer (an open model counted exactly)."""
    return registry.get(name).source != "default" or tokenizer_for(name) is not None


def _names_of(registry: ModelRegistry) -> list[str]:
    names = {entry.model for entry in registry.entries()}
    names |= {name.split("/", 1)[1] for name in names if "/" in name}
    return sorted(names)


def similar_models(name: str, registry: ModelRegistry, n: int = _SUGGESTIONS) -> list[str]:
    """Up to ``n`` names of ``registry`` closest to ``name`` (case-insensitive)."""
    names = _names_of(registry)
    by_lower = {candidate.lower(): candidate for candidate in names}
    close = difflib.get_close_matches(name.lower(), list(by_lower), n=n, cutoff=_CUTOFF)
    return [by_lower[c] for c in close]


TYPO_CUTOFF = 0.85  # how close a family member's name must be to be the one meant


def family_typo(name: str, registry: ModelRegistry) -> str | None:
    """The model ``name`` misspells, when only its family's row matched it (the family's
    limits, no price): a name of the registry at least :data:`TYPO_CUTOFF` alike with the same
    version numbers (``claude-sonet-4-5`` → ``claude-sonnet-4-5``). A name whose numbers
    differ is a newer member of the family (``claude-sonnet-4-9``), not a typo: None."""
    found = registry.get(name)
    bare = name.rsplit("/", 1)[-1].lower()
    matched = (found.matched or "").lower()
    if found.source != "prefix" or found.prices is not None or matched in ("", bare):
        return None  # its own row, or a row with a price: not a family's fallback
    digits = re.findall(r"\d+", bare)
    names = [
        n for n in _names_of(registry) if re.findall(r"\d+", n) == digits and n.lower() != bare
    ]
    by_lower = {candidate.lower(): candidate for candidate in names}
    close = difflib.get_close_matches(bare, list(by_lower), n=1, cutoff=TYPO_CUTOFF)
    return by_lower[close[0]] if close else None


def check_model_name(name: str, registry: str | ModelRegistry | None = None) -> None:
    """Raise :class:`UnknownModelError` unless ``registry`` (default: builtin) knows ``name``.

    The message says "did you mean" with the closest known names — those of the registry, then
    of the offline models.dev data — or, when only models.dev knows the name, the flag that uses
    it (``--registry models-dev``).
    """
    chosen = get_registry(registry)
    if is_known_model(name, chosen):
        typo = family_typo(name, chosen)
        if typo is None:
            return
        raise UnknownModelError(name, (typo,), None)
    close = similar_models(name, chosen)
    if chosen.name == "models-dev":
        raise UnknownModelError(name, close, None)
    try:
        wider = get_registry("models-dev")
    except ImportError:  # the models-dev package is a dependency; tolerate its absence here
        raise UnknownModelError(name, close, None) from None
    if is_known_model(name, wider):
        raise UnknownModelError(name, (), "models-dev")
    raise UnknownModelError(name, close or similar_models(name, wider), None)
