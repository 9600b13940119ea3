"""The ctx-0.8 profile: byte-for-byte parity with ctx agent 0.8.1 on the reference cases, and
what the parity document says ctx does on inputs the references do not cover."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from packet_helpers import decision, make_context
from paths import TESTS

from ctx_lab.errors import UsageError
from ctx_lab.examples import EXAMPLE_DIR, EXAMPLE_NOW
from ctx_lab.packet import CtxPacket, Packet, assemble_packet, compare_profiles, load_context
from ctx_lab.packet._ctx08 import RULES, estimate

PARITY = TESTS / "fixtures" / "ctx-parity"
DISPLAY = "/home/dev/acme-billing/.context"
NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)
INSTRUCTION_TOKENS = 31


@pytest.fixture(autouse=True)
def utc(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """ctx computes ages in the local time zone; the references were made in UTC."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def ctx08(root: Path, budget: int, now: datetime = NOW, display: str = "/p/.context") -> CtxPacket:
    packet = assemble_packet(
        load_context(root), budget, now, profile="ctx-0.8", display_dir=display
    )
    assert isinstance(packet, CtxPacket)
    return packet


def native(packet: CtxPacket) -> dict:
    return json.loads(packet.render("json"))


# -- the reference cases ------------------------------------------------------------------------


@pytest.mark.parametrize("budget", [500, 2000, 8000])
def test_reference_outputs_byte_for_byte(budget: int) -> None:
    reference_json = (PARITY / f"agent-budget{budget}.json").read_text(encoding="utf-8")
    reference_md = (PARITY / f"agent-budget{budget}.md").read_text(encoding="utf-8")
    generated = json.loads(reference_json)["generated"]
    now = datetime.fromisoformat(generated.replace("Z", "+00:00"))
    packet = ctx08(PARITY / "fixture", budget, now, DISPLAY)
    assert json.loads(packet.render("json")) == json.loads(reference_json)
    assert packet.render("json") == reference_json  # key order, nulls, \u003e escapes too
    assert packet.to_markdown().splitlines() == reference_md.splitlines()
    assert packet.to_markdown() == reference_md
    # the payload wraps ctx's JSON and restores to the same packet
    data = packet.to_dict()
    assert data["profile"] == "ctx-0.8" and data["native"] == json.loads(reference_json)
    restored = Packet.from_dict(data)
    assert isinstance(restored, CtxPacket) and restored.to_markdown() == reference_md


def test_reference_overshoot_is_flagged() -> None:
    packet = ctx08(PARITY / "fixture", 500, NOW, DISPLAY)
    assert packet.tokens_used == 940 and packet.overshoot == 440
    assert packet.to_dict()["overshoot"] == 440
    assert any("overshoots the budget by 440" in w for w in packet.warnings)
    assert any(r.rule == "fill-80" and r.action == "summary" for r in packet.ledger_rows)


# -- extraction, as the parity document describes it ---------------------------------------------


def test_constitution_only_when_the_whole_file_is_one_rule(tmp_path: Path) -> None:
    one = make_context(tmp_path / "a", constitution="- [ ] Never delete the ledger")
    assert native(ctx08(one, 2000))["constitution"] == ["Never delete the ledger"]
    assert "## Constitution (NEVER VIOLATE)\n- Never delete the ledger\n" in (
        ctx08(one, 2000).to_markdown()
    )
    newline = make_context(tmp_path / "b", constitution="- [ ] Never delete the ledger\n")
    assert native(ctx08(newline, 2000))["constitution"] == []
    many = make_context(tmp_path / "c", constitution="# C\n\n- [ ] One rule\n- [ ] Two\n")
    packet = ctx08(many, 2000)
    assert native(packet)["constitution"] == [] and "Constitution" not in packet.to_markdown()


def test_task_lines(tmp_path: Path) -> None:
    tasks = (
        "# Tasks\n"
        "- [ ] Plain #priority:high\n"
        "- [] Empty box\n"
        "- [X] Uppercase done is not a task line at all\n"
        "- [x] Done\n"
        "- [-] Skipped\n"
        "* [ ] Star bullet\n"
        "  - [ ] Nested subtask\n"
        "- [ ] First line\n"
        "  continuation that ctx drops\n"
        "<!--\n- [ ] Inside a comment\n-->\n"
    )
    packet = ctx08(make_context(tmp_path, tasks=tasks), 8000)
    assert native(packet)["tasks"] == [
        "- [ ] Plain #priority:high",
        "- [ ] Empty box",
        "- [ ] Nested subtask",
        "- [ ] First line",
        "- [ ] Inside a comment",
    ]


def test_conventions_every_column_zero_dash_line(tmp_path: Path) -> None:
    conventions = (
        "# Conventions\n<!--\n- From inside the comment\n-->\n"
        "- **Real**: one\n  - nested, not column 0\n- # starts with a hash\n---\n"
    )
    packet = ctx08(make_context(tmp_path, conventions=conventions), 8000)
    assert native(packet)["conventions"] == ["From inside the comment", "->", "**Real**: one", "--"]


def test_entry_headers_superseded_and_blocks(tmp_path: Path) -> None:
    decisions = (
        "# Decisions\n\n"
        "### [2026-06-10-100000] Triple hash still starts an entry\n\nbody one\n\n---\n\n"
        "## [2026-06-11] Date only is not a header\n\nbelongs to the block above\n\n"
        "## [2026-06-12-100000] Struck\n\n~~Superseded by something~~\n\n"
        "## [2026-06-13-100000] Status line\n\n**Status**: Superseded\n"
    )
    packet = ctx08(make_context(tmp_path, decisions=decisions, tasks="- [ ] a\n"), 8000)
    rows = {r.title: r for r in packet.ledger_rows if r.section == "decisions"}
    assert set(rows) == {"Triple hash still starts an entry", "Struck", "Status line"}
    first = next(e for e in packet.decisions + packet.learnings if e.title.startswith("Triple"))
    assert "belongs to the block above" in first.text and first.text.endswith("above")
    assert rows["Struck"].action == "superseded" and rows["Struck"].rule == "score-zero-skipped"
    assert rows["Status line"].action in ("full", "summary") and rows["Status line"].score > 0
    assert "Struck" not in packet.to_markdown()


@pytest.mark.parametrize(
    ("days", "recency"),
    [(7, 1.0), (8, 0.7), (30, 0.7), (31, 0.4), (90, 0.4), (91, 0.2)],
)
def test_recency_brackets_by_local_midnight(tmp_path: Path, days: int, recency: float) -> None:
    day = (NOW - timedelta(days=days)).strftime("%Y-%m-%d")
    root = make_context(tmp_path, decisions=decision(f"{day}-235959", "Aged"))
    row = next(r for r in ctx08(root, 8000).ledger_rows if r.title == "Aged")
    assert row.age_days == days and row.recency == recency


def test_keywords_leak_tags_and_match_substrings(tmp_path: Path) -> None:
    root = make_context(
        tmp_path,
        tasks="- [ ] Get it done #priority:high\n",
        decisions=decision("2026-06-01-100000", "Budgets", "Our budgets are big")
        + decision("2026-06-01-100000", "Highway", "a highway priority lane"),
    )
    rows = {r.title: r for r in ctx08(root, 8000).ledger_rows if r.section == "decisions"}
    assert rows["Budgets"].keywords == ("get",)  # "get" inside "budgets"
    assert rows["Highway"].keywords == ("priority", "high")  # the tag's words leaked in
    assert rows["Highway"].relevance == pytest.approx(2 / 3, abs=1e-4)


def test_split_fill_and_uncapped_summaries(tmp_path: Path) -> None:
    body = "x" * 396  # each entry block is 400+ bytes
    title = "a long title that costs tokens " * 3
    decisions = "".join(
        decision(f"2026-06-0{i}-100000", f"D{i} {title}", body) for i in range(1, 5)
    )
    learnings = "".join(
        decision(f"2026-06-0{i}-100000", f"L{i} {title}", body) for i in range(1, 3)
    )
    root = make_context(tmp_path, decisions=decisions, learnings=learnings)
    roomy = ctx08(root, 50_000)
    # everything fits: each side gets its own total, yet only 80 % of it goes in full
    d_rows = [r for r in roomy.ledger_rows if r.section == "decisions"]
    assert [r.action for r in d_rows].count("summary") == 1
    tight = ctx08(root, 100)
    data = native(tight)
    assert data["decisions"] is None and "learnings" not in data
    assert len(data["summaries"]) == 6  # every title, whatever the budget
    assert tight.tokens_used > 100 and tight.overshoot == tight.tokens_used - 100


def test_tier_one_alone_and_empty_directory(tmp_path: Path) -> None:
    root = make_context(
        tmp_path, tasks="- [ ] a task\n", decisions=decision("2026-06-01-100000", "D")
    )
    packet = ctx08(root, 10)
    data = native(packet)
    tier1 = sum(estimate(p) for p in data["read_order"]) + INSTRUCTION_TOKENS
    assert data["tokens_used"] == tier1
    assert data["tasks"] is None and data["conventions"] is None and data["decisions"] is None
    assert "learnings" not in data and "summaries" not in data
    empty = tmp_path / "empty"
    (empty / ".context").mkdir(parents=True)
    packet = ctx08(empty, 1000)
    assert native(packet)["read_order"] is None and "## Read These Files\n" in packet.to_markdown()


def test_json_escapes_html_like_go(tmp_path: Path) -> None:
    root = make_context(tmp_path, tasks="- [ ] Render <b>bold</b> & friends → ok\n")
    text = ctx08(root, 2000).render("json")
    assert "\\u003cb\\u003ebold\\u003c/b\\u003e \\u0026 friends → ok" in text


def test_large_directory_across_budgets(tmp_path: Path) -> None:
    """Hundreds of entries, budgets 0 to 50,000: the document's arithmetic holds at each."""
    entries = "".join(
        decision(f"2026-0{1 + i % 6}-{1 + i % 28:02d}-1{i % 10}0000", f"Entry {i}", "word " * i)
        for i in range(300)
    )
    tasks = "".join(f"- [ ] task {i} about entry budgets\n" for i in range(60))
    root = make_context(tmp_path, decisions=entries, learnings=entries, tasks=tasks)
    ctx = load_context(root)
    for budget in (0, 50, 500, 2000, 8000, 20_000, 50_000):
        packet = assemble_packet(ctx, budget, NOW, profile="ctx-0.8", display_dir="/d")
        data = json.loads(packet.render("json"))
        tier1 = sum(estimate(p) for p in data["read_order"]) + INSTRUCTION_TOKENS
        tasks_used = sum(estimate(t) for t in data["tasks"] or [])
        if data["tasks"] and len(data["tasks"]) > 1:
            assert tasks_used <= min(int(budget * 0.4), budget - tier1)
        full = sum(estimate(t) for t in (data["decisions"] or []) + data.get("learnings", []))
        titles = sum(estimate(t) for t in data.get("summaries", []))
        conventions = sum(estimate(c) for c in data["conventions"] or [])
        assert data["tokens_used"] == tier1 + tasks_used + conventions + full + titles
        assert packet.tokens_used == data["tokens_used"]
        assert list(data)[:4] == ["generated", "budget", "tokens_used", "read_order"]
        if budget > tier1 + tasks_used:
            seen = [
                r
                for r in packet.ledger_rows
                if r.section in ("decisions", "learnings") and r.action in ("full", "summary")
            ]
            assert len(seen) == 600  # every entry (none superseded) is full or a title


# -- usage ----------------------------------------------------------------------------------------


def test_profile_usage_errors() -> None:
    ctx = load_context(EXAMPLE_DIR)
    with pytest.raises(UsageError, match="byte estimate"):
        assemble_packet(ctx, 2000, EXAMPLE_NOW, counter="cl100k", profile="ctx-0.8")
    with pytest.raises(UsageError, match="no focus"):
        assemble_packet(ctx, 2000, EXAMPLE_NOW, profile="ctx-0.8", focus="x")
    with pytest.raises(UsageError, match="profile"):
        assemble_packet(ctx, 2000, EXAMPLE_NOW, profile="ctx-9")


def test_display_dir_defaults_to_the_absolute_context_path() -> None:
    packet = assemble_packet(load_context(EXAMPLE_DIR), 2000, EXAMPLE_NOW, profile="ctx-0.8")
    assert packet.read_order[0] == f"{EXAMPLE_DIR / '.context'}/CONSTITUTION.md"


def test_compare_profiles_names_a_rule_for_every_difference() -> None:
    frame = compare_profiles(
        load_context(EXAMPLE_DIR), 2000, EXAMPLE_NOW, display_dir="/home/dev/tidepool/.context"
    )
    differing = frame[frame["design"] != frame["ctx-0.8"]]
    agreeing = frame[frame["design"] == frame["ctx-0.8"]]
    assert len(differing) and len(agreeing)
    assert set(differing["rule"]) <= set(RULES) and differing["rule"].notna().all()
    assert agreeing["rule"].isna().all()
    assert "constitution-regex" in set(differing["rule"])  # the example has real rules


def test_cli_json_compare_and_counter(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from ctx_lab.cli import main

    reference = (PARITY / "agent-budget2000.json").read_text(encoding="utf-8")
    argv = ["packet", str(PARITY / "fixture"), "--profile", "ctx-0.8", "--budget", "2000"]
    argv += ["--now", "2026-11-22T08:32:28Z", "--display-dir", DISPLAY, "--format", "json"]
    assert main(argv) == 0
    assert capsys.readouterr().out == reference
    assert main(["packet", "--example", "--compare", "ctx-0.8", "--budget", "2000"]) == 0
    out = capsys.readouterr().out
    assert "constitution-regex" in out and "items differ" in out
    assert main(["packet", "--example", "--profile", "ctx-0.8", "--counter", "cl100k"]) == 2


def test_every_profile_but_the_design_one_restores_as_its_own_class() -> None:
    """``Packet.from_dict`` finds a profile's class by ``PROFILE_CLASSES`` (imported then, so
    ``_packet`` imports none of its subclasses): every profile has a row, and a ctx-0.8 dict
    loads ``_ctx08`` only when restored."""
    import subprocess
    import sys

    from ctx_lab.choices import PACKET_PROFILES
    from ctx_lab.packet._packet import PROFILE_CLASSES, _profile_class

    assert set(PROFILE_CLASSES) == set(PACKET_PROFILES) - {"design"}
    for profile in PROFILE_CLASSES:
        cls = _profile_class(profile)
        assert issubclass(cls, Packet) and cls is not Packet
    data = ctx08(PARITY / "fixture", 2000, NOW, DISPLAY).to_dict()
    check = (
        "import json, sys\n"
        "from ctx_lab.packet._packet import Packet\n"
        "assert 'ctx_lab.packet._ctx08' not in sys.modules\n"
        "p = Packet.from_dict(json.loads(sys.stdin.read()))\n"
        "print(type(p).__name__, 'ctx_lab.packet._ctx08' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", check], input=json.dumps(data), capture_output=True, text=True
    )
    assert done.stdout.split() == ["CtxPacket", "True"], done.stderr
