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
