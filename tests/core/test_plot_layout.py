"""Plots stay legible: no two pieces of text overlap in the allocation, sweep and usage plots,
at small and large budgets (checked on the rendered figure's text bounding boxes)."""

from __future__ import annotations

import itertools

import pytest

from ctx_lab.conversation._simulate import plot_usage, simulate
from ctx_lab.examples import BUSY_DIR, EXAMPLE_DIR, EXAMPLE_NOW
from ctx_lab.packet import assemble_packet, load_context, plot_sweep, sweep


def overlapping_texts(fig) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    texts = [
        t
        for t in fig.findobj(Text)
        if t.get_visible() and t.get_text().strip() and t.get_alpha() != 0
    ]
    boxes = [(t.get_text(), t.get_window_extent(renderer).shrunk(0.98, 0.9)) for t in texts]
    return [
        (a, b)
        for (a, box_a), (b, box_b) in itertools.combinations(boxes, 2)
        if box_a.overlaps(box_b)
    ]


@pytest.mark.parametrize("budget", [300, 900, 2000, 4000, 12000])
@pytest.mark.parametrize("directory", [EXAMPLE_DIR, BUSY_DIR])
def test_allocation_plot_text_never_overlaps(directory, budget: int) -> None:
    packet = assemble_packet(load_context(directory), budget, EXAMPLE_NOW)
    assert overlapping_texts(packet.plot()) == []


@pytest.mark.parametrize("profile", ["ctx-0.8"])
def test_allocation_plot_of_an_overshooting_packet(profile: str) -> None:
    packet = assemble_packet(load_context(EXAMPLE_DIR), 500, EXAMPLE_NOW, profile=profile)
    assert overlapping_texts(packet.plot()) == []


def test_sweep_plot_text_never_overlaps() -> None:
    frame = sweep(load_context(BUSY_DIR), range(400, 12001, 800), now=EXAMPLE_NOW)
    assert overlapping_texts(plot_sweep(frame)) == []


@pytest.mark.parametrize("size", [400, 1500])
def test_usage_plot_text_never_overlaps(size: int) -> None:
    """Notebook 05's run: events turn after turn (turns 51–80 summarize one after another)."""
    frame = simulate(
        [size] * 80, "gpt-4", switches={30: "gpt-3.5-turbo", 55: "gpt-4"}, counter="bytes/4"
    )
    assert (frame["event"] != "").sum() > 5
    assert overlapping_texts(plot_usage(frame)) == []


def test_allocation_plot_zoomed_for_a_model_budget() -> None:
    packet = assemble_packet(load_context(EXAMPLE_DIR), None, EXAMPLE_NOW, model="gpt-4o")
    assert overlapping_texts(packet.plot()) == []
