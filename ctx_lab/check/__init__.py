"""``ctx-lab check``: rules over recorded sessions and captures, with stable codes, for CI — the
window filled without a compaction, a poor cache hit rate, an oversized tool result, tool
definitions crowding the input, a memory file dropped, a call over the effective budget, a large
cache miss with its cause. See :mod:`ctx_lab.check._rules` for the rules file."""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import UTC

from ..clock import Clock, utc_now
from ..errors import CtxLabError, UsageError
from ._report import CheckReport
from ._rules import DEFAULT_RULES, RULES, Rule, RuleSet, load_rules
from ._run import Finding, check_session

__all__ = [
    "DEFAULT_RULES",
    "RULES",
    "CheckReport",
    "Finding",
    "Rule",
    "RuleSet",
    "check_files",
    "check_session",
    "load_rules",
]


def check_files(
    files: Sequence[str | os.PathLike[str]],
    rules: RuleSet | None = None,
    *,
    model: str | None = None,
    counter: str | None = None,
    registry: str | None = None,
    labels: Sequence[str] = (),
    now: Clock | None = None,
) -> CheckReport:
    """``rules`` (default :data:`RULES`) over each session or capture file. A file that cannot
    be read as a session is a :class:`~ctx_lab.errors.UsageError` naming it — ``check`` tells
    an error (exit 2) from a finding (exit 1). ``now``: the clock that dates the report
    (JUnit's timestamp)."""
    from ..anatomy import anatomy_of, capture_transcript, is_capture
    from ..recordings.transcripts import load_transcript

    chosen = rules or RuleSet()
    findings: list[Finding] = []
    notes: list[str] = []
    warnings: list[str] = []
    shown = list(labels) or [os.fspath(f) for f in files]
    for path, label in zip(files, shown, strict=True):
        try:
            transcript = capture_transcript(path) if is_capture(path) else load_transcript(path)
            anatomy = anatomy_of(path, session=True, model=model, counter=counter,
                                 registry=registry, replay=False, label=label)  # fmt: skip
        except UsageError:
            raise
        except CtxLabError as exc:
            raise UsageError(f"cannot check {label}: {exc}") from None
        compacted = [c + 1 for c in transcript.compaction_calls()]  # calls count from 1
        found, said = check_session(label, anatomy, compacted, chosen)
        findings += found
        notes += said
        warnings += [f"{label}: {w}" for w in anatomy.warnings]
    moment = (now or utc_now)().astimezone(UTC).replace(tzinfo=None, microsecond=0)
    return CheckReport(
        sessions=tuple(shown),
        findings=tuple(findings),
        rules=chosen,
        notes=tuple(notes),
        warnings=tuple(warnings),
        checked_at=moment.isoformat(),
    )
