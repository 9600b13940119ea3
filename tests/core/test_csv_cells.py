"""Round 3 of the attack on the surfaces that arrived since the last one: each finding of the
hardening issue (N1–N20) with the test that reproduces it."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.hardening  # a theme of the hardening rounds


def test_every_csv_escapes_cells_a_spreadsheet_would_run(tmp_path: Path) -> None:
    import csv
    import io

    from ctx_lab.display import csv_text
    from ctx_lab.packet import assemble_packet, load_context
    from ctx_lab.packet._entries import EntriesReport

    text = csv_text(
        ["a", "b"],
        [['=HYPERLINK("x")', 3], ["@SUM(1)", -2], ["+1", None], ["\tx", "-x"], ["plain", 1.5]],
    )
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[1:] == [
        ['\'=HYPERLINK("x")', "3"],
        ["'@SUM(1)", "-2"],
        ["'+1", ""],
        ["'\tx", "'-x"],
        ["plain", "1.5"],
    ]
    ctx_dir = tmp_path / ".context"
    ctx_dir.mkdir()
    (ctx_dir / "DECISIONS.md").write_text(
        '# Decisions\n\n## [2026-06-01] =HYPERLINK("http://evil","click")\n\nBody.\n'
    )
    report = EntriesReport(packet=assemble_packet(load_context(tmp_path), 2000))
    assert "'=HYPERLINK" in report.to_csv() and "\n=HYPERLINK" not in report.to_csv()
