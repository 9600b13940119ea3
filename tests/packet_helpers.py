"""Building small .context/ trees for the packet tests."""

from __future__ import annotations

from pathlib import Path


def decision(stamp: str, title: str, body: str = "**Status**: Accepted") -> str:
    """One DECISIONS.md / LEARNINGS.md entry."""
    return f"## [{stamp}] {title}\n\n{body}\n"


def make_context(root: Path, **files: str) -> Path:
    """Write ``.context/NAME.md`` files (keyword = file stem in upper case); return root."""
    ctx = root / ".context"
    ctx.mkdir(parents=True, exist_ok=True)
    for stem, text in files.items():
        (ctx / f"{stem.upper()}.md").write_text(text, encoding="utf-8")
    return root


def assert_ledger_visible(packet) -> None:  # type: ignore[no-untyped-def]
    """Every ledger action can be seen in the packet: each section's ``counted`` entries in
    its count line (Markdown and JSON), summaries as titles under Also Noted, full decisions
    and learnings among the packet's entries; ``omitted`` only when the line is absent."""
    from collections import Counter

    from ctx_lab.packet._layout import counted_line, noted_line

    markdown = packet.to_markdown()
    counted = Counter(r.section for r in packet.ledger_rows if r.action == "counted")
    assert dict(counted) == {k: v for k, v in packet.to_dict()["counted"].items() if v}
    for section, n in counted.items():
        assert counted_line(section, n) in markdown, (section, n)
    omitted = {r.section for r in packet.ledger_rows if r.action == "omitted"}
    assert not omitted & set(counted), omitted
    full_titles = {e.title for e in (*packet.decisions, *packet.learnings)}
    for r in packet.ledger_rows:
        if r.action == "summary":
            assert noted_line(r.title) in markdown, r.title
        elif r.action == "full" and r.section in ("decisions", "learnings"):
            assert r.title in full_titles, r.title
