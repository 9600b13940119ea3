"""Deprecated: use :mod:`ctx_lab.files` (the text-reading helpers live there now)."""

from ._deprecated import module_getattr

__getattr__ = module_getattr(
    __name__,
    {
        name: f"ctx_lab.files:{name}"
        for name in ("decode_text", "normalize_newlines", "read_bytes", "read_text")
    },
)
