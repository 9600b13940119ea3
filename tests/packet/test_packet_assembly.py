"""Assembling packets: the design's test list, the budget promise and determinism."""

from __future__ import annotations

import json
import re
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from packet_helpers import decision, make_context
from paths import REPO, TESTS

from ctx_lab.errors import UsageError
from ctx_lab.examples import EXAMPLE_DIR, EXAMPLE_NOW
from ctx_lab.packet import Packet, assemble_packet, load_context
from ctx_lab.packet._markdown import parse_entries
from ctx_lab.packet._scoring import (
    CTX_STOP_WORDS,
    DEFAULT_STOP_WORDS,
    extract_keywords,
    matched_keywords,
    recency_score,
    relevance_score,
    score_entry,
)
from ctx_lab.tokens import count_tokens

FIXTURE = TESTS / "fixtures" / "ctx-parity" / "fixture"
NOW = datetime(2026, 11, 22, 8, 32, 28, tzinfo=UTC)


def md_count(packet: Packet) -> int:
    return count_tokens(packet.to_markdown(), packet.counter)


# -- scoring -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("age", "score"),
    [
        (0, 1.0),
        (7, 1.0),
        (8, 0.7),
        (30, 0.7),
        (31, 0.4),
        (90, 0.4),
        (91, 0.2),
        (400, 0.2),
        (None, 0.2),
    ],
)
def test_recency_brackets(age: int | None, score: float) -> None:
    assert recency_score(age) == score


def test_recency_from_dates_and_future() -> None:
    [entry] = parse_entries(decision("2026-11-14-235959", "Eight days"), "decision")
    assert score_entry(entry, [], date(2026, 11, 22)).age_days == 8
    assert score_entry(entry, [], date(2026, 11, 22)).recency == 0.7
    assert score_entry(entry, [], date(2026, 11, 21)).recency == 1.0
    future = score_entry(entry, [], date(2026, 1, 1))
    assert future.age_days == 0 and future.recency == 1.0


def test_keyword_extraction() -> None:
    keywords = extract_keywords(
        [
            "Add the idempotency keys to POST /invoices",
            "Render invoice PDFs; render again",
            "日本語テキスト処理",
        ]
    )
    assert keywords[:4] == ["idempotency", "keys", "post", "invoices"]
    assert "the" not in keywords and "to" not in keywords and "add" not in keywords
    assert keywords.count("render") == 1
    assert "日本語テキスト処理" in keywords  # Unicode letters are words
    assert CTX_STOP_WORDS <= DEFAULT_STOP_WORDS and len(CTX_STOP_WORDS) == 59
    assert extract_keywords(["alpha beta the"], stop_words={"alpha"}) == ["beta", "the"]


def test_whole_word_matching_with_plurals() -> None:
    assert matched_keywords(["get"], "the budget is fine") == []
    assert matched_keywords(["hook"], "edge cases of hooks") == ["hook"]
    assert matched_keywords(["hooks"], "a hook") == ["hooks"]
    assert matched_keywords(["box"], "many boxes") == ["box"]
    assert matched_keywords(["pdf", "font"], "PDF fonts, font sizes") == ["pdf", "font"]


@pytest.mark.parametrize(("matches", "relevance"), [(0, 0.0), (1, 1 / 3), (3, 1.0), (4, 1.0)])
def test_relevance(matches: int, relevance: float) -> None:
    assert relevance_score(matches) == pytest.approx(relevance)


def test_entry_relevance_counts_distinct_keywords() -> None:
    [entry] = parse_entries(
        decision("2026-11-20-000000", "Redis keys", "Redis idempotency keys TTL"), "d"
    )
    today = date(2026, 11, 22)
    assert score_entry(entry, ["redis"], today).relevance == pytest.approx(1 / 3)
    assert score_entry(entry, ["redis", "keys", "ttl", "idempotency"], today).score == 2.0


def test_superseded_scores_zero() -> None:
    [entry] = parse_entries(decision("2026-11-20-000000", "Old", "~~Superseded by x~~"), "d")
    assert score_entry(entry, ["old"], date(2026, 11, 22)).score == 0.0


# -- assembly ----------------------------------------------------------------------------------


def test_fixture_budget_500_is_kept(tmp_path: Path) -> None:
    ctx = load_context(FIXTURE)
    packet = assemble_packet(ctx, 500, NOW)
    assert packet.tokens_used <= 500  # ctx 0.8.1 used 940 here
    assert packet.tokens_used == md_count(packet)
    assert "## Constitution (NEVER VIOLATE)" in packet.to_markdown()  # ctx never shows it
    assert f"Used: {packet.tokens_used} tokens" in packet.to_markdown()


@pytest.mark.parametrize("budget", [0, 100, 150])
def test_tier1_always_present(budget: int) -> None:
    packet = assemble_packet(load_context(FIXTURE), budget, NOW)
    md = packet.to_markdown()
    assert packet.over_budget
    assert "## Read These Files" in md and "## Constitution" in md
    assert md.rstrip().endswith('following project conventions."')
    assert packet.tasks == () and packet.conventions == () and packet.decisions == ()
    assert packet.summaries == () and "## Current Tasks" not in md
    assert packet.to_dict()["over_budget"] is True


def test_everything_fits_means_nothing_demoted() -> None:
    packet = assemble_packet(load_context(FIXTURE), 8000, NOW)
    assert packet.summaries == () and packet.counted == {}
    ledger = {(r.section, r.title): r for r in packet.ledger_rows}
    assert all(r.action == "full" for r in ledger.values())
    superseded = [r for r in packet.ledger_rows if r.score == 0.0 and r.section == "decisions"]
    assert superseded and all("superseded" in r.reason for r in superseded)


def test_tasks_capped_at_40_percent() -> None:
    ctx = load_context(FIXTURE)
    packet = assemble_packet(ctx, 500, NOW)
    tasks = next(r for r in packet.allocation_rows if r.section == "tasks")
    assert tasks.cap == 200 and tasks.used <= 200 and tasks.counted > 0
    assert "…and" in packet.to_markdown() and "pending tasks in TASKS.md" in packet.to_markdown()
    # in-progress first: the in-progress task is always among those kept
    kept = [r.title for r in packet.ledger_rows if r.section == "tasks" and r.action == "full"]
    assert "Implement PDF rendering for invoices using WeasyPrint" in kept
    # shown in file order
    lines = [line for line in packet.tasks]
    positions = [
        next(i for i, t in enumerate(ctx.pending_tasks) if t.text in line) for line in lines
    ]
    assert positions == sorted(positions)


def test_tasks_priority_newest_then_untagged(tmp_path: Path) -> None:
    pad = "with a description long enough to cost about twenty-five tokens"
    tasks = "".join(
        [
            f"- [ ] untagged first {pad}\n",
            f"- [ ] oldest dated {pad} #added:2026-01-01-000000\n",
            f"- [ ] newest dated {pad} #added:2026-11-01-000000\n",
            f"- [ ] active {pad} #in-progress #added:2025-01-01-000000\n",
            f"- [ ] middle dated {pad} #added:2026-06-01-000000\n",
            f"- [ ] second newest {pad} #added:2026-10-01-000000\n",
            f"- [ ] untagged last {pad}\n",
        ]
    )
    ctx = load_context(make_context(tmp_path, tasks=tasks))
    packet = assemble_packet(ctx, 300, NOW)
    kept = [
        r.title.split(" with")[0]
        for r in packet.ledger_rows
        if r.action == "full" and r.section == "tasks"
    ]
    # in progress, then newest #added first; untagged last; shown in file order
    assert kept == ["newest dated", "active", "middle dated", "second newest"]
    counted = [r for r in packet.ledger_rows if r.section == "tasks" and r.action == "counted"]
    assert [r.title.split(" with")[0] for r in counted] == [
        "untagged first",
        "oldest dated",
        "untagged last",
    ]
    assert all("tasks cap 40 % = 120 tokens reached" in r.reason for r in counted)
    assert packet.tokens_used <= 300


def test_conventions_capped_at_20_percent_first_in_file_order() -> None:
    packet = assemble_packet(load_context(FIXTURE), 700, NOW)
    row = next(r for r in packet.allocation_rows if r.section == "conventions")
    assert row.cap == 140 and row.used <= 140
    kept = [r for r in packet.ledger_rows if r.section == "conventions" and r.action == "full"]
    all_conv = [r for r in packet.ledger_rows if r.section == "conventions"]
    assert kept == all_conv[: len(kept)]  # a prefix: stops at the first that does not fit


def test_remaining_split_and_degradation_order() -> None:
    packet = assemble_packet(load_context(FIXTURE), 2000, NOW)
    rows = {r.section: r for r in packet.allocation_rows}
    ctx_remaining = 2000 - sum(
        rows[s].used
        for s in ("header", "read_order", "constitution", "instruction", "tasks", "conventions")
    )
    assert rows["decisions"].cap + rows["learnings"].cap <= ctx_remaining
    for side in ("decisions", "learnings"):
        side_rows = [
            r for r in packet.ledger_rows if r.section == side and r.action != "superseded"
        ]
        order = {"full": 0, "summary": 1, "counted": 2}
        ranked = sorted(side_rows, key=lambda r: (-r.score, r.date or ""), reverse=False)
        assert {r.action for r in side_rows} >= {"full", "summary"}
        # a full entry never scores below a summarized one by more than what fit allowed
        assert min(order[r.action] for r in ranked[:1]) == 0
    assert all(r.action == "superseded" for r in packet.ledger_rows if r.score == 0.0)
    assert "## Also Noted" in packet.to_markdown()


def test_empty_files_give_empty_sections(tmp_path: Path) -> None:
    ctx = load_context(
        make_context(tmp_path, tasks="# Tasks\n", decisions="", learnings="# Learnings\n")
    )
    packet = assemble_packet(ctx, 2000, NOW)
    data = packet.to_dict()
    for key in (
        "read_order",
        "constitution",
        "tasks",
        "conventions",
        "decisions",
        "learnings",
        "summaries",
    ):
        assert data[key] == []
    assert "## Read These Files" in packet.to_markdown()
    assert packet.tokens_used == md_count(packet)


def test_empty_context_is_valid(tmp_path: Path) -> None:
    (tmp_path / ".context").mkdir()
    packet = assemble_packet(load_context(tmp_path), None, NOW, environ={})
    assert packet.budget == 8000 and not packet.over_budget


def test_budget_precedence(tmp_path: Path) -> None:
    root = make_context(tmp_path, tasks="- [ ] a task\n")
    (root / ".ctxrc").write_text("token_budget: 3000\n")
    ctx = load_context(root)
    assert assemble_packet(ctx, 1000, NOW, environ={"CTX_TOKEN_BUDGET": "2000"}).budget == 1000
    by_model = assemble_packet(ctx, None, NOW, model="gpt-4o", environ={"CTX_TOKEN_BUDGET": "2000"})
    assert by_model.budget == 106_036 and by_model.est_cost_usd is not None
    assert assemble_packet(ctx, None, NOW, environ={"CTX_TOKEN_BUDGET": "2000"}).budget == 2000
    assert assemble_packet(ctx, None, NOW, environ={}).budget == 3000
    (root / ".ctxrc").unlink()
    assert assemble_packet(load_context(root), None, NOW, environ={}).budget == 8000


@pytest.mark.parametrize("bad", [-1, 2.5, "100", True])
def test_bad_budgets(bad: object) -> None:
    with pytest.raises(UsageError):
        assemble_packet(load_context(FIXTURE), bad, NOW)  # type: ignore[arg-type]


def test_same_now_is_byte_identical() -> None:
    ctx = load_context(FIXTURE)
    a = assemble_packet(ctx, 2000, NOW)
    b = assemble_packet(load_context(FIXTURE), 2000, NOW)
    assert a.to_markdown() == b.to_markdown()
    assert a.to_json() == b.to_json()
    assert a.generated == "2026-11-22T08:32:28Z"


def test_naive_and_aware_now() -> None:
    ctx = load_context(FIXTURE)
    aware = assemble_packet(
        ctx, 2000, datetime(2026, 11, 22, 12, 0, tzinfo=timezone(timedelta(hours=2)))
    )
    assert aware.generated == "2026-11-22T10:00:00Z"
    naive = assemble_packet(ctx, 2000, datetime(2026, 11, 22, 12, 0))
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", naive.generated)


def test_malformed_timestamp_in_ledger(tmp_path: Path) -> None:
    ctx = load_context(make_context(tmp_path, decisions=decision("2026-13-45-999999", "Bad date")))
    [row] = [r for r in assemble_packet(ctx, 2000, NOW).ledger_rows if r.section == "decisions"]
    assert row.recency == 0.2 and "malformed timestamp" in row.reason


def test_json_shape_and_round_trip() -> None:
    packet = assemble_packet(load_context(FIXTURE), 2000, NOW, model="gpt-4o")
    data = json.loads(packet.to_json())
    keys = list(data)
    expected = [
        "generated",
        "budget",
        "tokens_used",
        "counter",
        "over_budget",
        "model",
        "est_cost_usd",
        "read_order",
        "constitution",
        "tasks",
        "conventions",
        "steering",
        "decisions",
        "learnings",
        "summaries",
        "instruction",
    ]
    assert keys[: len(expected)] == expected
    assert set(data["decisions"][0]) == {"title", "date", "text", "score"}
    assert set(data["summaries"][0]) == {"section", "title"}
    restored = Packet.from_dict(data)
    assert restored.to_markdown() == packet.to_markdown()
    assert restored.ledger_rows == packet.ledger_rows
    assert Packet.from_json(packet.to_json()) == restored


def test_any_counter_cl100k() -> None:
    packet = assemble_packet(load_context(FIXTURE), 1500, NOW, counter="cl100k")
    assert packet.counter == "cl100k"
    assert packet.tokens_used == count_tokens(packet.to_markdown(), "cl100k") <= 1500


def test_example_project_ships_and_is_pinned() -> None:
    ctx = load_context(EXAMPLE_DIR)
    assert len(ctx.decisions) + len(ctx.learnings) >= 24 and len(ctx.tasks) >= 12
    months = {e.day.month for e in ctx.decisions + ctx.learnings if e.day}
    assert len(months) >= 5
    packet = assemble_packet(ctx, 2000, EXAMPLE_NOW)
    assert packet.generated == "2026-06-15T12:00:00Z" and packet.tokens_used <= 2000


def test_ledger_and_allocation_frames() -> None:
    packet = assemble_packet(load_context(FIXTURE), 2000, NOW)
    ledger = packet.ledger()
    assert list(ledger.columns) == [
        "section",
        "tier",
        "title",
        "date",
        "age_days",
        "recency",
        "relevance",
        "keywords",
        "score",
        "tokens",
        "action",
        "reason",
        "source",
        "warnings",
        "line",
        "rule",
    ]
    assert set(ledger["action"]) <= {"full", "summary", "counted", "superseded"}
    assert len(ledger) == len(packet.ledger_rows)
    allocation = packet.allocation()
    assert list(allocation.columns) == [
        "section",
        "tier",
        "cap",
        "used",
        "full",
        "summary",
        "counted",
    ]
    assert allocation.set_index("section").loc["tasks", "cap"] == 800


def test_rank_order_score_then_newer_then_file_order(tmp_path: Path) -> None:
    decisions = (
        decision("2026-11-01-000000", "Older A")
        + decision("2026-11-20-000000", "Newest")
        + decision("2026-11-01-000000", "Older B")
        + decision(
            "2025-01-01-000000", "Ancient but relevant", "Render invoice PDFs with WeasyPrint fonts"
        )
    )
    tasks = (
        "- [ ] Render invoice PDFs with WeasyPrint fonts #priority:high #added:2026-11-10-000000\n"
    )
    ctx = load_context(make_context(tmp_path, decisions=decisions, tasks=tasks))
    packet = assemble_packet(ctx, 4000, NOW)
    titles = [d.title for d in packet.decisions]
    # recency 0.2 + relevance 1.0 beats 1.0 + 0; equal scores: newer first, then file order
    assert titles == ["Ancient but relevant", "Newest", "Older A", "Older B"]
    [row] = [r for r in packet.ledger_rows if r.title == "Ancient but relevant"]
    assert "priority" not in row.keywords and "high" not in row.keywords  # tags are not words
    assert set(row.keywords) >= {"render", "invoice", "pdfs", "weasyprint", "fonts"}


def test_superseded_absent_when_not_everything_fits() -> None:
    packet = assemble_packet(load_context(FIXTURE), 2000, NOW)
    superseded = [r for r in packet.ledger_rows if r.action == "superseded"]
    assert {r.title for r in superseded} == {
        "Offset pagination for list endpoints",
        "Deploy on a single VM with docker-compose",
    }
    markdown = packet.to_markdown()
    assert all(r.title not in markdown for r in superseded)
    assert all(r.score == 0.0 for r in superseded)


def test_a_lower_scored_entry_that_fits_in_full_says_first_fit() -> None:
    """Entries fill by score; one that fits in full after higher-scored ones did not says so
    in words (first fit), and its score is on the ledger as the reason shows it."""
    packet = assemble_packet(load_context(EXAMPLE_DIR), 1500, EXAMPLE_NOW)
    rows = [r for r in packet.ledger_rows if r.section in ("decisions", "learnings")]
    first_fit = [r for r in rows if r.action == "full" and r.reason.startswith("first fit:")]
    assert first_fit
    for row in first_fit:
        same = [r for r in rows if r.section == row.section and r.score is not None]
        higher = [r for r in same if r.score > row.score and r.action != "full"]
        assert higher  # there really were higher-scored entries left out of full
        assert f"{len(higher)} higher-scored" in row.reason or "higher-scored" in row.reason
        assert f"(score {row.score:.2f})" in row.reason
    plain = [r for r in rows if r.action == "full" and not r.reason.startswith("first fit:")]
    assert all(r.reason.startswith("score ") for r in plain)
    # ledger scores are as displayed: recency + relevance at four decimals (superseded: 0)
    for r in rows:
        if r.action == "superseded":
            continue
        if r.score is not None and r.recency is not None and r.relevance is not None:
            assert r.score == round(r.score, 4)
            assert abs(r.score - (r.recency + r.relevance)) < 1e-3


def _rule_term_counts(text: str) -> dict[str, int]:
    """The word rule itself on the whole text: runs of ≥ 3 letters or digits, lower-cased."""
    from collections import Counter

    found: Counter[str] = Counter()
    for word in re.findall(r"[^\W_]{3,}", text):
        lowered = word.lower()
        if len(lowered) >= 3 and lowered not in DEFAULT_STOP_WORDS:
            found[lowered] += 1
    return dict(found)


@given(
    st.text(
        st.characters(codec=None, exclude_categories=()),  # surrogates, marks, NUL included
        max_size=200,
    )
    | st.text("aAbBzZ09_-. \n\tİßéÉ—ǅ𝔘ΣσςK\u0301\u200d", max_size=200)
)
def test_term_counts_is_the_word_rule(text: str) -> None:
    """The byte-level split gives exactly what the word rule gives, for any text: ASCII
    letters, digits, underscores, non-ASCII letters and marks, separators and lone
    surrogates."""
    from ctx_lab.packet._scoring import term_counts

    assert term_counts(text) == _rule_term_counts(text)


def test_term_counts_on_real_files() -> None:
    """The same on every text file of ../shared/real-data and this package's source."""
    from ctx_lab.packet._scoring import term_counts

    here = REPO
    roots = [here.parent / "shared" / "real-data", here / "ctx_lab"]
    checked = 0
    for root in roots:
        for path in sorted(root.rglob("*")):
            if not path.is_file() or path.stat().st_size > 4_000_000:
                continue
            data = path.read_bytes()
            if b"\x00" in data:
                continue
            text = data.decode("utf-8", "replace")
            assert term_counts(text) == _rule_term_counts(text), path
            checked += 1
    assert checked > 100
