"""The jupyter_server extension: REST routes under ``/ctx-lab/api/`` (see :mod:`.handlers`)."""

from __future__ import annotations

from typing import Any

__all__ = ["load_jupyter_server_extension"]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    """Register ctx-lab's REST routes (and its reader, paging budgets and settings) with the
    Jupyter server."""
    from ._handlers import setup_handlers

    setup_handlers(serverapp.web_app, serverapp.config)
    serverapp.log.info("ctx_lab server extension loaded: /ctx-lab/api/")


load_jupyter_server_extension = _load_jupyter_server_extension
