"""How well ctx_lab's figures hold on real recordings it was not tuned on:
``python -m bench.accuracy`` measures every engine on every file of the corpus
(``tests/fixtures/sessions/corpus.toml``) and writes ``docs/accuracy.md``; ``--check`` says
whether the document is current and every figure is at its threshold (the slow tier runs it).

Each threshold is declared once (:data:`THRESHOLDS`): the level an issue asks for, or — where
the corpus shows ctx_lab below that level today — the floor measured now, so that a regression
on any real file is red while the document says, with the numbers, what is still short.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ._corpus import Entry, corpus, shared_present
from ._measure import Calibration, FileResult, measure_calibration, measure_file

__all__ = [
    "THRESHOLDS",
    "Evaluation",
    "Threshold",
    "corpus",
    "evaluate",
    "shared_present",
]


@dataclass(frozen=True)
class Threshold:
    """A figure's bar: ``at_least`` (and ``at_most``) as a share; ``asked`` is what the issue
    asks for when the bar is a floor below it (the document says so beside the figure)."""

    name: str
    what: str
    at_least: float
    at_most: float = 1.0
    asked: str = ""
    asked_at_least: float | None = None  # the bar, where the floor is below it

    def holds(self, value: float | None) -> bool:
        """Whether ``value`` meets the bar (no value: nothing to judge, it holds)."""
        return value is None or self.at_least <= value <= self.at_most

    def short_of_asked(self, value: float | None) -> bool:
        """Whether ``value`` holds the floor but not the bar the issue asks for."""
        return value is not None and self.asked_at_least is not None and value < self.asked_at_least


THRESHOLDS = (
    Threshold("reader", "files whose calls, usage sums and compactions equal the hand counts", 1.0),
    Threshold(
        "cache",
        "calls whose predicted cache read and write are within ±2 % of the reported (sizes "
        "from usage)",
        0.88,
        asked="≥ 95 % (issue 63): the floor is the 88 % measured now (see what is short, below)",
        asked_at_least=0.95,
    ),
    Threshold("recorded", "calls whose recorded-policy input is within 1 % of the bill", 1.0),
    Threshold(
        "check",
        "files whose `check` cache findings (CTX107 cache-miss, CTX102 cache-hit-rate) equal "
        "the hand counts",
        1.0,
    ),
    Threshold(
        "compaction", "recorded auto compactions the claude-code policy places within ±1 call", 1.0
    ),
    Threshold(
        "band",
        "calls inside the calibration's 90 % band, fitted leave-one-session-out",
        0.85,
        0.95,
    ),
)


@dataclass
class Evaluation:
    """Every file's results, the calibration's, and the share each threshold judges."""

    files: list[FileResult]
    calibration: Calibration
    shares: dict[str, float | None] = field(default_factory=dict)

    def failed(self) -> list[Threshold]:
        """The thresholds a figure falls short of."""
        return [t for t in THRESHOLDS if not t.holds(self.shares.get(t.name))]


def _share(hits: int, judged: int) -> float | None:
    return round(hits / judged, 4) if judged else None


def _shares(files: list[FileResult], calibration: Calibration) -> dict[str, float | None]:
    read = [f for f in files if f.reader_exact is not None]
    compacted = [f for f in files if f.compaction_expected is not None]
    checked = [f for f in files if f.findings is not None]
    placed = sum(
        f.compaction_predicted is not None
        and abs(f.compaction_predicted - (f.compaction_expected or 0)) <= 1
        for f in compacted
    )
    return {
        "reader": _share(sum(bool(f.reader_exact) for f in read), len(read)),
        "cache": _share(sum(f.cache_close for f in files), sum(f.cache_judged for f in files)),
        "recorded": _share(
            sum(f.recorded_close for f in files), sum(f.recorded_judged for f in files)
        ),
        "check": _share(sum(f.findings == f.entry.findings for f in checked), len(checked)),
        "compaction": _share(placed, len(compacted)),
        "band": calibration.inside,
    }


def evaluate(entries: list[Entry] | None = None) -> Evaluation:
    """Every engine on every file of the corpus (the shared files only where present)."""
    chosen = entries if entries is not None else corpus()
    files = [measure_file(e) for e in chosen]
    calibration = measure_calibration(chosen)
    return Evaluation(files, calibration, _shares(files, calibration))
