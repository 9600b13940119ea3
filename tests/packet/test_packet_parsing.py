"""Loading .context/: every file of the format, comments, tags, entries, bad input."""

from __future__ import annotations

from pathlib import Path

import pytest
from packet_helpers import decision, make_context
from paths import TESTS

from ctx_lab.errors import ContextNotFound
from ctx_lab.packet import load_context
from ctx_lab.packet._markdown import (
    is_effectively_empty,
    parse_constitution,
    parse_conventions,
    parse_entries,
    parse_tasks,
    strip_comments,
)

FIXTURE = TESTS / "fixtures" / "ctx-parity" / "fixture"


def test_constitution_every_checkbox_with_continuations() -> None:
    text = (
        "# Constitution\n<!--\n- [ ] not a rule\n-->\n## Data\n"
        "- [ ] Never delete ledger rows\n- [x] Every write happens inside a transaction\n"
        "  that also writes the audit log\nProse is not a rule.\n"
    )
    rules = parse_constitution(text)
    assert [r.text for r in rules] == [
        "Never delete ledger rows",
        "Every write happens inside a transaction that also writes the audit log",
    ]
    assert rules[0].section == "Data"


def test_tasks_status_nesting_tags_and_continuations() -> None:
    text = (
        "### Phase 1 `#priority:high`\n"
        "- [x] Scaffold #added:2026-07-25-101530 #completed:2026-08-04\n"
        "- [ ] Render PDFs #priority:high #in-progress #added:2026-11-10-101530\n"
        "  - [x] Pick engine #added:2026-11-10-101530\n"
        "  - [ ] Embed fonts #added:2026-11-12-101530\n"
        "- [ ] Reconcile payouts and post\n  mismatches to finance. #added:2026-11-02-101530\n"
        "- [-] SOAP export (skipped) #added:2026-08-14-101530\n"
        "- [] Legacy empty box\n"
        "## Blocked\n- [ ] Move auth to SSO #blocked\n"
    )
    tasks = parse_tasks(text)
    by_text = {t.text: t for t in tasks}
    assert by_text["Scaffold"].status == "done"
    render = by_text["Render PDFs"]
    assert render.in_progress and render.priority == "high" and render.added is not None
    assert "#" not in render.text and "priority" not in render.text
    assert by_text["Embed fonts"].parent == render.line and by_text["Embed fonts"].depth == 1
    assert by_text["Reconcile payouts and post mismatches to finance."].status == "pending"
    assert by_text["SOAP export (skipped)"].status == "skipped"
    assert by_text["Legacy empty box"].status == "pending"
    assert by_text["Move auth to SSO"].blocked
    assert render.section == "Phase 1"


def test_conventions_top_level_with_nested() -> None:
    text = (
        "<!--\n- New pattern is established\n-->\n## Naming\n"
        "- **Modules are nouns**: `invoices/`\n  - never `handle_invoices/`\n"
        "## Patterns\n- **Money is integer cents**: never floats\n"
    )
    conventions = parse_conventions(text)
    assert [c.title for c in conventions] == [
        "**Modules are nouns**: `invoices/`",
        "**Money is integer cents**: never floats",
    ]
    assert conventions[0].text.endswith("\n  - never `handle_invoices/`")
    assert conventions[1].section == "Patterns"


def test_entries_headers_bodies_and_superseded() -> None:
    text = (
        "# Decisions\n<!-- FORMAT\n## [YYYY-MM-DD-HHMMSS] Title\n-->\n\n"
        + decision("2026-11-20-090000", "Keep keys", "**Status**: Accepted\n\nBody line.")
        + "\n---\n\n"
        + decision("2026-02-11-160000", "Offset pagination", "~~Superseded by [x] Cursor~~")
        + "\n---\n\n"
        + decision("2026-01-01-000000", "Old deploy", "**Status**: Superseded (see infra)")
        + "\n"
        + decision("not-a-date", "Broken stamp", "text")
        + decision("2026-01-15", "Date only")
    )
    entries = parse_entries(text, "decision")
    assert [e.title for e in entries] == [
        "Keep keys",
        "Offset pagination",
        "Old deploy",
        "Broken stamp",
        "Date only",
    ]
    keep = entries[0]
    assert keep.text.startswith("## [2026-11-20-090000] Keep keys") and keep.text.endswith(
        "Body line."
    )
    assert "---" not in keep.text
    assert [e.superseded for e in entries] == [False, True, True, False, False]
    assert entries[3].timestamp is None and entries[4].timestamp is not None


def test_comments_never_close_and_are_not_content() -> None:
    assert strip_comments("a <!-- b\nc --> d\n<!-- e\nf") == "a \n d\n\n"
    assert parse_entries("<!--\n## [YYYY-MM-DD-HHMMSS] Placeholder\n", "decision") == []


def test_effectively_empty() -> None:
    assert is_effectively_empty("# Tasks\n")
    assert is_effectively_empty("# Tasks\n\n---\n<!-- a long comment that says nothing -->\n")
    assert not is_effectively_empty("# Tasks\n- [ ] something real to do\n")


def test_load_fixture(tmp_path: Path) -> None:
    ctx = load_context(FIXTURE)
    assert ctx.read_order[0] == ".context/CONSTITUTION.md"
    assert len(ctx.rules) == 4 and len(ctx.decisions) == 15 and len(ctx.learnings) == 25
    assert sum(e.superseded for e in ctx.decisions) == 2
    # The .context directory itself is accepted too.
    assert load_context(FIXTURE / ".context").read_order == ctx.read_order


def test_missing_directory_and_missing_context(tmp_path: Path) -> None:
    with pytest.raises(ContextNotFound):
        load_context(tmp_path / "nope")
    with pytest.raises(ContextNotFound, match=r"no \.context"):
        load_context(tmp_path)


def test_empty_context_dir(tmp_path: Path) -> None:
    (tmp_path / ".context").mkdir()
    ctx = load_context(tmp_path)
    assert ctx.read_order == () and ctx.rules == () and ctx.decisions == ()


def test_crlf_bom_tabs_and_bad_bytes(tmp_path: Path) -> None:
    root = make_context(tmp_path)
    (root / ".context" / "TASKS.md").write_bytes(
        b"\xef\xbb\xbf# Tasks\r\n- [ ] First task\r\n"
        b"\t- [ ] Tabbed subtask\r\n- [ ] caf\xe9 task\r\n"
    )
    ctx = load_context(root)
    assert [t.text for t in ctx.tasks] == ["First task", "Tabbed subtask", "caf\ufffd task"]
    assert ctx.tasks[1].depth == 1
    assert any("TASKS.md" in w and "line 4" in w for w in ctx.warnings)


def test_headers_without_bodies_and_huge_files(tmp_path: Path) -> None:
    big = "".join(
        decision(f"2026-01-{(i % 28) + 1:02d}-120000", f"Entry {i}", "x " * 200)
        for i in range(8000)
    )
    root = make_context(
        tmp_path,
        decisions="## [2026-01-01-000000] Bare\n## [2026-01-02-000000] Bare2\n",
        learnings=big,
    )
    assert len(big) > 3_000_000
    ctx = load_context(root)
    assert [e.body for e in ctx.decisions] == ["", ""]
    assert len(ctx.learnings) == 8000


def test_ctxrc_and_environment(tmp_path: Path) -> None:
    root = make_context(tmp_path, tasks="- [ ] a\n")
    (root / ".ctxrc").write_text(
        "token_budget: 3000\ntask_budget_pct: 0.5\nconvention_budget_pct: 0.1\n"
    )
    ctx = load_context(root)
    assert ctx.settings.task_budget_pct == 0.5 and ctx.settings.convention_budget_pct == 0.1
    assert ctx.configured_budget({}) == (3000, ".ctxrc")
    assert ctx.configured_budget({"CTX_TOKEN_BUDGET": "1234"}) == (1234, "CTX_TOKEN_BUDGET")
    (root / ".ctxrc").write_text("token_budget: [nonsense\n")
    ctx = load_context(root)
    assert ctx.configured_budget({}) == (8000, "default")
    assert any(".ctxrc" in w for w in ctx.warnings)
