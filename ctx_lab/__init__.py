"""ctx_lab: LLM context-window management for notebooks, the command line and JupyterLab.

The core (this package's engine modules) is pure Python: importing ``ctx_lab`` loads neither
Jupyter, IPython, pandas, matplotlib nor ipywidgets. ``%load_ext ctx_lab`` adds the ``%ctx``
magic.
"""

from __future__ import annotations

from typing import Any

from ._version import __version__
from .errors import CounterUnavailableError, CtxLabError, UnknownCounterError, UsageError
from .models import ModelLimits, ModelRegistry, ResolvedModelLimits, get_registry
from .tokens import TokenCounter, count_message, count_tokens, get_counter, register_counter

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


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext ctx_lab``: register the ``%ctx`` line and ``%%ctx`` cell magic."""
    from .notebook._magics import load_ipython_extension as load

    load(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    """``%unload_ext ctx_lab``: nothing to undo beyond IPython's own bookkeeping."""
