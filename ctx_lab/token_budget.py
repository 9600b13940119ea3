"""Where a token budget comes from, decided one way for every engine (packet and builder).

In order: the explicit argument; the model's effective input budget; ``CTX_TOKEN_BUDGET`` in
the environment; ``token_budget`` in the project's ``.ctxrc`` (YAML), ``ctx-lab.toml``, or
``[tool.ctx-lab]`` of ``pyproject.toml``; the engine's default. :func:`resolve_token_budget`
returns the budget with the name of its source.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import FileTooLarge, UsageError
from .files import decode_text, read_bytes
from .validate import parse_whole_number, whole_number

if TYPE_CHECKING:
    from .models import ModelRegistry

__all__ = [
    "BUDGET_ENV",
    "CONFIG_FILES",
    "CTXRC",
    "config_budget",
    "read_ctxrc",
    "resolve_token_budget",
]

BUDGET_ENV = "CTX_TOKEN_BUDGET"
CTXRC = ".ctxrc"
_TOML_FILES = (("ctx-lab.toml", ()), ("pyproject.toml", ("tool", "ctx-lab")))
CONFIG_FILES = (CTXRC, *(name for name, _ in _TOML_FILES))


CONFIG_MAX_BYTES = 64 * 1024


def _yaml_without_aliases(text: str) -> Any:
    """YAML as plain ``key: value`` settings: anchors and aliases are refused, so a few hundred
    bytes can never expand into gigabytes."""
    import yaml

    class NoAliases(yaml.SafeLoader):
        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.events.AliasEvent):
                mark = self.peek_event().start_mark
                raise yaml.composer.ComposerError(
                    None, None, "aliases are not allowed in settings", mark
                )
            return super().compose_node(parent, index)

    return yaml.load(text, Loader=NoAliases)


def read_ctxrc(project: Path, warnings: list[str]) -> dict[str, Any]:
    """The key: value pairs of ``project/.ctxrc`` (empty, with a warning, when unusable:
    not YAML, YAML aliases, or over 64 KiB)."""
    rc = project / CTXRC
    if not rc.is_file():
        return {}
    import yaml

    try:
        text = decode_text(read_bytes(rc, limit=CONFIG_MAX_BYTES), str(rc), warnings)
        data: Any = _yaml_without_aliases(text) or {}
    except FileTooLarge:
        warnings.append(f"{rc}: ignored, larger than {CONFIG_MAX_BYTES // 1024} KiB")
        return {}
    except (yaml.YAMLError, RecursionError) as exc:
        warnings.append(f"{rc}: ignored, not valid YAML settings ({_first_line(exc)})")
        return {}
    if not isinstance(data, dict):
        warnings.append(f"{rc}: ignored, expected key: value pairs")
        return {}
    return data


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:120]


def _budget_value(value: Any, where: str, warnings: list[str]) -> int | None:
    if value is None:
        return None
    try:
        return whole_number(value, f"{where}: token_budget")
    except UsageError as exc:
        warnings.append(f"{exc}; ignored")
        return None


def config_budget(project: Path, warnings: list[str]) -> tuple[int, str] | None:
    """``token_budget`` from the project's ``.ctxrc``, ``ctx-lab.toml`` or ``pyproject.toml``."""
    found = _budget_value(read_ctxrc(project, warnings).get("token_budget"), CTXRC, warnings)
    if found is not None:
        return found, CTXRC
    for name, keys in _TOML_FILES:
        path = project / name
        if not path.is_file():
            continue
        import tomllib  # only where a project has one of these files

        try:
            text = decode_text(read_bytes(path, limit=CONFIG_MAX_BYTES * 16), str(path), warnings)
            data: Any = tomllib.loads(text)
        except FileTooLarge:
            warnings.append(f"{path}: ignored, larger than {CONFIG_MAX_BYTES * 16 // 1024} KiB")
            continue
        except (tomllib.TOMLDecodeError, RecursionError) as exc:
            warnings.append(f"{path}: ignored, not valid TOML ({_first_line(exc)})")
            continue
        for key in keys:
            data = data.get(key, {}) if isinstance(data, dict) else {}
        value = data.get("token_budget") if isinstance(data, dict) else None
        found = _budget_value(value, name, warnings)
        if found is not None:
            return found, name
    return None


def resolve_token_budget(
    budget: int | None,
    model: str | None,
    *,
    default: int,
    configured: tuple[int, str] | None = None,
    registry: str | ModelRegistry | None = None,
    environ: Mapping[str, str] | None = None,
) -> tuple[int, str]:
    """The budget and where it came from (see the module docstring for the order).

    ``configured`` is the project's configured budget (:func:`config_budget`), looked up by the
    engine that knows where the project is.
    """
    if budget is not None:
        return whole_number(budget, "budget"), "argument"
    if model is not None:
        from .models import get_registry

        resolved = get_registry(registry).get(model)
        return resolved.effective_input_budget(), f"model {model} ({resolved.source})"
    env = os.environ if environ is None else environ
    raw = env.get(BUDGET_ENV)
    if raw is not None and raw.strip():
        return parse_whole_number(raw, BUDGET_ENV), BUDGET_ENV
    if configured is not None:
        return configured
    return whole_number(default, "default budget"), "default"
