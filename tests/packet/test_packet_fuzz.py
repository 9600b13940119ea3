"""Fuzzing that stays in the suite (bounded "ci" profile; HYPOTHESIS_PROFILE=long for the long
run): .context/ parsers and assembly give a packet within budget or a typed CtxLabError — never
another exception, never a hang."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctx_lab.packet import assemble_packet, load_context
from ctx_lab.packet._markdown import (
    parse_constitution,
    parse_conventions,
    parse_entries,
    parse_tasks,
)

PIECES = [
    *"#-*[]()<>!`~:|\n\t ",
    "## ",
    "- [ ] ",
    "- [x] ",
    "<!-- ",
    " -->",
    "**",
    "#added:",
    "#priority:",
    "2026-06-10-120000",
    "Status",
    "Decision",
    "é",
    "日",
    "\u200b",
    "\r\n",
]
MARKDOWN = st.lists(st.sampled_from(PIECES), max_size=200).map("".join)

pytestmark = pytest.mark.hardening  # a theme of the hardening rounds


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(MARKDOWN)
def test_context_parsers_never_fail(text: str) -> None:
    for parse in (parse_tasks, parse_conventions, parse_constitution):
        parse(text)
    parse_entries(text, "decision")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(
        st.sampled_from(
            ["TASKS.md", "DECISIONS.md", "LEARNINGS.md", "CONVENTIONS.md", "CONSTITUTION.md"]
        ),
        MARKDOWN,
    ),
    st.integers(0, 3000),
)
def test_any_context_directory_assembles_within_budget(files: dict[str, str], budget: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        context = Path(tmp) / ".context"
        context.mkdir()
        for name, text in files.items():
            (context / name).write_text(text, encoding="utf-8", errors="surrogatepass")
        packet = assemble_packet(load_context(tmp), budget)
        assert packet.over_budget or packet.tokens_used <= budget
