"""BudgetExplorer: controls re-assemble the packet, parsing and counting are cached."""

from __future__ import annotations

from ctx_lab.examples import EXAMPLE_DIR, EXAMPLE_NOW
from ctx_lab.notebook import BudgetExplorer
from ctx_lab.packet import load_context


def test_slider_counter_model_and_date_update_everything(monkeypatch) -> None:
    explorer = BudgetExplorer(load_context(EXAMPLE_DIR), budget=2000, now=EXAMPLE_NOW)
    first = explorer.packet
    assert first.budget == 2000 and "2000" in explorer.status.value
    assert bytes(explorer.plot.value).startswith(b"\x89PNG")
    assert "<table" in explorer.table.value
    # the packet tab shows the packet itself (its native renderer's MIME bundle)
    (shown,) = explorer.preview.outputs
    assert "application/vnd.ctx-lab.packet+json" in shown["data"]

    explorer.budget.value = 800
    assert explorer.packet.budget == 800 and explorer.packet.tokens_used <= 800
    assert explorer.packet.to_markdown() != first.to_markdown()

    explorer.counter.value = "cl100k"
    assert explorer.packet.counter == "cl100k"

    explorer.model.value = "gpt-4o"
    assert explorer.packet.budget == 106_036 and explorer.budget.disabled
    assert "est. $" in explorer.status.value

    explorer.model.value = "(budget slider)"
    explorer.date.value = EXAMPLE_NOW.date().replace(month=12)
    assert explorer.packet.generated.startswith("2026-12-15")


def test_reassembly_reuses_parse_and_counts(monkeypatch) -> None:
    explorer = BudgetExplorer(EXAMPLE_DIR, budget=1500, now=EXAMPLE_NOW)
    assembler = explorer.assembler("bytes/4").assembler  # the shared one, under its counter
    calls = []
    original = assembler.counter.count_many

    def counting(texts):
        calls.append(len(texts))
        return original(texts)

    monkeypatch.setattr(
        assembler,
        "counter",
        type(
            "C",
            (),
            {
                "name": "bytes/4",
                "exact": False,
                "count": assembler.counter.count,
                "count_many": staticmethod(counting),
            },
        )(),
    )
    explorer.budget.value = 1550
    explorer.budget.value = 1500
    assert explorer.assembler("bytes/4").assembler is assembler
    # items were counted at the first assembly; later ones only count new header/packet texts
    assert sum(calls) < 10


def test_focus_relevance_and_warnings() -> None:
    from ctx_lab.examples import BUSY_DIR

    explorer = BudgetExplorer(BUSY_DIR, budget=6000, now=EXAMPLE_NOW)
    assert "2 warnings" in explorer.warnings.value and "HTML comment" in explorer.warnings.value
    before = explorer.packet.ledger()
    explorer.focus.value = "journal fsync rotation"
    assert explorer.packet.focus == "journal fsync rotation"
    after = explorer.packet.ledger()
    journal = after[after["keywords"].str.contains("fsync")]
    assert len(journal) and (journal["relevance"] > 0).all()
    assert not before["relevance"].equals(after["relevance"])
    explorer.relevance.value = "bm25"
    assert explorer.packet.relevance == "bm25"
    assert 0 < explorer.packet.ledger()["relevance"].max() <= 1


def test_ctx08_profile_in_the_explorer() -> None:
    explorer = BudgetExplorer(EXAMPLE_DIR, budget=800, now=EXAMPLE_NOW, counter="cl100k")
    explorer.profile.value = "ctx-0.8"
    packet = explorer.packet
    assert packet.profile == "ctx-0.8" and packet.counter == "bytes/4"
    assert explorer.counter.disabled and explorer.focus.disabled
    assert packet.tokens_used > 800 and "over budget by" in explorer.status.value
    assert bytes(explorer.plot.value).startswith(b"\x89PNG")
    explorer.profile.value = "design"
    assert explorer.packet.counter == "cl100k" and explorer.packet.tokens_used <= 800


def test_a_chosen_model_counts_as_the_cli_does() -> None:
    """One counter rule on every surface: no counter chosen + a model = the model's own."""
    from ctx_lab import commands

    explorer = BudgetExplorer(EXAMPLE_DIR, budget=1500, now=EXAMPLE_NOW)
    assert explorer.packet.counter == "bytes/4"  # no model: the CLI's default too
    explorer.model.value = "gpt-4o"
    cli = commands.packet(example=True, model="gpt-4o", now=EXAMPLE_NOW)
    assert explorer.packet.counter == cli.counter == "o200k"
    assert explorer.packet.tokens_used == cli.tokens_used
    assert explorer.packet.exact and explorer.packet.budget == cli.budget == explorer.budget.value
