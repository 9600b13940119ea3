"""The budget is a promise: random .context/ trees (theme folders and steering included) and
budgets, two counters, both relevance rules, with and without a focus."""

from __future__ import annotations

import tempfile
from datetime import UTC, datetime
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from packet_helpers import assert_ledger_visible, make_context

from ctx_lab.packet import assemble_packet, load_context
from ctx_lab.tokens import count_tokens

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)
words = st.text(
    alphabet=st.sampled_from(list("abcdefghij klmnop qrstuvwxyz ÄéüØ日本語 →#:-.,`*")),
    min_size=1,
    max_size=60,
).map(lambda s: " ".join(s.split()) or "x")
stamps = st.dates(min_value=datetime(2025, 1, 1).date(), max_value=datetime(2026, 8, 1).date()).map(
    lambda d: d.strftime("%Y-%m-%d-120000")
)


@st.composite
def context_files(draw: st.DrawFn) -> dict[str, str]:
    rules = draw(st.lists(words, max_size=4))
    tasks = draw(
        st.lists(
            st.tuples(st.sampled_from([" ", "x", "-"]), words, st.booleans(), st.booleans()),
            max_size=12,
        )
    )
    conventions = draw(st.lists(st.tuples(words, st.booleans()), max_size=8))

    def entries() -> str:
        items = draw(st.lists(st.tuples(stamps, words, words, st.booleans()), max_size=10))
        out = []
        for stamp, title, body, superseded in items:
            mark = "~~Superseded by something~~\n\n" if superseded else ""
            out.append(f"## [{stamp}] {title}\n\n{mark}**Context**: {body}\n\n---\n")
        return "# Entries\n\n" + "\n".join(out)

    themes = {
        f"{folder}/{name}.md": entries() if folder != "conventions" else "- themed convention\n"
        for folder, name in draw(
            st.lists(
                st.tuples(st.sampled_from(["decisions", "learnings", "conventions"]), words),
                max_size=3,
            )
        )
    }
    steering = {
        f"steering/s{i}.md": f"---\nname: s{i}\ndescription: {desc}\ninclusion: {inclusion}\n"
        f"priority: {priority}\n---\n{body}\n"
        for i, (desc, inclusion, priority, body) in enumerate(
            draw(
                st.lists(
                    st.tuples(
                        st.sampled_from(["hooks and tests", "security rules", "x"]),
                        st.sampled_from(["always", "auto", "manual"]),
                        st.integers(0, 99),
                        words,
                    ),
                    max_size=3,
                )
            )
        )
    }
    task_lines = []
    for mark, text, nested, in_progress in tasks:
        tag = " #in-progress" if in_progress else ""
        indent = "  " if nested and task_lines else ""
        task_lines.append(f"{indent}- [{mark}] {text}{tag}\n")
    return {
        "constitution": "# Constitution\n" + "".join(f"- [ ] {r}\n" for r in rules),
        "tasks": "# Tasks\n" + "".join(task_lines),
        "conventions": "# Conventions\n"
        + "".join(f"- {c}\n" + ("  - nested detail\n" if n else "") for c, n in conventions),
        "decisions": entries(),
        "learnings": entries(),
        **{f"/{k}": v for k, v in {**themes, **steering}.items()},
    }


def check(
    files: dict[str, str],
    extra: int,
    counter: str,
    relevance: str = "keywords",
    focus: str | None = None,
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        top = {k: v for k, v in files.items() if not k.startswith("/")}
        root = make_context(Path(tmp), **top)
        for name, text in files.items():
            if name.startswith("/"):
                path = root / ".context" / name[1:]
                path.parent.mkdir(exist_ok=True)
                path.write_text(text, encoding="utf-8")
        ctx = load_context(root)
        options = {"relevance": relevance, "focus": focus}
        # The smallest budget that covers tier 1 (the header states the budget, so it moves).
        covered = assemble_packet(ctx, 0, NOW, counter, **options).tokens_used
        while assemble_packet(ctx, covered, NOW, counter, **options).over_budget:
            covered += 1
        budget = covered + extra
        packet = assemble_packet(ctx, budget, NOW, counter, **options)
        markdown = packet.to_markdown()
        assert not packet.over_budget
        assert packet.tokens_used <= budget
        assert packet.tokens_used == count_tokens(markdown, counter)
        assert f"Used: {packet.tokens_used} tokens" in markdown
        assert packet.to_dict()["tokens_used"] == packet.tokens_used
        assert_ledger_visible(packet)


@given(context_files(), st.integers(min_value=0, max_value=2500))
def test_budget_promise_bytes4(files: dict[str, str], extra: int) -> None:
    check(files, extra, "bytes/4")


@given(
    context_files(),
    st.integers(min_value=0, max_value=2500),
    st.sampled_from([None, "hooks", "security rules for tests", "the and"]),
)
def test_budget_promise_bm25_and_focus(
    files: dict[str, str], extra: int, focus: str | None
) -> None:
    check(files, extra, "bytes/4", "bm25", focus)


@settings(max_examples=40)
@given(context_files(), st.integers(min_value=0, max_value=2500))
def test_budget_promise_cl100k(files: dict[str, str], extra: int) -> None:
    check(files, extra, "cl100k")
