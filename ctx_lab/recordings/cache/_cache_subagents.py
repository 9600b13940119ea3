"""A Claude Code session's sub-agent recordings (``<id>/subagents/``: Task sub-agents and the
compaction calls), found beside its file and attributed to it: each one's calls, cost, ideal
cost and misses, on its own cache."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ...errors import CtxLabError
from ..transcripts import Transcript
from ._cache_report import CacheReport, SubagentCost

__all__ = ["MAX_SUBAGENTS", "subagent_costs", "subagent_files"]

MAX_SUBAGENTS = 500  # sub-agent files one session's report reads


def subagent_files(transcript: Transcript) -> list[Path]:
    """A Claude Code session's sub-agent recordings: ``<id>/subagents/*.jsonl`` (or
    ``.jsonl.gz``) beside its file (Task sub-agents and the compaction calls), sorted; none for
    any other recording, and none through a symlink."""
    source = transcript.source or ""
    stem = source.removesuffix(".gz")
    if transcript.format != "claude-code" or not stem.endswith(".jsonl"):
        return []
    folder = Path(stem.removesuffix(".jsonl")) / "subagents"
    if not folder.is_dir() or folder.is_symlink():
        return []
    found = [*folder.glob("*.jsonl"), *folder.glob("*.jsonl.gz")]  # packed ones too
    return sorted(p for p in found if p.is_file() and not p.is_symlink())


def subagent_costs(
    transcript: Transcript, simulate: Callable[[Transcript], CacheReport]
) -> tuple[tuple[SubagentCost, ...], list[str]]:
    """Each sub-agent recording of the session, its calls, cost and misses, as ``simulate``
    (the parent's cache report, without sub-agents) prices it on its own cache — a
    sub-agent's requests are its own prefix; what could not be read, said."""
    from ..transcripts import load_transcript

    found, warnings = [], []
    files = subagent_files(transcript)
    if len(files) > MAX_SUBAGENTS:
        warnings.append(f"{len(files):,} sub-agent files: the first {MAX_SUBAGENTS} read")
    for path in files[:MAX_SUBAGENTS]:
        name = f"{path.parent.parent.name}/subagents/{path.name}"
        try:
            report = simulate(load_transcript(path))
        except CtxLabError as exc:
            warnings.append(f"sub-agent {name} not read: {exc}")
            continue
        found.append(
            SubagentCost(
                file=name,
                calls=len(report.calls),
                cost=report.cost.actual,
                ideal=report.cost.ideal,
                misses=sum(1 for c in report.calls if c.miss_cause),
                claim=report.cost.claim,
            )
        )
    return tuple(found), warnings
