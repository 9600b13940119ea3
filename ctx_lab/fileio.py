"""Deprecated: use :mod:`ctx_lab.files` (``write_atomic`` lives there now)."""

from ._deprecated import module_getattr

__getattr__ = module_getattr(__name__, {"write_atomic": "ctx_lab.files:write_atomic"})
