"""The ctx_lab version, read by the build backend and by ``ctx-lab --version``."""

__version__ = "0.1.0"
