"""Real ``.context/`` directories (``../shared/real-data/contexts``, read in place): the packet
keeps its promises on them — every entry the ledger calls counted is counted in the packet,
other layouts yield entries or say why not, and the default relevance discriminates."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from packet_helpers import assert_ledger_visible
from paths import REPO

from ctx_lab.packet import assemble_packet, load_context

CONTEXTS = REPO.parent / "shared" / "real-data" / "contexts"
pytestmark = pytest.mark.skipif(
    not CONTEXTS.is_dir(), reason="../shared/real-data is not beside the checkout"
)
# the --now SOURCES.md suggests for each (the day its files were last written)
NOW = {
    "ActiveMemory__ctx": datetime(2026, 7, 26, 12, tzinfo=UTC),
    "spiffe__spike": datetime(2026, 7, 26, 12, tzinfo=UTC),
    "kamp-us__kampus": datetime(2026, 2, 16, 12, tzinfo=UTC),
    "josealekhine__ActiveMemory": datetime(2026, 1, 29, 12, tzinfo=UTC),
}
DEFAULT_NOW = datetime(2026, 7, 26, 12, tzinfo=UTC)
DIRS = sorted(p.name for p in CONTEXTS.iterdir()) if CONTEXTS.is_dir() else []


@pytest.fixture(scope="module")
def loaded() -> dict[str, object]:
    return {name: load_context(CONTEXTS / name) for name in DIRS}


@pytest.mark.parametrize("budget", [500, 2000, 8000])
@pytest.mark.parametrize("name", DIRS)
def test_every_counted_entry_is_in_the_packet(loaded, name: str, budget: int) -> None:
    packet = assemble_packet(loaded[name], budget, NOW.get(name, DEFAULT_NOW))
    assert_ledger_visible(packet)
    if not packet.over_budget:
        assert not any(r.action == "omitted" for r in packet.ledger_rows)


@pytest.mark.parametrize("name", DIRS)
def test_default_relevance_discriminates(loaded, name: str) -> None:
    ctx = loaded[name]
    packet = assemble_packet(ctx, 8000, NOW.get(name, DEFAULT_NOW))
    scored = [r for r in packet.ledger_rows if r.section in ("decisions", "learnings")]
    if len(scored) >= 50:
        assert len({r.score for r in scored}) >= 10, packet.relevance_reason
    assert packet.relevance in ("keywords", "bm25") and packet.relevance_reason.startswith("auto")


def test_the_cli_offers_the_packet_relevance_rules() -> None:
    from ctx_lab.commands._params import RELEVANCE_CHOICES
    from ctx_lab.packet import RELEVANCE_RULES

    assert RELEVANCE_CHOICES == RELEVANCE_RULES


OTHER_LAYOUTS = ["yokedotlol__certs-lol", "dejth__agentbench"]


@pytest.mark.parametrize("name", [n for n in OTHER_LAYOUTS if n in DIRS])
def test_other_layouts_yield_entries_or_say_why_per_file(loaded, name: str) -> None:
    ctx = loaded[name]
    sources = {e.source for e in (*ctx.decisions, *ctx.learnings)}
    assert ctx.decisions, "numbered decision headers are entries"
    for path in sorted((CONTEXTS / name / ".context").glob("*.md")):
        label = f".context/{path.name}"
        if label in sources:
            continue
        assert label in ctx.read_order, label
        if path.name in ("ARCHITECTURE.md", "GLOSSARY.md", "AGENT_PLAYBOOK.md"):
            continue  # ctx's layout only lists these, in any project
        assert any(w.startswith(f"{label}:") for w in ctx.warnings), label
    packet = assemble_packet(ctx, 2000, DEFAULT_NOW)
    assert packet.decisions and len(packet.warnings) >= 2
    undated = [r for r in packet.ledger_rows if r.section == "decisions" and r.date is None]
    assert undated and all("ranked by relevance alone" in r.reason for r in undated)


def _has_sections(text: str) -> bool:
    return any(line.startswith("#") for line in text.splitlines())


@pytest.mark.parametrize("name", DIRS)
def test_the_layout_report_accounts_for_every_file(loaded, name: str) -> None:
    """Every file read has a line in the layout report; one with Markdown sections is read into
    a tier or named in a warning — never silently left out."""
    ctx = loaded[name]
    read_as = {f.file: f.read_as for f in ctx.layout.files}
    assert ctx.layout.name == "ctx (.context/)"
    assert set(ctx.texts) <= set(read_as)
    for label, text in ctx.texts.items():
        if read_as[label].startswith("not read"):
            assert _has_sections(text) and any(label in w for w in ctx.warnings), label
        elif _has_sections(text) and read_as[label] != "nothing (empty)":
            assert read_as[label].startswith("tier "), (label, read_as[label])
    for folder, why in read_as.items():  # a folder ctx does not read: named in a warning too
        if folder.endswith("/"):
            assert why.startswith("not read") and any(w.startswith(folder) for w in ctx.warnings)
