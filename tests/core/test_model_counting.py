"""Counting what the model counts: o200k offline and verified, each model's own tokenizer by
default when a model is given, a named estimate (marked inexact) where ctx_lab has none."""

from __future__ import annotations

import base64
import json

import pytest
import tiktoken

import ctx_lab.tokens._counters as counters
from ctx_lab.commands import build as build_command
from ctx_lab.commands import packet as packet_command
from ctx_lab.conversation import ContextManager
from ctx_lab.errors import UsageError
from ctx_lab.examples import EXAMPLE_DIR, EXAMPLE_NOW
from ctx_lab.models import describe_model
from ctx_lab.packet import assemble_packet, load_context
from ctx_lab.tokens import TiktokenCounter, count_tokens, get_counter, resolve_counter

CORPUS = [
    "hello world",
    "The quick brown fox jumps over the lazy dog. " * 20,
    "def f(x):\n    return [i ** 2 for i in range(100)]  # squares\n",
    json.dumps({"items": [{"id": i, "name": f"item {i}", "tags": ["a", "b"]} for i in range(30)]}),
    "日本語のトークナイザーと中文、한국어 텍스트도 섞여 있습니다。",
    "emoji 🚀🔥👍 and accents: café, naïve, Zürich — “quotes” 'single'",
    "   leading spaces\n\ttabs\r\nwindows lines\n\n\n",
    "<|endoftext|> is counted as ordinary text",
    "ALLCAPS 1234567890 3.14159 0xDEADBEEF https://example.com/a?b=1&c=2",
]


def test_o200k_offline_from_an_empty_cache(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No tiktoken cache, no network (pytest-socket blocks it): still exact o200k."""
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    fresh = TiktokenCounter("o200k", counters._load_o200k)
    assert fresh.count("hello world") == 2
    assert "quicktok-v1" in counters.DATA_SOURCES["o200k"]
    assert "verified" in counters.DATA_SOURCES["o200k"]
    assert list(tmp_path.iterdir()) == []  # nothing written, nothing downloaded


def test_o200k_counts_equal_tiktoken_on_a_mixed_corpus(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    data, _ = counters._o200k_data()
    ranks = {
        base64.b64decode(token): int(rank)
        for token, rank in (line.split() for line in data.splitlines() if line)
    }
    reference = tiktoken.Encoding(
        name="o200k_reference",
        pat_str=counters._O200K_PATTERN,
        mergeable_ranks=ranks,
        special_tokens={"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
    )
    counter = get_counter("o200k")
    for text in CORPUS:
        assert counter.count(text) == len(reference.encode_ordinary(text)), text[:30]
    assert counter.count_many(CORPUS * 40) == [
        len(tokens) for tokens in reference.encode_ordinary_batch(CORPUS * 40)
    ]
    # o200k and cl100k differ where they should (CJK is cheaper in o200k)
    assert count_tokens(CORPUS[4], "o200k") < count_tokens(CORPUS[4], "cl100k")


def test_resolve_counter() -> None:
    gpt4o = resolve_counter(None, "gpt-4o", "bytes/4")
    assert (gpt4o.name, gpt4o.requested, gpt4o.exact, gpt4o.note) == ("o200k", "model", True, "")
    assert resolve_counter("model", "gpt-4-turbo", "bytes/4").name == "cl100k"
    claude = resolve_counter(None, "claude-sonnet-4-5", "bytes/4")
    # a Claude model counts with the built-in estimate (bytes/4 calibrated on public sessions)
    assert claude.name.startswith("bytes/4*{") and not claude.exact
    assert "claude-sonnet-4-5" in claude.note and "Claude estimate" in claude.note
    assert resolve_counter(None, "claude-2.1", "bytes/4").name == "bytes/4"  # before Claude 3
    assert resolve_counter(None, None, "chars/3").name == "chars/3"
    explicit = resolve_counter("cl100k", "gpt-4o", "bytes/4")
    assert explicit.name == "cl100k" and explicit.requested == "cl100k"
    with pytest.raises(UsageError, match="needs a model"):
        resolve_counter("model", None, "bytes/4")
    with pytest.raises(UsageError, match="depends on a model"):
        get_counter("model")


def test_models_show_their_tokenizer() -> None:
    assert describe_model("gpt-4o").to_dict()["tokenizer"] == "o200k"
    assert describe_model("gpt-4").to_dict()["tokenizer"] == "cl100k"
    assert describe_model("claude-sonnet-4-5").to_dict()["tokenizer"] is None


def test_packet_with_a_model_counts_with_its_tokenizer() -> None:
    packet = packet_command(example=True, model="gpt-4o")
    data = packet.to_dict()
    assert data["counter"] == "o200k" and data["counter_requested"] == "model"
    assert data["exact"] is True
    assert packet.tokens_used == count_tokens(packet.to_markdown(), "o200k")
    claude = packet_command(example=True, model="claude-sonnet-4-5").to_dict()
    assert claude["counter"].startswith("bytes/4*{") and claude["exact"] is False
    assert any("no exact tokenizer for claude-sonnet-4-5" in w for w in claude["warnings"])
    explicit = packet_command(example=True, model="gpt-4o", counter="cl100k").to_dict()
    assert explicit["counter"] == "cl100k" and explicit["counter_requested"] == "cl100k"
    ctx08 = packet_command(example=True, model="gpt-4o", profile="ctx-0.8").to_dict()
    assert ctx08["counter"] == "bytes/4"


@pytest.mark.parametrize("budget", [900, 1500, 2600, 5000])
def test_budget_promise_under_counter_model(budget: int) -> None:
    ctx = load_context(EXAMPLE_DIR)
    packet = assemble_packet(ctx, budget, EXAMPLE_NOW, counter="model", model="gpt-4o")
    assert packet.counter == "o200k" and packet.exact
    assert packet.tokens_used <= budget
    assert packet.tokens_used == count_tokens(packet.to_markdown(), "o200k")


def test_build_page_and_conversation_follow_the_model(tmp_path) -> None:
    (tmp_path / "a.py").write_text("def f():\n    return 1\n")
    result = build_command("Explain f", ["a.py"], model="gpt-4o", root=tmp_path)
    assert result.counter == "o200k" and result.to_dict()["exact"] is True
    assert result.tokens == count_tokens(result.prompt, "o200k")
    plain = build_command("Explain f", ["a.py"], budget=500, root=tmp_path)
    assert plain.counter == "chars/3"
    from ctx_lab.commands import page as page_command

    page = page_command("a.py", root=tmp_path, model="claude-opus-4-1")
    assert page.counter.startswith("bytes/4*{") and page.to_dict()["exact"] is False
    assert page.warnings
    manager = ContextManager("claude-sonnet-4-5", counter="model")
    assert manager.counter.name.startswith("bytes/4*{")
    assert "Claude estimate" in manager.counter_note
    assert ContextManager("gpt-4o").counter.name == "cl100k"  # the design default stays
    assert ContextManager("gpt-4o", counter="model").counter.name == "o200k"
