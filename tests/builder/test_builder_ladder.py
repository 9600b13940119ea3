"""A block's ladder keeps the forms it gave up by how to make them again, not their text: the
skeletons and summaries of 20,000 files held ~290 MB while a 40,000-file build was fitted.
Refilling makes a form again only when its climb fits, and builds the same prompt."""

from __future__ import annotations

import random
from pathlib import Path

from ctx_lab.builder import ContentBlock, build_context
from ctx_lab.builder._compress import apply_policy
from ctx_lab.builder._fit import Remake, State, push_rung, rung_text


def module(i: int, rng: random.Random) -> str:
    lines = [f'"""Module {i}."""', "import os", ""]
    for f in range(rng.randint(3, 12)):
        lines += [
            f"def fn_{i}_{f}(value: int) -> int:",
            f'    """Double {f} {rng.choice(["retries", "json", "client", "pager"])}."""',
            "    total = value * 2",
            "    return total",
            "",
        ]
    return "\n".join(lines)


def test_a_made_form_is_kept_as_its_maker() -> None:
    block = ContentBlock.for_file("pkg/m.py", module(1, random.Random(1)))
    made = apply_policy(block, "structural")
    state = State(block, 0, None, made.policy, made.text, 100, tokens=50)
    state.made_as = "structural"
    push_rung(state)
    policy, kept, tokens = state.ladder[-1]
    assert isinstance(kept, Remake) and (policy, tokens) == (made.policy, 50)
    assert rung_text(state, kept) == made.text
    state.text, state.made_as = block.text, None  # the exact text is the block's own
    push_rung(state)
    assert state.ladder[-1][1] is block.text


def test_refilled_builds_give_the_same_prompt_whatever_the_budget(tmp_path: Path) -> None:
    rng = random.Random(7)
    for i in range(120):
        (tmp_path / f"m{i:03d}.py").write_text(module(i, rng))
    prompts = {}
    for budget in (1500, 4000, 12000):
        first = build_context("Add retries to the json client", [str(tmp_path)], budget=budget)
        again = build_context("Add retries to the json client", [str(tmp_path)], budget=budget)
        assert first.prompt == again.prompt and first.tokens <= budget
        prompts[budget] = first
    refilled = [o for r in prompts.values() for o in r.blocks if "refilled" in o.reason]
    assert refilled, "some block climbed back up its ladder"
