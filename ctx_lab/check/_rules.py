"""The rules ``ctx-lab check`` applies, each with a stable code and its thresholds, and the
rules file that sets them (TOML)::

    [rules.fill]            # CTX101
    percent = 85
    [rules.tool-result]     # CTX103
    tokens = 10000
    [rules.cache-hit-rate]  # CTX102
    enabled = false

A rule the file does not name keeps its default; an unknown rule or threshold, a value of the
wrong type or out of range, or a file that is not TOML is an error naming it (the CLI exits 2).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from ..errors import CtxLabError, UsageError
from ..files import read_bytes

__all__ = ["DEFAULT_RULES", "RULES", "Rule", "RuleSet", "load_rules"]

MAX_RULES_BYTES = 64 * 1024


@dataclass(frozen=True)
class Rule:
    """One rule: its code, its name in a rules file, what it finds, and its thresholds with
    their defaults and the range each may take."""

    code: str
    name: str
    summary: str
    thresholds: Mapping[str, float] = field(default_factory=dict)
    limits: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    enabled: bool = True

    def value(self, key: str) -> float:
        """A threshold's value."""
        return self.thresholds[key]


def _rule(code: str, name: str, summary: str, **thresholds: tuple[float, float, float]) -> Rule:
    """A rule whose thresholds are ``key=(default, lowest, highest)``."""
    return Rule(
        code,
        name,
        summary,
        MappingProxyType({k: v[0] for k, v in thresholds.items()}),
        MappingProxyType({k: (v[1], v[2]) for k, v in thresholds.items()}),
    )


RULES: tuple[Rule, ...] = (
    _rule("CTX101", "fill", "input above `percent` % of the window without a compaction",
          percent=(90, 1, 100)),
    _rule("CTX102", "cache-hit-rate",
          "share of input read from the prompt cache below `rate` after call `after`",
          rate=(0.5, 0, 1), after=(5, 0, 1_000_000)),
    _rule("CTX103", "tool-result", "a single tool result over `tokens` tokens",
          tokens=(25_000, 1, 10_000_000)),
    _rule("CTX104", "tool-definitions", "tool definitions above `percent` % of a call's input",
          percent=(50, 1, 100)),
    _rule("CTX105", "memory-dropped",
          "a memory file (CLAUDE.md, AGENTS.md, a .context/ packet) sent earlier and then no more"),
    _rule("CTX106", "over-budget", "a call's input over the model's effective input budget"),
    _rule("CTX107", "cache-miss",
          "more than `tokens` tokens of the previous call's input not read from the cache",
          tokens=(50_000, 1, 10_000_000)),
)  # fmt: skip
DEFAULT_RULES = {r.name: r for r in RULES}


@dataclass(frozen=True)
class RuleSet:
    """The rules in force and where they came from (``defaults`` or the rules file)."""

    rules: tuple[Rule, ...] = RULES
    source: str = "defaults"

    def enabled(self) -> tuple[Rule, ...]:
        """The rules that run."""
        return tuple(r for r in self.rules if r.enabled)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "defaults") -> RuleSet:
        """The inverse of :meth:`to_dict`."""
        rules = []
        for rule in RULES:
            given = data.get(rule.name, {})
            thresholds = {k: float(given.get(k, v)) for k, v in rule.thresholds.items()}
            rules.append(replace(rule, thresholds=MappingProxyType(thresholds),
                                 enabled=bool(given.get("enabled", rule.enabled))))  # fmt: skip
        return cls(tuple(rules), source)

    def to_dict(self) -> dict[str, Any]:
        """Each rule's code, name, whether it runs and its thresholds."""
        return {
            r.name: {"code": r.code, "enabled": r.enabled, **dict(r.thresholds)} for r in self.rules
        }


def load_rules(path: str | os.PathLike[str] | None) -> RuleSet:
    """The default rules, with ``path``'s settings (see the module docstring) when given."""
    if path is None:
        return RuleSet()
    import tomllib

    try:  # a rules file that cannot be read is the caller's to fix: a usage error (exit 2)
        data = tomllib.loads(read_bytes(path, limit=MAX_RULES_BYTES).decode("utf-8"))
    except CtxLabError as exc:
        raise UsageError(f"rules file {exc}") from None
    except UnicodeDecodeError:
        raise UsageError(f"rules file {os.fspath(path)}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"rules file {os.fspath(path)}: not TOML: {exc}") from None
    except RecursionError:  # arrays or tables nested past what the parser can take
        raise UsageError(f"rules file {os.fspath(path)}: nested too deeply") from None
    except ValueError as exc:  # a number of thousands of digits (int() refuses it)
        raise UsageError(f"rules file {os.fspath(path)}: {str(exc)[:120]}") from None
    unknown = set(data) - {"rules"}
    if unknown:
        raise UsageError(f"rules file {os.fspath(path)}: unknown table {sorted(unknown)[0]!r}")
    settings = data.get("rules", {})
    if not isinstance(settings, dict):
        raise UsageError(f"rules file {os.fspath(path)}: [rules] must be a table")
    rules = {r.name: r for r in RULES}
    for name, values in settings.items():
        rules[name] = _set(os.fspath(path), rules.get(name), name, values)
    return RuleSet(tuple(rules[r.name] for r in RULES), os.fspath(path))


def _set(path: str, rule: Rule | None, name: str, values: Any) -> Rule:
    """``rule`` with the file's ``values``, each checked."""
    if rule is None:
        raise UsageError(
            f"rules file {path}: unknown rule {name!r}; rules: {', '.join(DEFAULT_RULES)}"
        )
    if not isinstance(values, dict):
        raise UsageError(f"rules file {path}: [rules.{name}] must be a table")
    thresholds = dict(rule.thresholds)
    enabled = rule.enabled
    for key, value in values.items():
        if key == "enabled":
            if not isinstance(value, bool):
                raise UsageError(f"rules file {path}: rules.{name}.enabled must be true or false")
            enabled = value
            continue
        if key not in thresholds:
            known = ", ".join(["enabled", *thresholds])
            raise UsageError(f"rules file {path}: rules.{name} has no {key!r} (it has {known})")
        low, high = rule.limits[key]
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not low <= value <= high
        ):
            raise UsageError(
                f"rules file {path}: rules.{name}.{key} must be a number in [{low:g}, {high:g}]"
            )
        thresholds[key] = float(value)
    return replace(rule, thresholds=MappingProxyType(thresholds), enabled=enabled)
