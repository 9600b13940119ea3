"""Hostile inputs are bounded: size limits named with their variable, deep nesting and floods
degrade or fail cleanly, never a hang, a traceback or a RecursionError (hardening rows 10-12,
14). Limits are lowered for the test instead of timing anything."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctx_lab.examples import EXAMPLE_DIR
from ctx_lab.packet import load_context

pytestmark = pytest.mark.hardening  # a theme of the hardening rounds


def test_ctxrc_alias_bomb_is_refused_with_a_short_warning(tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / ".context").mkdir(parents=True)
    (project / ".context" / "TASKS.md").write_text("- [ ] t\n")
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i, name in enumerate("bcdefghi"):
        prev = "abcdefghi"[i]
        lines.append(
            f"{name}: &{name} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]"
        )
    lines.append("token_budget: *i")
    (project / ".ctxrc").write_text("\n".join(lines) + "\n")
    assert len((project / ".ctxrc").read_bytes()) < 600
    ctx = load_context(project)
    assert ctx.settings.token_budget is None
    assert sum(len(w) for w in ctx.warnings) < 2000
    assert any("aliases are not allowed" in w for w in ctx.warnings)


def test_a_huge_ctxrc_value_is_shown_short(tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / ".context").mkdir(parents=True)
    (project / ".ctxrc").write_text("token_budget: " + json.dumps(["x" * 100] * 500) + "\n")
    ctx = load_context(project)
    assert ctx.settings.token_budget is None and max(len(w) for w in ctx.warnings) < 300


def test_a_context_file_with_too_many_entries_keeps_the_newest(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("CTX_LAB_MAX_ENTRIES", "50")
    context = tmp_path / ".context"
    context.mkdir()
    (context / "DECISIONS.md").write_text(
        "".join(
            f"## [2026-01-{1 + i % 28:02d}-120000] Decision {i}\n\nbody {i}\n\n" for i in range(120)
        )
    )
    ctx = load_context(tmp_path)
    assert len(ctx.decisions) == 50 and ctx.decisions[-1].title == "Decision 119"
    assert any("CTX_LAB_MAX_ENTRIES" in w for w in ctx.warnings)


def test_the_example_still_loads_within_the_limits() -> None:
    assert load_context(EXAMPLE_DIR).decisions
