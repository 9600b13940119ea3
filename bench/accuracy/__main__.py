"""``python -m bench.accuracy``: measure the corpus and write ``docs/accuracy.md``;
``--check``: exit 1 when the page is stale or a figure is below its bar (nothing written)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import THRESHOLDS, evaluate, shared_present
from ._render import render

PAGE = Path(__file__).resolve().parents[2] / "docs" / "accuracy.md"


def main(argv: list[str] | None = None) -> int:
    """Run the evaluation; write or check the page."""
    parser = argparse.ArgumentParser(prog="python -m bench.accuracy", description=__doc__)
    parser.add_argument("--check", action="store_true", help="check, write nothing")
    args = parser.parse_args(argv)
    if not shared_present():
        print(
            "../shared/real-data is absent: the page is made from the whole corpus", file=sys.stderr
        )
        return 2
    evaluation = evaluate()
    page = render(evaluation)
    for t in THRESHOLDS:
        value = evaluation.shares.get(t.name)
        shown = "—" if value is None else f"{value:.2%}"
        status = "holds" if t.holds(value) else "BELOW"
        status += " (below what was asked)" if t.holds(value) and t.short_of_asked(value) else ""
        print(f"{t.name:<11} {shown:>8}  {status}  {t.what}")
    failed = evaluation.failed()
    if args.check:
        stale = not PAGE.exists() or PAGE.read_text(encoding="utf-8") != page
        if stale:
            print(f"{PAGE} is stale: run python -m bench.accuracy", file=sys.stderr)
        return 1 if stale or failed else 0
    PAGE.write_text(page, encoding="utf-8")
    print(f"wrote {PAGE}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
