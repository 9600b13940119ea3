"""ctx_lab: LLM context-window management for notebooks, the command line and JupyterLab.

The core (this package's engine modules) is pure Python: importing ``ctx_lab`` loads neither
Jupyter, IPython, pandas, matplotlib nor ipywidgets. ``%load_ext ctx_lab`` adds the ``%ctx``
magic.
"""

from __future__ import annotations

from ._version import __version__
from .errors import CounterUnavailableError, CtxLabError, UnknownCounterError, UsageError

TYPE_CHECKING = False  # what type checkers see; at run time the names below load on first use
if TYPE_CHECKING:
    from .models import ModelLimits, ModelRegistry, ResolvedModelLimits, get_registry
    from .tokens import TokenCounter, count_message, count_tokens, get_counter, register_counter

# the models and tokens APIs load on first use: ``import ctx_lab`` (every CLI call, every worker
# process) pays only for what it touches
_LAZY = {
    "ModelLimits": "models",
    "ModelRegistry": "models",
    "ResolvedModelLimits": "models",
    "get_registry": "models",
    "TokenCounter": "tokens",
    "count_message": "tokens",
    "count_tokens": "tokens",
    "get_counter": "tokens",
    "register_counter": "tokens",
}

__all__ = [
    "CounterUnavailableError",
    "CtxLabError",
    "ModelLimits",
    "ModelRegistry",
    "ResolvedModelLimits",
    "TokenCounter",
    "UnknownCounterError",
    "UsageError",
    "__version__",
    "count_message",
    "count_tokens",
    "get_counter",
    "get_registry",
    "load_ipython_extension",
    "register_counter",
    "unload_ipython_extension",
]


def _jupyter_labextension_paths() -> list[dict[str, str]]:
    """Where the prebuilt JupyterLab extension lives (shipped in the wheel)."""
    return [{"src": "labextension", "dest": "ctx-lab"}]


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    """The jupyter_server extension (enabled automatically through jupyter-config/)."""
    return [{"module": "ctx_lab.server"}]


def __getattr__(name: str) -> object:
    """The models and tokens APIs, imported when first asked for (PEP 562)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ctx_lab' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def load_ipython_extension(ipython: object) -> None:
    """``%load_ext ctx_lab``: register the ``%ctx`` line and ``%%ctx`` cell magic."""
    from .notebook import load_ipython_extension as load

    load(ipython)


def unload_ipython_extension(ipython: object) -> None:
    """``%unload_ext ctx_lab``: nothing to undo beyond IPython's own bookkeeping."""
