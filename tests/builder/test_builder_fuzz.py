"""Fuzzing that stays in the suite (bounded "ci" profile; HYPOTHESIS_PROFILE=long for the long
run): builder inputs per language give a result or a typed CtxLabError — never another
exception, never a hang."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctx_lab.builder import ContentBlock, apply_policy

pytestmark = pytest.mark.hardening  # a theme of the hardening rounds


SOURCES = {
    "x.py": [
        "def ",
        "class ",
        "(",
        ")",
        ":",
        "\n    ",
        "return ",
        "@dec\n",
        '"""',
        "lambda",
        "async ",
        "x = 1\n",
        "[",
        "]",
        "{",
        "}",
    ],
    "x.go": [
        "package p\n",
        "func ",
        "(",
        ")",
        "{",
        "}",
        "type T struct ",
        "import (",
        '"fmt"',
        "\n",
        "var x = ",
    ],
    "x.ts": [
        "export ",
        "function ",
        "class ",
        "interface ",
        "(",
        ")",
        "{",
        "}",
        "=>",
        ": string",
        "<T>",
        "\n",
        ";",
    ],
    "x.rs": [
        "fn ",
        "pub ",
        "struct ",
        "impl ",
        "(",
        ")",
        "{",
        "}",
        "->",
        "<'a>",
        "\n",
        ";",
        "mod ",
    ],
    "x.json": ["{", "}", "[", "]", '"k"', ":", ",", "1", "null", "true", '"v"'],
    "x.yaml": ["a:", " ", "\n", "- ", "&x ", "*x", "{", "}", "[", "]", "'", '"', "#"],
    "x.toml": ["[t]\n", "a = ", "1", '"s"', "[", "]", "{", "}", "\n", "=", "[[t]]\n"],
    "x.md": ["# ", "## ", "- ", "\n", "```", "TODO ", "must ", "text "],
}


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(SOURCES)), st.data())
def test_builder_inputs_per_language_never_crash(name: str, data) -> None:
    text = "".join(data.draw(st.lists(st.sampled_from(SOURCES[name]), max_size=120)))
    block = ContentBlock.for_file(name, text)
    for policy in ("structural", "summarizable", "reference"):
        result = apply_policy(block, policy, len(text))
        assert isinstance(result.text, str) and result.policy in (
            "structural",
            "summarizable",
            "reference",
        )
