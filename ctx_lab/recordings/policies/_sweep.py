"""Policy sweeps: ``NAME:key=a|b|c`` or ``key=a..b/step`` expands to the grid of its values, one
:class:`~._policy_specs.PolicySpec` per setting, each named by what it changes
(:func:`setting_label`).

``observation-masking:keep=3|5|10,batch=1|20`` is six settings; ``claude-code:pct=60..90/10``
four. A list or a range sweeps a number or a yes/no; a parameter that holds tool names keeps
``|`` for its names (``exclude_tools=Read|Grep`` is one setting). Every expansion is bounded
(:data:`MAX_SETTINGS`), parsed without a regular expression, and a usage error names the part
that is wrong before any session is read.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from ...errors import UsageError
from ._policy_specs import POLICIES, PolicySpec, parse_policy

__all__ = ["BASELINE", "MAX_SETTINGS", "expand_policies", "expand_policy", "setting_label"]

MAX_SETTINGS = 1_000  # settings one run may expand to (each is a replay of every session)
MAX_VALUES = 200  # values one parameter may sweep
BASELINE = "recorded"  # what every setting's cost is a ratio to


def expand_policy(text: str) -> tuple[PolicySpec, ...]:
    """``text`` (``NAME`` or ``NAME:key=value,…`` with ``|`` lists and ``a..b/step`` ranges)
    as the grid of its settings, in the order the values are given."""
    name, _, rest = text.strip().partition(":")
    spec = POLICIES.get(name)
    if spec is None:
        parse_policy(name)  # the usage error that names the known policies
        raise AssertionError  # pragma: no cover - parse_policy raised
    keys: list[str] = []
    choices: list[list[str]] = []
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, sep, value = part.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key:
            raise UsageError(f"policy {name}: {part[:60]!r} is not key=value")
        if key in keys:
            raise UsageError(f"policy {name}: {key} is given twice")
        keys.append(key)
        choices.append(_values(name, key, value.strip(), spec.params.get(key)))
    size = 1
    for values in choices:
        size *= len(values)
    if size > MAX_SETTINGS:
        raise UsageError(f"policy {name}: {size:,} settings (at most {MAX_SETTINGS:,} a run)")
    return tuple(
        spec.with_params(dict(zip(keys, combination, strict=True)))
        for combination in itertools.product(*choices)
    )


def expand_policies(texts: Sequence[str], baseline: bool = False) -> tuple[PolicySpec, ...]:
    """Every ``--policy`` expanded, in order, a setting given twice once; with ``baseline``,
    the recording itself first when no text names it (every setting's cost is a ratio to it)."""
    found: dict[str, PolicySpec] = {}
    for text in texts:
        for spec in expand_policy(text):
            found.setdefault(setting_label(spec), spec)
            if len(found) > MAX_SETTINGS:
                raise UsageError(f"more than {MAX_SETTINGS:,} settings in one run")
    specs = tuple(found.values())
    if baseline and specs and not any(s.name == BASELINE for s in specs):
        specs = (POLICIES[BASELINE], *specs)
    return specs


def setting_label(spec: PolicySpec) -> str:
    """``NAME`` for a policy at its defaults, else ``NAME:key=value,…`` with the parameters
    that differ from them (what a row, a legend and a recommendation call the setting)."""
    base = POLICIES.get(spec.name)
    defaults = base.params if base is not None else {}
    changed = [
        f"{key}={_text(value)}"
        for key, value in spec.params.items()
        if key not in defaults or defaults[key] != value
    ]
    return spec.name + (":" + ",".join(changed) if changed else "")


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple | list):
        return "|".join(map(str, value))
    return str(value)


def _values(policy: str, key: str, text: str, default: Any) -> list[str]:
    """The values ``text`` sweeps (as text: each is typed by :meth:`PolicySpec.with_params`)."""
    if isinstance(default, tuple):  # tool names: "|" separates the names of one setting
        return [text]
    if ".." in text:
        return _range(policy, key, text, default)
    values = [v.strip() for v in text.split("|")]
    if any(not v for v in values):
        raise UsageError(f"policy {policy}: {key}={text[:40]!r} has an empty value")
    if len(values) > MAX_VALUES:
        raise UsageError(
            f"policy {policy}: {key} sweeps {len(values):,} values (at most {MAX_VALUES})"
        )
    return list(dict.fromkeys(values))


def _range(policy: str, key: str, text: str, default: Any) -> list[str]:
    """``a..b/step`` (``a..b``: step 1) as its values, both ends included."""
    span, _, step_text = text.partition("/")
    low_text, _, high_text = span.partition("..")
    whole = default is None or (isinstance(default, int) and not isinstance(default, bool))
    try:
        low, high = float(low_text), float(high_text)
        step = float(step_text) if step_text else 1.0
    except ValueError:
        raise UsageError(f"policy {policy}: {key}={text[:40]!r} is not a range a..b/step") from None
    if not (step > 0 and low <= high):
        raise UsageError(f"policy {policy}: {key}={text[:40]!r} needs a ≤ b and a step above 0")
    span_steps = (high - low) / step  # inf or nan for a range no sweep can hold
    if not span_steps < MAX_VALUES:
        raise UsageError(
            f"policy {policy}: {key}={text[:40]!r} sweeps more than {MAX_VALUES} values"
        )
    count = int(span_steps + 1e-9) + 1
    if count > MAX_VALUES:
        raise UsageError(f"policy {policy}: {key} sweeps {count:,} values (at most {MAX_VALUES})")
    values = (low + i * step for i in range(count))
    if whole:
        return list(dict.fromkeys(str(round(v)) for v in values))
    return list(dict.fromkeys(f"{round(v, 10):g}" for v in values))
