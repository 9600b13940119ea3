"""Deprecated: the token report lives in :mod:`ctx_lab.tokens` now."""

from ._deprecated import module_getattr

__getattr__ = module_getattr(
    __name__,
    {
        name: f"ctx_lab.tokens:{name}"
        for name in ("FileCount", "TextInput", "TokenReport", "count_texts", "read_text_file")
    },
)
