"""Every figure of ``cache``, ``policies``, ``replay``, ``anatomy``, ``check`` and ``calibrate``
JSON carries how it was made (``claim``): walked on real sessions of three agents, and the
labels that matter checked where they must hold."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctx_lab.claims import claim_of, unlabelled
from tests.paths import RECORDED, SHARED

REAL = SHARED / "real-data" / "transcripts"
CLAUDE = REAL / "marot__spotter" / "subagent.jsonl"
CODEX = (
    REAL
    / "codemie-ai__codemie-code"
    / ("rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl")
)
GEMINI = REAL / "codemie-ai__codemie-code" / "session-2026-01-16T11-01-file-ops-37b7abef.json"
HELD_BACK = RECORDED / "codemie-ai__codemie-code" / "session-9eda1058.jsonl.gz"
SESSIONS = [CLAUDE, CODEX, GEMINI, HELD_BACK]
COMMANDS = [["cache"], ["cache", "--sizes", "counts"], ["policies"], ["replay"],
            ["anatomy", "--session"], ["check"]]  # fmt: skip

pytestmark = pytest.mark.skipif(not REAL.is_dir(), reason="../shared/real-data is absent")


def _json(run_cli, *argv: str) -> dict:  # type: ignore[no-untyped-def,type-arg]
    code, out, err = run_cli(*argv, "--format", "json")
    assert code in (0, 1), err  # check exits 1 on findings
    return json.loads(out)


@pytest.mark.parametrize("session", SESSIONS, ids=lambda p: Path(p).name[:24])
@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_no_figure_without_its_claim(run_cli, command: list[str], session: Path) -> None:  # type: ignore[no-untyped-def]
    payload = _json(run_cli, *command[:1], *command[1:], str(session))
    assert unlabelled(payload) == []


def test_calibrate_and_its_evaluation_say_estimated(run_cli) -> None:  # type: ignore[no-untyped-def]
    fitted = _json(run_cli, "calibrate", str(CODEX))
    assert unlabelled(fitted) == [] and fitted["claim"] == "estimated"
    evaluated = _json(run_cli, "calibrate", str(CODEX), "--evaluate", str(CODEX))
    assert unlabelled(evaluated) == []
    row = evaluated["rows"][0]
    assert claim_of(row["claim"], "reported") == "billed"
    assert claim_of(row["claim"], "estimate") == "estimated"


def test_the_labels_say_how_each_figure_was_made(run_cli) -> None:  # type: ignore[no-untyped-def]
    usage = _json(run_cli, "cache", str(CLAUDE))
    assert {c["claim"] for c in usage["calls"]} == {"simulated"}  # rules on billed sizes
    assert {c["reported"]["claim"] for c in usage["calls"]} == {"billed"}
    assert claim_of(usage["cost"]["claim"], "actual") == "billed"
    assert claim_of(usage["cost"]["claim"], "no_cache") == "simulated"
    counted = _json(run_cli, "cache", "--sizes", "counts", str(CLAUDE))
    assert {c["claim"] for c in counted["calls"]} == {"estimated"}

    policies = {p["name"]: p for p in _json(run_cli, "policies", str(CLAUDE))["policies"]}
    assert claim_of(policies["recorded"]["claim"], "cost") == "billed"
    assert claim_of(policies["recorded"]["claim"], "probes") == "estimated"
    assert {c["claim"] for c in policies["recorded"]["calls"]} == {"billed"}
    assert {p["claim"] for name, p in policies.items() if name != "recorded"} == {"open-loop"}

    anatomy = _json(run_cli, "anatomy", "--session", str(CLAUDE))
    row = anatomy["rows"][-1]
    assert claim_of(row["claim"], "reported_input") == "billed"
    assert claim_of(row["claim"], "total") == "estimated"
    assert claim_of(row["claim"], "cache_read_predicted") == "simulated"
    assert all(claim_of(a["claim"], "saving_tokens") == "open-loop" for a in anatomy["advice"])

    replay = _json(run_cli, "replay", str(CLAUDE))
    assert claim_of(replay["rows"][0]["claim"], "billed_input") == "billed"
    assert claim_of(replay["rows"][0]["claim"], "context_tokens") == "open-loop"


def test_a_recorded_policy_without_usage_is_estimated_not_billed(run_cli) -> None:  # type: ignore[no-untyped-def]
    rollout = (
        REAL
        / "codemie-ai__codemie-code"
        / ("rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl")
    )
    recorded = _json(run_cli, "policies", str(rollout), "--policy", "recorded", "--model", "gpt-5")[
        "policies"
    ][0]
    assert recorded["claim"] == "estimated"
    assert unlabelled(recorded) == []
