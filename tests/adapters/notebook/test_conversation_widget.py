"""ConversationSimulator without a browser."""

from __future__ import annotations

from ctx_lab.notebook import ConversationSimulator


def test_simulator_fills_summarizes_and_switches() -> None:
    sim = ConversationSimulator("gpt-4")
    for _ in range(9):
        sim.size.value = 400
        sim.add_button.click()
    assert sim.gauge.bar_style == "danger" and "3.6k / 3.9k" in sim.status.value
    sim.add_button.click()
    assert (
        "needs summarization" in sim.status.value and "data-ctx-segment='marked'" in sim.strip.value
    )
    sim.summarize_button.click()
    assert sim.manager.usage_status().state == "ready"
    assert "data-ctx-segment='summary'" in sim.strip.value
    assert any("summarized" in e for e in sim.log)
    sim.model.value = "claude-sonnet-4"
    assert sim.manager.model == "claude-sonnet-4" and "originals restored" in sim.log[-1]
    assert sim.gauge.bar_style == "success"


def test_auto_summarize() -> None:
    sim = ConversationSimulator("gpt-4", auto_summarize=True)
    for _ in range(20):
        sim.add("user", 400)
    assert sim.manager.usage_status().state == "ready" and sim.manager.history.summaries


def test_strip_fits_its_width_with_a_legend() -> None:
    """Each message is a flex share of the strip by its tokens: it never overflows."""
    from ctx_lab.conversation import Message
    from ctx_lab.notebook import ConversationSimulator

    simulator = ConversationSimulator("gpt-4")
    for i in range(300):
        simulator.manager.push_message(Message.user(f"m{i}"))
    html = simulator._strip()
    assert "display:flex" in html and "width:%" not in html.replace(" ", "")
    assert html.count("data-ctx-segment") == 300 and "summary" in html  # the legend
