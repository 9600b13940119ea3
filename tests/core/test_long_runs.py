"""A whitespace run no pre-tokenizer may see (tiktoken panics past about a million characters):
shortened and counted exactly; whatever still escapes native code is a typed error."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctx_lab.errors import NativeCodeError, native_failure
from ctx_lab.tokens import get_counter
from ctx_lab.tokens._long_runs import APPROXIMATE, LONG_RUN, count_bounded

RUNS = {"spaces": " ", "newlines": "\n", "tabs": "\t", "space-newline": " \n", "crlf": "\r\n",
        "nbsp": "\u00a0", "ideographic": "\u3000"}  # fmt: skip
AROUND = ["x", "x.", "hello ", "", "a\n", "x,\n", "1", "  \n", " y", "\n x", "\u4e00"]


def _counter(name: str):  # type: ignore[no-untyped-def]
    counter = get_counter(name)
    try:
        counter.count("x")
    except Exception as exc:  # an open model's extra not installed here
        pytest.skip(f"{name}: {exc}")
    return counter


@pytest.mark.parametrize(
    "name",
    ["o200k", *(pytest.param(n, marks=pytest.mark.slow)
                for n in ("cl100k", "llama3", "deepseek-v4", "mistral-tekken", "qwen3"))],
)  # fmt: skip
def test_a_long_run_counts_exactly_what_the_tokenizer_counts_whole(name: str) -> None:
    """Below the panic the tokenizer can count the text whole: the shortened count equals it,
    whatever surrounds the run."""
    counter = _counter(name)
    direct = counter.encoding.encode_ordinary if name in ("o200k", "cl100k") else None
    whole = (lambda t: len(direct(t))) if direct else counter._counting()
    chosen = random.Random(name)
    before = APPROXIMATE[0]
    for run in RUNS.values():
        for _ in range(3):
            text = (chosen.choice(AROUND) + run * (chosen.randint(70_000, 160_000) // len(run))
                    + chosen.choice(AROUND))  # fmt: skip
            assert len(text) > LONG_RUN
            assert counter.count(text) == whole(text), (name, repr(text[:4]), repr(text[-4:]))
    assert APPROXIMATE[0] == before  # every one of them counted exactly, none in pieces


@settings(max_examples=25, deadline=None)
@given(
    st.text(alphabet=" \t\n\u3000ab.", max_size=40),
    st.sampled_from(list(RUNS.values())),
    st.integers(70_000, 120_000),
    st.text(alphabet=" \t\n\u3000ab.", max_size=40),
)
def test_any_context_around_a_run_counts_exactly(before: str, run: str, n: int, after: str) -> None:
    counter = get_counter("o200k")
    text = before + run * (n // len(run)) + after
    assert counter.count(text) == len(counter.encoding.encode_ordinary(text))


def test_two_megabytes_of_whitespace_are_counted_not_a_panic() -> None:
    counter = get_counter("o200k")
    assert counter.count(" " * 2_000_000) == 2_000_000 // 128
    # two runs, one of them ragged (not periodic: counted in pieces, within a token per cut)
    ragged = "".join(random.Random(1).choices(" \t\n", k=100_000))
    text = "start " + " " * 1_500_000 + " middle " + ragged + " end"
    assert abs(counter.count(text) - (counter.count("start " + " " * 1_500_000 + " middle ")
               + counter.count(ragged + " end"))) <= 4  # fmt: skip
    assert counter.count_many([" " * 1_200_000] * 3) == [1_200_000 // 128] * 3


class FakePanic(BaseException):
    """What pyo3 raises for a Rust panic: a BaseException, not an Exception."""


def test_a_panic_in_native_code_is_a_typed_error_for_that_text() -> None:
    def panics(text: str) -> int:
        raise FakePanic("called `Result::unwrap()` on an `Err` value")

    with pytest.raises(NativeCodeError, match="FakePanic"):
        count_bounded(panics, "anything")
    assert native_failure(FakePanic()) and not native_failure(KeyboardInterrupt())
    assert not native_failure(SystemExit()) and not native_failure(ValueError())

    def interrupted(text: str) -> int:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):  # Python's own stop signals pass through
        count_bounded(interrupted, "anything")
