"""The packet on the layouts real projects use: theme folders, steering files, entries filed
inside the template's comment, multi-paragraph tasks, task and header variants, bad dates, and
relevance that discriminates (BM25, focus)."""

from __future__ import annotations

import math
import os
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from packet_helpers import decision, make_context

from ctx_lab.commands import entries as entries_command
from ctx_lab.commands import packet as packet_command
from ctx_lab.errors import UsageError
from ctx_lab.examples import BUSY_DIR
from ctx_lab.packet import Bm25, assemble_packet, load_context
from ctx_lab.packet._markdown import parse_entries, parse_steering, parse_tasks

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)

LEGEND_DECISIONS = (
    "# Decisions\n\n<!-- DECISION FORMATS\n\n## [YYYY-MM-DD] Decision Title\n\n"
    "**Status**: Accepted | Superseded | Deprecated\n\n"
    + decision("2026-06-01-100000", "Sandbox every hook", "**Decision**: hooks run sandboxed.")
    + "\n"
    + decision("2026-05-20", "Journal appends only", "**Decision**: never rewrite.")
    + "-->\n"
)


def write(root: Path, name: str, text: str) -> None:
    path = root / ".context" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def rows(packet, section: str | None = None):  # type: ignore[no-untyped-def]
    return [r for r in packet.ledger_rows if section is None or r.section == section]


# -- entries inside the legend comment ----------------------------------------------------------


def test_comment_wrapped_decisions_are_included_marked_and_warned(tmp_path: Path) -> None:
    root = make_context(tmp_path, decisions=LEGEND_DECISIONS, tasks="- [ ] Harden hooks\n")
    ctx = load_context(root)
    assert [e.title for e in ctx.decisions] == ["Sandbox every hook", "Journal appends only"]
    assert all(e.in_comment for e in ctx.decisions)
    # The placeholder header of the legend is not an entry, and the closing --> is not text.
    assert not any("-->" in e.text for e in ctx.decisions)
    warning = next(w for w in ctx.warnings if "inside an HTML comment" in w)
    assert warning.startswith(".context/DECISIONS.md:9:") and "2 decisions" in warning
    assert "move them below the comment" in warning
    assert ".context/DECISIONS.md" in ctx.read_order

    packet = assemble_packet(ctx, 4000, NOW)
    assert "## [2026-06-01-100000] Sandbox every hook" in packet.to_markdown()
    for row in rows(packet, "decisions"):
        assert "inside an HTML comment" in row.reason
        assert any("inside an HTML comment" in w for w in row.warnings)
        assert row.source == ".context/DECISIONS.md"
    assert any("inside an HTML comment" in w for w in packet.warnings)


def test_comment_entry_ends_where_the_comment_closes() -> None:
    text = (
        "<!--\n## [2026-01-02-030405] Inside\n\nbody line\n--> after the comment\n\n"
        "## [2026-01-03-000000] Outside\n\nplain\n"
    )
    warnings: list[str] = []
    inside, outside = parse_entries(text, "decision", source="D.md", warnings=warnings)
    assert inside.text == "## [2026-01-02-030405] Inside\n\nbody line"
    assert inside.in_comment and not outside.in_comment
    assert outside.body == "plain"
    # An impossible date inside a comment is ignored, with a warning; placeholders silently.
    warnings.clear()
    found = parse_entries(
        "<!--\n## [2026-13-45] Broken\n## [YYYY-MM-DD-HHMMSS] Title\n-->\n",
        "decision",
        source="D.md",
        warnings=warnings,
    )
    assert found == [] and len(warnings) == 1 and "D.md:2" in warnings[0]


# -- tasks --------------------------------------------------------------------------------------


def test_task_continuations_keep_text_and_tags() -> None:
    text = (
        "# Tasks\n"
        "- [ ] Rewrite the hook runner\n"
        "\n"
        "  so that a failing hook reports its exit code.\n"
        "\n"
        "  #added:2026-06-10-090000 #priority:high\n"
        "- [ ] Split the journal\n"
        "  - keep the fsync per append #in-progress\n"
        "  - [ ] a real subtask #added:2026-06-01-000000\n"
        "- [ ] Lazy line task\n"
        "continued lazily #blocked\n"
        "\n"
        "Prose after a blank line is not part of it #priority:low\n"
    )
    tasks = {t.text.split()[0]: t for t in parse_tasks(text)}
    rewrite = tasks["Rewrite"]
    assert rewrite.text == ("Rewrite the hook runner so that a failing hook reports its exit code.")
    assert rewrite.priority == "high" and rewrite.added == datetime(2026, 6, 10, 9, 0)
    split = tasks["Split"]
    assert "keep the fsync per append" in split.text and split.in_progress
    assert tasks["a"].parent == split.line and tasks["a"].added is not None
    lazy = tasks["Lazy"]
    assert lazy.text == "Lazy line task continued lazily" and lazy.blocked
    assert lazy.priority is None


def test_task_variants_star_and_colon() -> None:
    tasks = parse_tasks("* [ ] Star task\n- [ ]: Colon task\n* [x] Done star\n-[ ] tight\n")
    assert [(t.text, t.status) for t in tasks] == [
        ("Star task", "pending"),
        ("Colon task", "pending"),
        ("Done star", "done"),
        ("tight", "pending"),
    ]


def test_continuation_tags_rank_the_task(tmp_path: Path) -> None:
    """Tasks whose tags sit after a blank line are ranked by them (newest #added first)."""
    tasks = "# Tasks\n" + "".join(
        f"- [ ] Task number {i} {'x ' * 60}\n\n  #added:2026-06-{i + 1:02d}-100000\n"
        for i in range(10)
    )
    ctx = load_context(make_context(tmp_path, tasks=tasks))
    assert all(t.added is not None for t in ctx.tasks)
    packet = assemble_packet(ctx, 600, NOW)
    kept = {r.title.split(" x")[0] for r in rows(packet, "tasks") if r.action == "full"}
    assert "Task number 9" in kept and "Task number 0" not in kept


# -- headers and dates --------------------------------------------------------------------------


def test_date_only_headers_have_a_date_and_no_time(tmp_path: Path) -> None:
    entries = parse_entries(
        "## [2026-02-11] Date only\n\nx\n## [2026-02-11-101010] With time\n", "decision"
    )
    assert entries[0].timestamp == datetime(2026, 2, 11) and not entries[0].has_time
    assert entries[0].day_text == "2026-02-11"
    assert entries[1].has_time
    # Real files suffix a stamp to tell same-day entries apart: the date is read, with a warning.
    warnings: list[str] = []
    (suffixed,) = parse_entries("## [2026-07-06-a] Same day\n", "learning", warnings=warnings)
    assert suffixed.timestamp == datetime(2026, 7, 6) and not suffixed.has_time
    assert "read as 2026-07-06" in warnings[0]


def test_impossible_dates_are_warned_with_file_and_line(tmp_path: Path) -> None:
    root = make_context(tmp_path, learnings="# L\n\n" + decision("2026-13-45", "Bad month") + "\n")
    write(root, "decisions/dates.md", "# dates\n\n" + decision("2026-02-30-250000", "Bad day"))
    ctx = load_context(root)
    assert any(
        w.startswith(".context/LEARNINGS.md:3:") and "impossible date [2026-13-45]" in w
        for w in ctx.warnings
    )
    assert any(w.startswith(".context/decisions/dates.md:3:") for w in ctx.warnings)
    packet = assemble_packet(ctx, 4000, NOW)
    bad = next(r for r in rows(packet) if r.title == "Bad month")
    assert bad.date is None and bad.warnings and "scored as undated" in bad.reason


# -- theme folders and steering -----------------------------------------------------------------


def test_theme_folders_join_with_source_and_read_order(tmp_path: Path) -> None:
    root = make_context(
        tmp_path,
        decisions="# Decisions\n\n" + decision("2026-06-01-100000", "Top level"),
        conventions="# Conventions\n- **Top**: one\n",
    )
    write(root, "decisions/cli.md", "# cli\n\n" + decision("2026-06-02-100000", "Themed one"))
    write(root, "decisions/api.md", "# api\n\n" + decision("2026-06-03-100000", "Themed two"))
    write(root, "learnings/hooks.md", "# hooks\n\n" + decision("2026-06-04-100000", "Lesson"))
    write(root, "conventions/naming.md", "# naming\n\n- **Verbs**: commands are verbs\n")
    write(root, "archive/DECISIONS.md", decision("2026-01-01-000000", "Archived"))
    ctx = load_context(root)
    assert [(e.title, e.source) for e in ctx.decisions] == [
        ("Top level", ".context/DECISIONS.md"),
        ("Themed two", ".context/decisions/api.md"),
        ("Themed one", ".context/decisions/cli.md"),
    ]
    assert [e.index for e in ctx.decisions] == [0, 1, 2]
    assert [c.source for c in ctx.conventions] == [
        ".context/CONVENTIONS.md",
        ".context/conventions/naming.md",
    ]
    assert ctx.read_order == (
        ".context/CONVENTIONS.md",
        ".context/conventions/",
        ".context/DECISIONS.md",
        ".context/decisions/",
        ".context/learnings/",
    )
    packet = assemble_packet(ctx, 4000, NOW)
    markdown = packet.to_markdown()
    assert "Archived" not in markdown and "Themed one" in markdown and "Lesson" in markdown
    assert {r.source for r in rows(packet, "decisions")} == {
        ".context/DECISIONS.md",
        ".context/decisions/api.md",
        ".context/decisions/cli.md",
    }
    # Same line numbers in different files are different items.
    assert len({(r.source, r.title) for r in rows(packet, "decisions")}) == 3


def steering_file(name: str, inclusion: str, priority: int, body: str, desc: str = "") -> str:
    return (
        f"---\nname: {name}\ndescription: {desc or name + ' rules'}\ninclusion: {inclusion}\n"
        f"tools: []\npriority: {priority}\n---\n\n{body}\n"
    )


def test_steering_inclusion_priority_placeholder_and_section(tmp_path: Path) -> None:
    root = make_context(
        tmp_path,
        tasks="- [ ] Make the hook runner report exit codes\n",
        conventions="- **Naming**: verbs\n",
        decisions="# D\n\n" + decision("2026-06-01-100000", "A decision"),
    )
    write(root, "steering/security.md", steering_file("security", "always", 10, "- No secrets."))
    write(root, "steering/style.md", steering_file("style", "always", 10, "- Short lines."))
    write(root, "steering/hooks.md", steering_file("hooks", "auto", 5, "- Idempotent hooks."))
    write(root, "steering/db.md", steering_file("db", "auto", 5, "- Migrations.", "Database"))
    write(root, "steering/release.md", steering_file("release", "manual", 1, "1. Tag it."))
    write(
        root,
        "steering/draft.md",
        steering_file(
            "draft", "always", 1, "<!-- remove this after you edit the steering file !-->"
        ),
    )
    ctx = load_context(root)
    assert [s.name for s in ctx.steering] == ["release", "db", "hooks", "security", "style"]
    assert any(
        w.startswith(".context/steering/draft.md:") and "placeholder" in w for w in ctx.warnings
    )

    packet = assemble_packet(ctx, 4000, NOW)
    markdown = packet.to_markdown()
    assert [s.name for s in packet.steering] == ["hooks", "security", "style"]
    # After Key Conventions, before the decisions.
    assert markdown.index("## Key Conventions") < markdown.index("## Steering")
    assert markdown.index("## Steering") < markdown.index("## Recent Decisions")
    assert markdown.index("### security") < markdown.index("### style")  # priority, then name
    fates = {r.title: r for r in rows(packet, "steering")}
    assert fates["release"].action == "skipped" and "--steering release" in fates["release"].reason
    assert fates["db"].action == "skipped" and "auto" in fates["db"].reason
    assert fates["hooks"].action == "full" and fates["hooks"].source == ".context/steering/hooks.md"

    named = assemble_packet(ctx, 4000, NOW, steering=["release"])
    assert [s.name for s in named.steering] == ["release", "hooks", "security", "style"]
    focused = assemble_packet(ctx, 4000, NOW, focus="database migrations")
    assert "db" in [s.name for s in focused.steering]
    assert "hooks" not in [s.name for s in focused.steering]
    with pytest.raises(UsageError, match="no steering file named nope"):
        assemble_packet(ctx, 4000, NOW, steering=["nope"])


def test_steering_is_whole_or_nothing_within_twenty_percent(tmp_path: Path) -> None:
    root = make_context(tmp_path, tasks="- [ ] a task\n")
    write(root, "steering/big.md", steering_file("big", "always", 1, "word " * 400))
    write(root, "steering/small.md", steering_file("small", "always", 2, "- keep it short"))
    ctx = load_context(root)
    packet = assemble_packet(ctx, 2000, NOW)  # 20 % = 400 tokens: big (~500) cannot fit
    assert [s.name for s in packet.steering] == ["small"]
    big = next(r for r in rows(packet, "steering") if r.title == "big")
    assert big.action == "counted"
    assert "…and 1 more steering file in .context/steering/" in packet.to_markdown()
    allocation = {a.section: a for a in packet.allocation_rows}
    assert allocation["steering"].used <= allocation["steering"].cap == 400
    roomy = assemble_packet(ctx, 20000, NOW)
    assert [s.name for s in roomy.steering] == ["big", "small"]


def test_steering_front_matter_problems_fall_back_with_warnings() -> None:
    warnings: list[str] = []
    found = parse_steering(
        "Just rules, no front matter.\n", source="s/x.md", stem="x", warnings=warnings
    )
    assert found is not None and found.name == "x" and found.inclusion == "always"
    assert found.priority == 50 and "no front matter" in warnings[0]
    warnings.clear()
    found = parse_steering(
        "---\nname: [unclosed\n---\nbody\n", source="s/y.md", stem="y", warnings=warnings
    )
    assert found is not None and found.name == "y" and "not valid YAML" in warnings[0]
    warnings.clear()
    found = parse_steering(
        "---\ninclusion: sometimes\npriority: high\n---\nbody\n", stem="z", warnings=warnings
    )
    assert found is not None and found.inclusion == "manual" and found.priority == 50
    assert len(warnings) == 2


# -- relevance ----------------------------------------------------------------------------------


def test_bm25_matches_the_formula_by_hand(tmp_path: Path) -> None:
    """Three entries; the query's terms; every number from the formula, computed here."""
    root = make_context(
        tmp_path,
        decisions="# D\n\n"
        + decision("2026-06-01-100000", "Alpha", "webhook retry webhook")
        + decision("2026-06-01-100000", "Beta", "retry queue worker queue worker")
        + decision("2026-06-01-100000", "Gamma", "ledger audit"),
    )
    ctx = load_context(root)
    packet = assemble_packet(ctx, 8000, NOW, relevance="bm25", focus="webhook retry")
    # Terms (title + body, keyword rule): alpha webhook retry webhook (4); beta retry queue
    # worker queue worker (6); gamma ledger audit (3). avgdl = 13/3.
    k1, b, n_docs, avgdl = 1.2, 0.75, 3, 13 / 3

    def idf(n: int) -> float:
        return math.log(1 + (n_docs - n + 0.5) / (n + 0.5))

    def part(f: int, length: int) -> float:
        return f * (k1 + 1) / (f + k1 * (1 - b + b * length / avgdl))

    alpha = idf(1) * part(2, 4) + idf(2) * part(1, 4)
    beta = idf(2) * part(1, 6)
    relevance = {r.title: r.relevance for r in rows(packet, "decisions")}
    assert relevance["Alpha"] == pytest.approx(1.0)
    assert relevance["Beta"] == pytest.approx(round(beta / alpha, 4), abs=1e-4)
    assert relevance["Gamma"] == 0.0
    model = Bm25([["alpha", "webhook", "retry", "webhook"], ["beta"] + ["retry"] * 1])
    assert model.idf("webhook") == pytest.approx(math.log(1 + 1.5 / 1.5))
    # The keyword rule's plurals: "webhooks" in a query finds "webhook".
    assert model.scores(["webhooks"])[0] == model.scores(["webhook"])[0] > 0


def test_busy_directory_rare_words_outrank_common_ones() -> None:
    ctx = load_context(BUSY_DIR)
    assert len(ctx.decisions) + len(ctx.learnings) >= 240
    focus = "hook sandbox context file"  # two rare words, two that every entry has
    packet = assemble_packet(ctx, 8000, NOW, relevance="bm25", focus=focus)
    scored = [r for r in packet.ledger_rows if r.section in ("decisions", "learnings")]
    rare = [r for r in scored if {"hook", "sandbox"} & set(r.keywords)]
    common_only = [r for r in scored if r.keywords and not {"hook", "sandbox"} & set(r.keywords)]
    assert rare and common_only
    assert min(r.relevance for r in rare if {"hook", "sandbox"} <= set(r.keywords)) > max(
        r.relevance for r in common_only
    )


def test_keywords_rule_with_a_short_focus_discriminates() -> None:
    ctx = load_context(BUSY_DIR)
    scored = lambda p: [r for r in p.ledger_rows if r.section in ("decisions", "learnings")]  # noqa: E731
    without = scored(assemble_packet(ctx, 8000, NOW, relevance="keywords"))
    assert sum(r.relevance == 1.0 for r in without) > 0.8 * len(without)  # the reported problem
    # which is why the default (auto) ranks by BM25 here, and says so
    default = assemble_packet(ctx, 8000, NOW)
    assert default.relevance == "bm25" and "saturates" in default.relevance_reason
    assert len({r.score for r in scored(default)}) >= 10
    focused = assemble_packet(ctx, 8000, NOW, focus="hook sandbox edge")
    assert focused.relevance == "keywords" and "focus" in focused.relevance_reason
    with_focus = scored(assemble_packet(ctx, 8000, NOW, focus="hook sandbox edge"))
    assert sum(r.relevance == 1.0 for r in with_focus) < 0.2 * len(with_focus)
    assert any(r.relevance == 1.0 for r in with_focus)


def test_focus_without_keywords_warns_and_falls_back(tmp_path: Path) -> None:
    ctx = load_context(make_context(tmp_path, tasks="- [ ] Tune the cache\n"))
    packet = assemble_packet(ctx, 2000, NOW, focus="the and of")
    assert packet.focus == "the and of"
    assert any("has no keywords" in w for w in packet.warnings)


# -- surfaces -----------------------------------------------------------------------------------


def test_commands_take_focus_relevance_and_steering() -> None:
    report = entries_command(BUSY_DIR, now=NOW, budget=6000, focus="hook", relevance="bm25")
    data = report.to_dict()
    assert data["rows"] and "source" in data["rows"][0] and "warnings" in data["rows"][0]
    text = report.to_text()
    assert "source" in text.splitlines()[2] and "warnings" in text.splitlines()[2]
    assert "focus 'hook', relevance bm25" in text
    assert "warnings" in report.to_csv().splitlines()[0]
    packet = packet_command(BUSY_DIR, now=NOW, budget=6000, steering=["release"])
    assert "release" in [s["name"] for s in packet.to_dict()["steering"]]
    with pytest.raises(UsageError):
        packet_command(BUSY_DIR, now=NOW, budget=6000, relevance="magic")


def test_cli_flags(tmp_path: Path) -> None:
    from ctx_lab.cli import main

    out = tmp_path / "p.md"
    code = main(
        [
            "packet",
            str(BUSY_DIR),
            "--now",
            "2026-06-15T12:00:00Z",
            "--budget",
            "5000",
            "--focus",
            "journal fsync",
            "--relevance",
            "bm25",
            "--steering",
            "release",
            "-o",
            str(out),
        ]
    )
    assert code == 0
    text = out.read_text(encoding="utf-8")
    assert "### release" in text and "## Steering" in text
    assert main(["packet", str(BUSY_DIR), "--relevance", "magic"]) == 2


def test_load_context_is_cached_by_file_identity(tmp_path: Path) -> None:
    root = make_context(tmp_path, tasks="- [ ] one\n")
    write(root, "decisions/a.md", decision("2026-06-01-100000", "A"))
    old = time.time() - 60
    for path in (root / ".context").rglob("*"):
        os.utime(path, (old, old))
    first = load_context(root)
    assert load_context(root) is first
    (root / ".context" / "decisions" / "a.md").write_text(
        decision("2026-06-01-100000", "A changed"), encoding="utf-8"
    )
    changed = load_context(root)
    assert changed is not first and changed.decisions[0].title == "A changed"
    write(root, "decisions/b.md", decision("2026-06-02-100000", "B"))
    assert len(load_context(root).decisions) == 2


def test_auto_ranks_by_bm25_when_keywords_leave_too_few_distinct_scores(tmp_path: Path) -> None:
    # 60 decisions on one day, a third mentioning the one task keyword (more or less often):
    # not saturated, but the keyword rule gives them only two distinct scores
    entries = "".join(
        decision(
            "2026-06-01",
            f"Decision {i}",
            f"Body {i} " + ("caching " * (1 + i % 4) if i % 3 == 0 else "") + "words " * (i % 7),
        )
        for i in range(60)
    )
    ctx = load_context(
        make_context(tmp_path, decisions="# Decisions\n\n" + entries, tasks="- [ ] Tune caching\n")
    )
    packet = assemble_packet(ctx, 8000, NOW)
    assert packet.relevance == "bm25" and "distinct scores" in packet.relevance_reason
    keywords = assemble_packet(ctx, 8000, NOW, relevance="keywords")
    scored = lambda p: {r.score for r in p.ledger_rows if r.section == "decisions"}  # noqa: E731
    assert len(scored(keywords)) < 10 <= len(scored(packet))
