"""Session content holding control characters (issue 62): JUnit stays well-formed XML, and no
text output hands a terminal an escape sequence to obey."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree as ET

from ctx_lab.check import CheckReport, RuleSet
from ctx_lab.check._run import Finding
from ctx_lab.cli import main
from ctx_lab.display import terminal_safe, xml_safe

HOSTILE = "tool\x01name\x1b[2J\x9b31m"


def test_junit_with_control_characters_parses() -> None:
    finding = Finding(code="CTX103", rule="tool-result", session=HOSTILE + ".jsonl", call=3,
                      category="tools", message=f"a {HOSTILE} result of 30,000 tokens",
                      value=30_000.0, threshold=25_000.0)  # fmt: skip
    report = CheckReport(sessions=(HOSTILE + ".jsonl",), findings=(finding,), rules=RuleSet(),
                         checked_at="2026-03-01T12:00:00")  # fmt: skip
    root = ET.fromstring(report.to_junit().split("\n", 1)[1])
    suite = root.find("testsuite")
    assert suite is not None and suite.get("name") == "tool\\x01name\\x1b[2J\x9b31m.jsonl"
    sarif = json.loads(report.render("sarif"))
    assert sarif["runs"][0]["results"][0]["ruleId"] == "CTX103"


def test_text_outputs_show_control_characters_never_obey_them(tmp_path: Path, capsys) -> None:
    assert terminal_safe(HOSTILE) == "tool\\x01name\\x1b[2J\\x9b31m"
    assert json.loads(terminal_safe(json.dumps(HOSTILE, ensure_ascii=False), "json")) == HOSTILE
    assert xml_safe("a\tb\x0bc") == "a\tb\\x0bc"
    session = tmp_path / "s.jsonl"
    session.write_text(json.dumps({"messages": [{"role": "user", "content": HOSTILE}]}) + "\n")
    for argv in (["tokens", str(session)], ["check", str(session)],
                 ["check", str(session), "--format", "junit"],
                 ["anatomy", str(session), "--session"]):  # fmt: skip
        main(argv)
        out = capsys.readouterr().out
        assert "\x1b" not in out and "\x9b" not in out and "\x01" not in out, argv
    named = tmp_path / f"{HOSTILE}.jsonl"
    named.write_bytes(session.read_bytes())
    main(["check", str(named)])
    assert "\x1b" not in capsys.readouterr().out
