"""Decisions and learnings in the layouts other projects use (shapes copied small from public
repositories' ``.context/`` folders): numbered headers, one ADR/MADR record per file, and a
warning — never silence — for a file whose headers are none of these."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from packet_helpers import make_context
from paths import TESTS

from ctx_lab.packet import assemble_packet, load_context
from ctx_lab.packet._records import parse_numbered_entries, parse_record

NOW = datetime(2026, 7, 26, 12, tzinfo=UTC)

NUMBERED = """# Decisions Log

> Append-only.

## D001 — Shared probe

**Date:** 2026-05 (project inception)
**Decision:** Reuse the probe.

## D002 — Conservative cipher classification

**Date:** 2026-06-13
**Status:** Superseded by D003
**Decision:** Only RC4/NULL are insecure.

### ADR-7: Nested numbered header

Body of seven.
"""

ADR = """# ADR-0007: Replaceable infrastructure adapters

- Status: Accepted
- Date: 2026-07-18
- Decision owners: someone

## Context

Providers differ.

## Decision

Use ports and adapters.
"""

MADR = """---
status: accepted
date: 2024-03-02
---
# Use Markdown Architectural Decision Records

## Context and Problem Statement

We want to record decisions.
"""


def test_numbered_headers_are_entries_with_their_dates_and_status() -> None:
    entries = parse_numbered_entries(NUMBERED, "decision", source=".context/DECISIONS.md")
    assert [e.title for e in entries] == [
        "D001 — Shared probe",
        "D002 — Conservative cipher classification",
        "ADR-7 — Nested numbered header",
    ]
    first, second, third = entries
    assert first.stamp == "" and first.timestamp is None  # a month is not a date
    assert second.timestamp == datetime(2026, 6, 13) and second.superseded
    assert "Only RC4/NULL" in second.body and "ADR-7" not in second.body
    assert third.body == "Body of seven." and third.line == 16


def test_a_record_per_file_adr_and_madr() -> None:
    adr = parse_record(ADR, "decision", source=".context/decisions/ADR-0007-x.md", stem="x")
    assert adr is not None
    assert adr.title == "ADR-0007: Replaceable infrastructure adapters"
    assert adr.timestamp == datetime(2026, 7, 18) and not adr.superseded
    assert "Use ports and adapters." in adr.body
    madr = parse_record(MADR, "decision", source=".context/decisions/0001-madr.md")
    assert madr is not None and madr.title == "Use Markdown Architectural Decision Records"
    assert madr.timestamp == datetime(2024, 3, 2) and madr.line == 5
    assert parse_record("\n\n", "decision") is None


def test_the_loader_reads_other_layouts_and_warns_where_it_cannot(tmp_path: Path) -> None:
    root = make_context(
        tmp_path,
        decisions=NUMBERED,
        learnings="# Learnings\n\n## What went wrong\n\nText.\n\n## Another\n\nMore.\n",
        constitution="# Constitution\n\n## Red lines\n\nNever log secrets.\n",
        gotchas="# Gotchas\n\n## G01 — ECDSA key size\n\nIt was 0.\n",
    )
    folder = root / ".context" / "decisions"
    folder.mkdir()
    (folder / "ADR-0007-replaceable-infrastructure-adapters.md").write_text(ADR)
    (folder / "ADR-000-template.md").write_text("# ADR-000: [Title]\n\n- Status: [..]\n")
    sessions = root / ".context" / "sessions"
    sessions.mkdir()
    for n in (1, 2):
        (sessions / f"SESSION-{n}.md").write_text(f"# Session {n}\n\nWhat happened.\n")
    ctx = load_context(root)
    titles = [e.title for e in ctx.decisions]
    assert "ADR-0007: Replaceable infrastructure adapters" in titles
    assert "D001 — Shared probe" in titles and not any("[Title]" in t for t in titles)
    assert ctx.learnings == ()
    warned = "\n".join(ctx.warnings)
    assert ".context/LEARNINGS.md: 2 level-2 headers but no learnings" in warned
    assert ".context/CONSTITUTION.md: no checkbox rules" in warned
    assert ".context/GOTCHAS.md: not one of ctx's own files" in warned
    assert ".context/GOTCHAS.md" in ctx.read_order
    assert ".context/sessions/: 2 Markdown files not read" in warned
    packet = assemble_packet(ctx, 4000, NOW)
    assert "D001 — Shared probe" in packet.to_markdown()
    superseded = next(r for r in packet.ledger_rows if r.title.startswith("D002"))
    assert "superseded" in superseded.reason


def test_a_ctx_layout_keeps_its_read_order(tmp_path: Path) -> None:
    root = make_context(
        tmp_path,
        tasks="- [ ] Ship it\n",
        decisions="# Decisions\n\n## [2026-07-01] Use SQLite\n\nBecause.\n",
        notes="# Notes\n\n## Some section\n\nprivate notes\n",
    )
    ctx = load_context(root)
    assert ".context/NOTES.md" not in ctx.read_order
    # neither read nor listed, so named in a warning (issue 42: nothing unread goes unsaid)
    assert [w for w in ctx.warnings if w.startswith(".context/NOTES.md: not one of ctx's own")]


_pieces = st.sampled_from(
    [
        "## D001 — A",
        "### ADR-7: B",
        "## G1 - C",
        "# Title",
        "## Plain",
        "**Date:** 2026-06-13",
        "- Status: Superseded",
        "text",
        "",
        "---",
        "status: x",
        "## [2026-01-01] ctx",
    ]
)


@given(st.lists(_pieces, max_size=30))
def test_other_layout_parsers_never_fail_and_never_overlap(lines: list[str]) -> None:
    text = "\n".join(lines)
    entries = parse_numbered_entries(text, "decision")
    starts = [e.line for e in entries]
    assert starts == sorted(set(starts))
    for e in entries:
        assert not any(
            line.startswith(("## D001", "### ADR-7", "## G1 -")) for line in e.body.split("\n")
        )
    record = parse_record(text, "learning", stem="s")
    assert record is None or record.title


def test_known_files_are_read_however_their_names_are_cased(tmp_path: Path) -> None:
    # tuxclaw/familiar writes .context/decisions.md; OdinMB/actually-relevant an index there and
    # one record per file in decisions/
    ctx_dir = tmp_path / ".context"
    (ctx_dir / "decisions").mkdir(parents=True)
    (ctx_dir / "decisions.md").write_text(
        "# decisions.md\n\n## [2026-09-04] Familiar M0 — platform contract\n**By:** Sonic\n"
        "**Decision:** plugin kinds are bar, overlay and service.\n**Status:** Active\n"
    )
    (ctx_dir / "tasks.md").write_text("# Tasks\n\n- [ ] Ship the dock\n")
    (ctx_dir / "decisions" / "0003-podcast-stage-machine.md").write_text(
        "# ADR-0003 · Produce episodes as a stage machine\n\n- Status: accepted\n"
        "- Date: 2026-05-02\n\n## Context\n\nEpisodes fail midway.\n"
    )
    ctx = load_context(tmp_path)
    assert [e.title for e in ctx.decisions] == [
        "Familiar M0 — platform contract",
        "ADR-0003 · Produce episodes as a stage machine",
    ]
    assert [t.text for t in ctx.tasks] == ["Ship the dock"]
    assert ctx.read_order[:3] == (
        ".context/tasks.md",
        ".context/decisions.md",
        ".context/decisions/",
    )
    assert not any("not one of ctx's own files" in w for w in ctx.warnings)


def test_dated_headers_without_brackets_are_entries() -> None:
    from ctx_lab.packet._records import parse_dated_entries

    # Alfonso-Castano/Claude-SecondBrain's DECISIONS.md and memtext's decisions.md
    second_brain = (
        "# Decisions\n\n## 2026-07-21 — Obsidian adoption reverses a prior deferral\n\n"
        "Obsidian is in scope now.\n\n## 2026-07-17 — OPEN DECISION: does Feature #2 wait?\n\n"
        "Undecided.\n"
    )
    memtext = (
        "# Architecture Decisions\n\n## 2026-04-10 - Initial Setup\n- Initialized context "
        "storage with memtext\n\n## 2026-04-24 [ci,workflow,pytest]\n- CI Workflow Fixes: "
        "removed --cov-fail-under.\n"
    )
    first = parse_dated_entries(second_brain, "decision", source=".context/DECISIONS.md")
    assert [e.title for e in first] == [
        "Obsidian adoption reverses a prior deferral",
        "OPEN DECISION: does Feature #2 wait?",
    ]
    assert first[0].timestamp == datetime(2026, 7, 21) and first[1].body == "Undecided."
    second = parse_dated_entries(memtext, "decision")
    assert [e.title for e in second] == [
        "Initial Setup",
        "CI Workflow Fixes: removed --cov-fail-under.",
    ]
    assert second[1].stamp == "2026-04-24"


def test_month_headers_at_depth_three_and_a_steering_file(tmp_path: Path) -> None:
    """``### 2026-06 — Title`` decisions are entries (undated: a month is not a date, and the
    ledger says they rank by relevance alone); a top-level STEERING.md is a steering file; a
    folder of notes that ctx's layout does not read is named in a warning."""
    from ctx_lab.packet import assemble_packet, load_context

    context = tmp_path / ".context"
    (context / "sessions").mkdir(parents=True)
    (context / "DECISIONS.md").write_text(
        "# Decisions\n\n### 2026-06 — Use SQLite for the journal\n\nWe chose SQLite.\n\n"
        "### 2026-05-02 — Drop YAML\n\nToo many footguns.\n"
    )
    (context / "TASKS.md").write_text("# Tasks\n\n- [ ] one\n")
    (context / "STEERING.md").write_text("# Steering\n\nAlways write tests first.\n")
    (context / "sessions" / "2026-06-01.md").write_text("# Session\n\nNotes.\n")
    ctx = load_context(tmp_path, cached=False)
    assert [d.title for d in ctx.decisions] == ["Use SQLite for the journal", "Drop YAML"]
    assert ctx.decisions[0].timestamp is None and ctx.decisions[1].timestamp is not None
    [steering] = ctx.steering  # one steering file, read as such (no front matter: always)
    assert steering.source == ".context/STEERING.md" and steering.inclusion == "always"
    assert any(w.startswith(".context/STEERING.md:1: no front matter") for w in ctx.warnings)
    assert any(w.startswith(".context/sessions/: 1 Markdown file not read") for w in ctx.warnings)
    packet = assemble_packet(ctx, 2000)
    row = next(r for r in packet.ledger_rows if r.title == "Use SQLite for the journal")
    assert "ranked by relevance alone" in row.reason


def test_other_agents_memory_when_there_is_no_context_folder(tmp_path: Path) -> None:
    """Kiro steering, Cursor rules (nested too), a Cline memory bank and root instruction files
    are read as their agents use them, and the packet's first warning reports the layout and
    where each file went. (Checked on real projects: a Kiro template with CLAUDE.md and
    .cursorrules, and a Cursor rules tree of 40+ nested .mdc files; their repositories carry
    no licence, so the shapes are rebuilt here from the agents' documentation.)"""
    from ctx_lab.packet import assemble_packet, load_context

    kiro = tmp_path / ".kiro" / "steering"
    kiro.mkdir(parents=True)
    (kiro / "product.md").write_text("# Product Overview\n\nA ledger for small shops.\n")
    (kiro / "api.md").write_text(
        "---\ninclusion: fileMatch\nfileMatchPattern: 'app/api/**/*'\n---\n# API\n\nREST only.\n"
    )
    rules = tmp_path / ".cursor" / "rules" / "core"
    rules.mkdir(parents=True)
    (rules / "always.mdc").write_text("---\nalwaysApply: true\n---\nNever commit secrets.\n")
    (rules / "testing.mdc").write_text(
        "---\ndescription: how to write tests\nglobs:\nalwaysApply: false\n---\nUse pytest.\n"
    )
    bank = tmp_path / "memory-bank"
    bank.mkdir()
    for name in ("progress.md", "projectbrief.md", "activeContext.md", "notes.md"):
        (bank / name).write_text(f"# {name}\n\nSome memory.\n")
    (tmp_path / "AGENTS.md").write_text("# Agents\n\nRun make test.\n")
    ctx = load_context(tmp_path, cached=False)
    report = ctx.warnings[0]
    assert report.startswith("no .context/: read the agents' memory — Kiro steering")
    assert ".kiro/steering/api.md → tier 3 steering, manual (Kiro fileMatch app/api/**/*" in report
    assert ".cursor/rules/core/always.mdc → tier 3 steering, always (alwaysApply)" in report
    assert ".cursor/rules/core/testing.mdc → tier 3 steering, auto" in report
    read_as = {f.file: f.read_as for f in ctx.layout.files}  # the same report, as data
    assert read_as["AGENTS.md"] == "tier 1 Read These Files"
    assert read_as[".cursor/rules/core/always.mdc"] == "tier 3 steering, always (alwaysApply)"
    assert ctx.layout.name.startswith("Kiro steering (.kiro/steering/), Cursor rules")
    assert ctx.read_order == (
        "memory-bank/projectbrief.md",
        "memory-bank/activeContext.md",
        "memory-bank/progress.md",
        "memory-bank/notes.md",
        "AGENTS.md",
    )
    inclusion = {s.source: s.inclusion for s in ctx.steering}
    assert inclusion[".kiro/steering/product.md"] == "always"
    assert inclusion[".kiro/steering/api.md"] == "manual"
    packet = assemble_packet(ctx, 4000)
    assert sorted(s.name for s in packet.steering) == ["always", "product"]  # the always ones
    # the memory folder itself, named, is the same project; and it is found from below
    assert load_context(bank, cached=False).read_order == ctx.read_order
    from ctx_lab.packet import find_context

    (tmp_path / "src" / "deep").mkdir(parents=True)
    found = find_context(tmp_path / "src" / "deep", root=tmp_path)
    assert found.found and found.directory == "." and "AGENTS.md:" in found.signature
    assert found.layout.startswith("Kiro steering (.kiro/steering/), Cursor rules")
    assert found.to_text() == f". ({found.layout})"
    assert load_context(tmp_path / ".kiro", cached=False).steering == ctx.steering


REAL_AGENTS = TESTS / "fixtures" / "agents" / "ng-alain-master"


def test_a_real_memory_bank_and_cursor_rules() -> None:
    """7Spade/ng-alain-master (MIT): every Markdown file of its memory bank is listed, in Cline's
    order then by path (subfolders too: Cline reads them), the nested Cursor rule is steering
    on request, and .cursorrules is read whole."""
    from ctx_lab.packet import assemble_packet, load_context

    ctx = load_context(REAL_AGENTS, cached=False)
    assert ctx.read_order == (
        "memory-bank/projectbrief.md",
        "memory-bank/systemPatterns.md",
        "memory-bank/techContext.md",
        "memory-bank/activeContext.md",
        "memory-bank/progress.md",
        "memory-bank/build/ORG-Expansion-Plan-Skeleton.md",
        ".cursorrules",
    )
    [rule] = ctx.steering
    assert rule.source.endswith("Core/command-execution.mdc") and rule.inclusion == "auto"
    assert rule.description == "Command execution guidelines for isolation-focused Memory Bank"
    assert "Cline memory bank (memory-bank/)" in ctx.warnings[0]
    packet = assemble_packet(ctx, 20_000, focus="command execution")  # its words asked for
    assert [s.name for s in packet.steering] == ["command-execution"]
    assert not assemble_packet(ctx, 20_000).steering  # on request only


def test_a_real_context_with_a_steering_file_of_its_own() -> None:
    """azyu/skillctl (MIT): STEERING.md is steering, PROJECT.md is named in a warning, and
    nothing of it is silently left out."""
    from ctx_lab.packet import load_context

    ctx = load_context(TESTS / "fixtures" / "agents" / "skillctl", cached=False)
    assert [s.source for s in ctx.steering] == [".context/STEERING.md"]
    assert (
        ctx.steering[0].inclusion == "always"
        and "Non-Negotiable Constraints" in ctx.steering[0].body
    )
    assert [w for w in ctx.warnings if w.startswith(".context/PROJECT.md: not one of ctx's own")]
    assert ctx.read_order == (".context/TASKS.md",)


def test_the_layout_report_maps_each_file_to_its_tier(tmp_path: Path) -> None:
    """``.context/`` files map to the packet's tiers with their counts; a file, a folder and
    another agent's memory beside ``.context/`` that are not read say so — in the report and in a
    warning — and the packet (JSON, both profiles) carries the same report."""
    import shutil

    from ctx_lab.examples import EXAMPLE_DIR
    from ctx_lab.packet import Packet

    shutil.copytree(EXAMPLE_DIR / ".context", tmp_path / ".context")
    (tmp_path / ".context" / "NOTES.md").write_text("# Notes\n\n## A section\n\nText.\n")
    (tmp_path / ".context" / "sessions").mkdir()
    (tmp_path / ".context" / "sessions" / "one.md").write_text("# One\n")
    (tmp_path / "AGENTS.md").write_text("# Agents\n\nRun make test.\n")
    (tmp_path / ".cursor" / "rules").mkdir(parents=True)
    (tmp_path / ".cursor" / "rules" / "style.mdc").write_text("---\nalwaysApply: true\n---\nX\n")
    ctx = load_context(tmp_path, cached=False)
    read_as = {f.file: f.read_as for f in ctx.layout.files}
    assert read_as[".context/CONSTITUTION.md"].startswith(
        f"tier 1 constitution: {len(ctx.rules)} rules"
    )
    pending = len(ctx.pending_tasks)
    assert read_as[".context/TASKS.md"].startswith(f"tier 2 tasks: {len(ctx.tasks)} ({pending} ")
    assert read_as[".context/DECISIONS.md"].startswith(
        f"tier 4 decisions: {len(ctx.decisions)} entries"
    )
    assert read_as[".context/NOTES.md"] == "not read (see the warnings)"
    assert read_as[".context/sessions/"] == "not read: 1 Markdown file (not one of ctx's folders)"
    assert read_as["AGENTS.md"].startswith("not read: another agent's memory")
    assert read_as[".cursor/rules/style.mdc"].startswith("not read: another agent's memory")
    assert (
        "other agents' memory beside .context/, not read into the packet: .cursor/rules/"
        "style.mdc, AGENTS.md (read only in a project without .context/)" in ctx.warnings
    )
    for profile in ("design", "ctx-0.8"):
        packet = assemble_packet(ctx, 4000, NOW, profile=profile)
        data = packet.to_dict()
        assert data["layout"] == ctx.layout.to_dict()
        assert Packet.from_dict(data).layout == ctx.layout


def test_ctx_lab_context_prints_the_layout_report(tmp_path: Path) -> None:
    """``ctx-lab context`` gives each file and what it is read as, in text and JSON."""
    import json
    import shutil

    from ctx_lab.cli import main
    from ctx_lab.examples import EXAMPLE_DIR

    shutil.copytree(EXAMPLE_DIR / ".context", tmp_path / ".context")
    (tmp_path / "CLAUDE.md").write_text("# Claude\n")
    ctx = load_context(tmp_path, cached=False)
    from ctx_lab.commands import context

    found = context(str(tmp_path), root=str(tmp_path))
    assert found.files == ctx.layout.files and found.layout == "ctx (.context/)"
    assert json.loads(found.to_json())["files"][-1] == {
        "file": "CLAUDE.md",
        "read_as": "not read: another agent's memory; .context/ is this project's",
    }
    assert "  CLAUDE.md → not read: another agent's memory" in found.to_text()
    assert main(["context", str(tmp_path)]) == 0


def test_kiro_specs_are_named_not_read_and_the_project_is_not_named_as_its_own_parent(
    run_cli, tmp_path: Path
) -> None:
    """A Kiro project's ``.kiro/specs/<feature>/`` (requirements, design, tasks: one feature's
    plan, as Kiro documents specs) are named in a warning, with or without ``.context/``; a
    folder that is itself the project is not said to have "the nearest project above it" —
    itself; a folder with nothing above says so."""
    project = tmp_path / "proj"
    (project / ".kiro" / "steering").mkdir(parents=True)
    (project / ".kiro" / "steering" / "product.md").write_text("# Product\n\nShip weekly.\n")
    spec = project / ".kiro" / "specs" / "login"
    spec.mkdir(parents=True)
    for name in ("requirements.md", "design.md", "tasks.md"):
        (spec / name).write_text(f"# {name}\n\n- [ ] 1. WHEN a user logs in THEN …\n")
    code, out, err = run_cli("packet", str(project), "--budget", "800")
    assert code == 0 and "Ship weekly" in out
    assert "Kiro specs, not read into the packet: .kiro/specs/login/ (requirements.md, " in err
    assert "kiro.dev/docs/specs" in err
    assert "nearest project above it" not in err and "WHEN a user logs in" not in out
    (project / "src").mkdir()
    code, _, err = run_cli("packet", str(project / "src"), "--budget", "800")
    assert code == 0 and f"the nearest project above it, {project}" in err
    # beside .context/ too
    (project / ".context").mkdir()
    (project / ".context" / "decisions.md").write_text("## 2026-01-01 Use Postgres\n\nWhy.\n")
    code, _, err = run_cli("packet", str(project), "--budget", "800")
    assert code == 0 and "Kiro specs, not read into the packet" in err
    lonely = tmp_path / "lonely" / "deep"
    lonely.mkdir(parents=True)
    code, _, err = run_cli("packet", str(lonely), "--budget", "800")
    assert code == 1 and "no folder above it" in err and "another agent's memory" in err
