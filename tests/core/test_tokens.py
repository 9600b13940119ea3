"""Token counters: the built-ins, the registry, callables and the o200k cache rules."""

from __future__ import annotations

import base64
import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

import ctx_lab.tokens as tokens
from ctx_lab import (
    CounterUnavailableError,
    UnknownCounterError,
    UsageError,
    count_message,
    count_tokens,
    get_counter,
    register_counter,
)


@pytest.mark.parametrize(
    ("text", "expected"), [("", 0), ("abcd", 1), ("abcde", 2), ("→", 1), ("→→", 2)]
)
def test_bytes_over_four(text: str, expected: int) -> None:
    assert count_tokens(text, "bytes/4") == expected


@pytest.mark.parametrize(("text", "expected"), [("", 0), ("abc", 1), ("abcd", 2), ("日本語", 1)])
def test_chars_over_three(text: str, expected: int) -> None:
    assert count_tokens(text, "chars/3") == expected


def test_cl100k_is_exact_and_real() -> None:
    counter = get_counter("cl100k")
    assert counter.exact is True
    assert counter.count("hello world") == 2
    assert counter.count("") == 0


def test_special_token_text_is_ordinary_text() -> None:
    # With special tokens allowed this would be one token; as ordinary text it is several.
    assert count_tokens("<|endoftext|>", "cl100k") > 1


def test_count_many_matches_count() -> None:
    texts = ["alpha beta", "", "日本語のテキスト", "def f(x):\n    return x\n"]
    for name in ("cl100k", "bytes/4", "chars/3"):
        counter = get_counter(name)
        assert counter.count_many(texts) == [counter.count(t) for t in texts]
        assert counter.count_many([]) == []


def test_encoder_loads_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []

    def loader():
        calls.append(1)
        return get_counter("cl100k").encoding  # type: ignore[attr-defined]

    counter = tokens.TiktokenCounter("probe", loader)
    counter.count("a")
    counter.count_many(["b", "c"])
    assert len(calls) == 1


def test_estimates_are_not_exact() -> None:
    assert get_counter("bytes/4").exact is False
    assert get_counter("chars/3").exact is False


def test_unknown_counter_lists_valid_names() -> None:
    with pytest.raises(UnknownCounterError) as info:
        get_counter("nope")
    message = str(info.value)
    assert "nope" in message
    for name in ("cl100k", "o200k", "bytes/4", "chars/3"):
        assert name in message
    assert isinstance(info.value, UsageError)


def test_callable_accepted_wherever_a_counter_is() -> None:
    def words(text: str) -> int:
        return len(text.split())

    assert count_tokens("one two three", words) == 3
    assert get_counter(words).name == "words"
    assert count_message("user", "one two", words) == 2 + 1 + 4


def test_register_counter_by_name() -> None:
    register_counter("test-words", lambda text: len(text.split()))
    try:
        assert count_tokens("a b c d", "test-words") == 4
        assert "test-words" in tokens.counter_names()
        assert get_counter("test-words").exact is False
    finally:
        tokens._registry.pop("test-words", None)


def test_register_rejects_bad_input() -> None:
    with pytest.raises(UsageError):
        register_counter("all", len)
    with pytest.raises(UsageError):
        register_counter("x", 42)  # type: ignore[arg-type]


def test_callable_must_return_non_negative_int() -> None:
    with pytest.raises(UsageError):
        count_tokens("x", lambda t: -1)
    with pytest.raises(UsageError):
        count_tokens("x", lambda t: 1.5)  # type: ignore[arg-type, return-value]


def test_count_message_adds_role_and_overhead() -> None:
    assert count_message("user", "hello world", "cl100k") == 2 + 1 + 4
    assert count_message("assistant", "abcd", "bytes/4") == 1 + 3 + 4


def test_o200k_missing_everywhere_says_how(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    import ctx_lab.tokens._counters as counters

    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(counters, "O200K_PACKAGE", "no_such_vocabulary_package")
    counter = tokens.TiktokenCounter("o200k", tokens._load_o200k)
    with pytest.raises(CounterUnavailableError) as info:
        counter.count("x")
    message = str(info.value)
    assert str(tmp_path) in message and "quicktok-v1" in message
    assert "never downloads" in message


def test_o200k_with_corrupt_data_everywhere_is_refused(tmp_path, monkeypatch) -> None:
    import ctx_lab.tokens._counters as counters

    real = counters._packaged_o200k()
    vocab = counters._packaged_vocab()
    # a changed vocabulary file is not the pinned one: it goes the whole way through the check
    monkeypatch.setattr(counters, "_packaged_vocab", lambda: vocab[:-1] + bytes([vocab[-1] ^ 1]))
    monkeypatch.setattr(counters, "_packaged_o200k", lambda: real.replace(b" 1\n", b" 2\n", 1))
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    tokens.tiktoken_cache_path().write_bytes(b"not a tokenizer\n")
    ok, reason = tokens.counter_status(tokens.TiktokenCounter("o200k", tokens._load_o200k))
    assert not ok and "bundled vocabulary fails its sha256" in reason
    assert "cached copy" in reason and "fails its sha256" in reason


def test_the_pinned_o200k_vocabulary_is_tiktokens_o200k_base() -> None:
    """quicktok-v1's vocabulary, read straight into ranks when its sha256 is the pinned one,
    is tiktoken's published o200k_base: its tiktoken form has that file's sha256, and the ranks
    read either way are the same."""
    import ctx_lab.tokens._counters as counters

    vocab = counters._packaged_vocab()
    assert hashlib.sha256(vocab).hexdigest() == counters.O200K_VOCAB_SHA256
    converted = counters._packaged_o200k()
    assert hashlib.sha256(converted).hexdigest() == counters.O200K_SHA256
    straight, source = counters._o200k_ranks()
    assert "verified" in source and counters.O200K_VOCAB_SHA256[:12] in source
    checked = {
        base64.b64decode(token): int(rank)
        for token, rank in (line.split() for line in converted.splitlines() if line)
    }
    assert straight == checked and len(straight) == 199_998


def test_an_unpinned_vocabulary_goes_through_the_whole_check(monkeypatch) -> None:
    import ctx_lab.tokens._counters as counters

    monkeypatch.setattr(counters, "O200K_VOCAB_SHA256", "0" * 64)
    ranks, source = counters._o200k_ranks()
    assert len(ranks) == 199_998 and counters.O200K_SHA256[:12] in source


def test_o200k_loads_a_verified_cached_file(tmp_path, monkeypatch) -> None:
    # A tiny stand-in vocabulary: every byte plus one merge. Verified by its own hash.
    lines = [f"{base64.b64encode(bytes([i])).decode()} {i}" for i in range(256)]
    lines.append(f"{base64.b64encode(b'ab').decode()} 256")
    data = ("\n".join(lines) + "\n").encode()
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(tokens._counters, "O200K_SHA256", hashlib.sha256(data).hexdigest())
    monkeypatch.setattr(tokens._counters, "O200K_VOCAB_SHA256", "0" * 64)  # not the bundled one
    tokens.tiktoken_cache_path().write_bytes(data)
    counter = tokens.TiktokenCounter("o200k", tokens._load_o200k)
    assert counter.count("ab") == 1
    assert counter.count("abc") == 2


def test_cache_path_follows_tiktoken_rules(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    expected = hashlib.sha1(tokens.O200K_URL.encode()).hexdigest()
    assert tokens.tiktoken_cache_path() == tmp_path / expected


@given(st.text(max_size=200))
def test_bytes4_formula(text: str) -> None:
    n = len(text.encode("utf-8", "surrogatepass"))
    assert count_tokens(text, "bytes/4") == (n + 3) // 4


@given(st.lists(st.text(max_size=80), max_size=8))
def test_cl100k_batch_equals_single(texts: list[str]) -> None:
    counter = get_counter("cl100k")
    assert counter.count_many(texts) == [counter.count(t) for t in texts]


def test_counting_cache_counts_constant_time_counters_directly() -> None:
    """chars/3 is counted from the length: the cache calls it without remembering anything;
    any other counter's counts are remembered (called once per distinct text)."""
    from ctx_lab.tokens import CountingCache

    quick = CountingCache("chars/3")
    assert [quick.count(t) for t in ("", "abcd", "abcd", "é" * 7)] == [0, 2, 2, 3]
    assert len(quick) == 0  # nothing remembered
    assert quick.count_many(["ab", "abcdefg"]) == [1, 3]
    calls: list[str] = []

    def counted(text: str) -> int:
        calls.append(text)
        return len(text)

    slow = CountingCache(counted)
    assert [slow.count(t) for t in ("abc", "abc", "de")] == [3, 3, 2]
    assert calls == ["abc", "de"] and len(slow) == 2
