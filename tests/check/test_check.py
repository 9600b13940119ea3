"""``ctx-lab check``: the default rules on the shared long sessions give the findings hand
numbers predict; violations seeded into copies of them are each found once at their call; a
lenient rule set passes the originals; the CI outputs validate against the public JUnit and
SARIF schemas; exit codes tell findings (1) from errors (2)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from lxml import etree
from paths import SHARED

from ctx_lab.check import CheckReport, RuleSet, check_files, load_rules
from ctx_lab.cli import main
from ctx_lab.errors import UsageError

LONG = SHARED / "real-data" / "transcripts" / "marot__spotter" / "long"
OPUS = LONG / "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
HAIKU = LONG / "ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"
SCHEMAS = Path(__file__).resolve().parents[1] / "fixtures" / "schemas"
# Claude's 200,000-token window less its 64,000-token output reserve, less 5 % (the registry's
# effective input budget)
# Claude Code 2.1 runs claude-opus-4-6 in a 200k window and keeps its 33k buffer free: the
# budget of its calls is what it compacts at (167,000), less the 5 % margin
BUDGET = (200_000 - 33_000) * 95 // 100
NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
needs_shared = pytest.mark.skipif(not LONG.is_dir(), reason="../shared/real-data is absent")


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _calls(rows: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any], int]]:
    """By hand: each distinct model response of the main chain (message id), its usage and the
    line it first appears on — the session's calls in order."""
    seen: dict[str, tuple[str, dict[str, Any], int]] = {}
    for number, row in enumerate(rows):
        message = row.get("message")
        if (
            row.get("type") != "assistant"
            or row.get("isSidechain")
            or not isinstance(message, dict)
        ):
            continue
        if message.get("model") == "<synthetic>" or row.get("isApiErrorMessage"):
            continue
        seen.setdefault(message["id"], (message["id"], message.get("usage") or {}, number))
    return list(seen.values())


def _reported(usage: dict[str, Any]) -> int:
    return sum(usage.get(k, 0) for k in
               ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"))  # fmt: skip


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _set_usage(rows: list[dict[str, Any]], message_id: str, **usage: int) -> None:
    for row in rows:
        message = row.get("message")
        if isinstance(message, dict) and message.get("id") == message_id:
            message["usage"] = {**message["usage"], **usage}


@needs_shared
def test_default_rules_on_the_long_sessions_give_the_hand_counted_findings() -> None:
    """The only default rule the long sessions break is the effective budget: the first call of
    each stretch between compactions whose reported input passes 158,650 (Claude Code 2.1's
    compaction point, 167,000, less the 5 % margin)."""
    report = check_files([OPUS, HAIKU], now=lambda: NOW)
    expected = []
    for path in (OPUS, HAIKU):
        rows = _lines(path)
        boundaries = [n for n, r in enumerate(rows) if r.get("subtype") == "compact_boundary"]
        stretch, found = 0, set()
        for index, (_, usage, line) in enumerate(_calls(rows)):
            stretch = sum(b < line for b in boundaries)
            if _reported(usage) > BUDGET and stretch not in found:
                found.add(stretch)
                expected.append((str(path), index + 1, _reported(usage)))
    assert [(f.session, f.call, int(f.value)) for f in report.findings] == expected
    assert {f.code for f in report.findings} == {"CTX106"}
    assert expected[0][1:] == (63, 158_714)  # 8463c716's 63rd call, counted by hand
    assert report.exit_code == 1 and report.checked_at == "2026-03-01T12:00:00"


@needs_shared
def test_seeded_violations_are_each_found_once_at_their_call(tmp_path: Path) -> None:
    rows = _lines(OPUS)
    calls = _calls(rows)
    # a memory file in the first prompt: gone once the compaction drops the prompt
    first = next(r for r in rows if r.get("type") == "user" and not r.get("isSidechain"))
    reminder = (
        "Contents of /home/USER/projects/spotter/CLAUDE.md (project instructions):\n\nUse mix.\n"
    )
    content = first["message"]["content"]
    first["message"]["content"] = (
        reminder + content if isinstance(content, str)
        else [{"type": "text", "text": reminder}, *content]
    )  # fmt: skip
    boundary = next(n for n, r in enumerate(rows) if r.get("subtype") == "compact_boundary")
    compacted = sum(line < boundary for _, _, line in calls)  # the first call after it
    # a tool result of 30,000 bytes/4 tokens, answered by call 30
    answered = calls[30][2]
    result_line = max(
        n for n, r in enumerate(rows[:answered])
        if r.get("type") == "user" and isinstance(r["message"].get("content"), list)
        and any(b.get("type") == "tool_result" for b in r["message"]["content"])
    )  # fmt: skip
    for block in rows[result_line]["message"]["content"]:
        if block.get("type") == "tool_result":
            block["content"] = "x" * 120_000
    # call 40 reads 1,000 tokens of its cache and writes the rest (same input)
    identifier, usage, _ = calls[40]
    total = _reported(usage)
    _set_usage(rows, identifier, input_tokens=0, cache_read_input_tokens=1_000,
               cache_creation_input_tokens=total - 1_000)  # fmt: skip
    seeded = check_files([_write(tmp_path / "opus.jsonl", rows)], now=lambda: NOW)
    original = check_files([OPUS], now=lambda: NOW)
    before = {(f.code, f.call) for f in original.findings}
    new = sorted({(f.code, f.call) for f in seeded.findings} - before)
    # calls count from 1: the 31st call, the first after the compaction, the 41st
    assert new == [("CTX103", 31), ("CTX105", compacted + 1), ("CTX107", 41)]
    assert [f.code for f in seeded.findings].count("CTX103") == 1
    miss = next(f for f in seeded.findings if f.code == "CTX107")
    assert int(miss.value) == _reported(calls[39][1]) - 1_000
    # the one cache engine's cause, as ctx-lab cache names it for the same call
    from ctx_lab.recordings import simulate_cache
    from ctx_lab.recordings.transcripts import load_transcript

    engine = simulate_cache(load_transcript(tmp_path / "opus.jsonl")).calls[40]
    assert engine.call == miss.call == 41 and engine.miss_cause and engine.miss_reason
    assert f"{engine.miss_cause}: {engine.miss_reason}" in miss.message

    # the window filled at the last call (no compaction after it): fill and budget, once each
    rows = _lines(HAIKU)
    identifier, usage, _ = _calls(rows)[-1]
    last = len(_calls(rows))
    _set_usage(rows, identifier, input_tokens=185_000 - _reported(usage) + usage["input_tokens"])
    filled = check_files([_write(tmp_path / "haiku.jsonl", rows)], now=lambda: NOW)
    assert [(f.code, f.call) for f in filled.findings if f.call == last] == [
        ("CTX101", last),
        ("CTX106", last),
    ]


@needs_shared
def test_a_lenient_rule_set_passes_the_originals(tmp_path: Path) -> None:
    lenient = tmp_path / "lenient.toml"
    lenient.write_text("[rules.over-budget]\nenabled = false\n[rules.fill]\npercent = 95\n")
    report = check_files([OPUS, HAIKU], load_rules(lenient))
    assert report.findings == () and report.exit_code == 0
    assert main(["check", str(OPUS), str(HAIKU), "--rules", str(lenient)]) == 0
    assert main(["check", str(OPUS)]) == 1


@needs_shared
def test_junit_and_sarif_validate_against_their_schemas(capsys: pytest.CaptureFixture[str]) -> None:
    report = check_files([OPUS, HAIKU], now=lambda: NOW)
    junit = etree.XMLSchema(etree.parse(str(SCHEMAS / "JUnit.xsd")))
    document = etree.fromstring(report.render("junit").encode())
    assert junit.validate(document), junit.error_log
    failures = document.findall(".//failure")
    assert len(failures) == 1 and all(f.get("type") == "CTX106" for f in failures)
    sarif = json.loads((SCHEMAS / "sarif-schema-2.1.0.json").read_text())
    produced = json.loads(report.render("sarif"))
    jsonschema.Draft7Validator(sarif).validate(produced)
    results = produced["runs"][0]["results"]
    assert [r["properties"]["call"] for r in results] == [f.call for f in report.findings]
    assert main(["check", str(OPUS), "--format", "sarif"]) == 1
    assert json.loads(capsys.readouterr().out)["version"] == "2.1.0"


def test_errors_exit_2_and_name_what_is_wrong(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    session = tmp_path / "s.jsonl"
    session.write_text('{"messages": [{"role": "user", "content": "hi"}]}\n')
    cases = {
        "missing rules": ["check", str(session), "--rules", str(tmp_path / "none.toml")],
        "unknown rule": ["check", str(session), "--rules", str(_toml(tmp_path, "[rules.nope]\n"))],
        "bad value": [
            "check",
            str(session),
            "--rules",
            str(_toml(tmp_path, '[rules.fill]\npercent = "x"\n')),
        ],
        "out of range": [
            "check",
            str(session),
            "--rules",
            str(_toml(tmp_path, "[rules.fill]\npercent = 400\n")),
        ],
        "not TOML": ["check", str(session), "--rules", str(_toml(tmp_path, "[rules\n"))],
        "nested": [
            "check",
            str(session),
            "--rules",
            str(_toml(tmp_path, "a = " + "[" * 5000 + "]" * 5000 + "\n")),
        ],
        "5,000 digits": [
            "check",
            str(session),
            "--rules",
            str(_toml(tmp_path, "[rules.fill]\npercent = 1" + "0" * 5000 + "\n")),
        ],
        "unreadable session": ["check", str(tmp_path / "absent.jsonl")],
        "bad flag": ["check", str(session), "--format", "xml"],
    }
    for what, argv in cases.items():
        assert main(argv) == 2, what
        err = capsys.readouterr().err
        assert "error" in err and "Traceback" not in err, what


def _toml(directory: Path, text: str) -> Path:
    path = directory / f"rules{abs(hash(text))}.toml"
    path.write_text(text)
    return path


def test_rules_files_set_thresholds_and_round_trip(tmp_path: Path) -> None:
    rules = RuleSet.from_dict({"fill": {"percent": 70, "enabled": True},
                               "cache-miss": {"enabled": False}})  # fmt: skip
    assert next(r for r in rules.rules if r.name == "fill").value("percent") == 70
    assert "cache-miss" not in {r.name for r in rules.enabled()}
    report = CheckReport(
        sessions=("a",), findings=(), rules=rules, checked_at="2026-03-01T12:00:00"
    )
    assert CheckReport.from_dict(report.to_dict()).to_dict() == report.to_dict()
    assert load_rules(None).to_dict() == RuleSet.from_dict({}).to_dict()  # the defaults
    with pytest.raises(UsageError, match=r"rules\.fill has no 'size'"):
        load_rules(_toml(tmp_path, "[rules.fill]\nsize = 1\n"))


def test_check_writes_any_format_to_a_file_with_uris_relative_to_the_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``check -o FILE`` (the docs' GitHub Actions step) writes the format asked for, or the
    one its suffix names; SARIF locates each finding relative to the checkout (the working
    directory) under ``%SRCROOT%``, and validates against the 2.1.0 schema."""
    from ctx_lab.examples import SESSIONS_DIR

    checkout = tmp_path / "repo"
    (checkout / "sessions").mkdir(parents=True)
    session = checkout / "sessions" / "coding session.jsonl"
    session.write_bytes((SESSIONS_DIR / "coding-session.jsonl").read_bytes())
    monkeypatch.chdir(checkout)
    assert main(["check", "sessions/coding session.jsonl", "-o", "ctx.sarif"]) == 1
    produced = json.loads((checkout / "ctx.sarif").read_text())
    sarif = json.loads((SCHEMAS / "sarif-schema-2.1.0.json").read_text())
    jsonschema.Draft7Validator(sarif).validate(produced)
    where = produced["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert where["artifactLocation"] == {
        "uri": "sessions/coding%20session.jsonl",
        "uriBaseId": "%SRCROOT%",
    }
    # an absolute path inside the checkout is relative too; one outside it stays absolute
    assert main(["check", str(session), "--format", "sarif", "-o", "abs.sarif"]) == 1
    inside = json.loads((checkout / "abs.sarif").read_text())["runs"][0]["results"][0]
    assert inside["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == (
        "sessions/coding%20session.jsonl"
    )
    from ctx_lab.check._report import artifact

    outside = artifact(str(tmp_path / "elsewhere.jsonl"), str(checkout))
    assert outside["uri"].startswith("file:///") and "uriBaseId" not in outside
    assert artifact("../up.jsonl", str(checkout))["uri"].startswith("file:///")
    # JUnit by suffix or by --format; JSON by suffix
    assert main(["check", "sessions/coding session.jsonl", "-o", "ctx.xml"]) == 1
    junit = etree.XMLSchema(etree.parse(str(SCHEMAS / "JUnit.xsd")))
    assert junit.validate(etree.parse(str(checkout / "ctx.xml")))
    assert main(["check", "sessions/coding session.jsonl", "--format", "junit", "-o", "r"]) == 1
    assert (checkout / "r").read_text().startswith("<?xml")
    assert main(["check", "sessions/coding session.jsonl", "-o", "ctx.json"]) == 1
    assert json.loads((checkout / "ctx.json").read_text())["findings"]
