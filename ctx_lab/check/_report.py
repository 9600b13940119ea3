"""What ``ctx-lab check`` found, in the forms CI reads: text, JSON, JUnit XML (one test case
per session and rule, a failure per finding) and SARIF 2.1.0 (a result per finding, the rules
as the driver's rules). Exit code 1 when anything was found."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

from .._version import __version__
from ..display import RichResult, escape, html_table, xml_safe
from ._rules import RULES, RuleSet
from ._run import Finding

__all__ = ["CheckReport"]

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


@dataclass(frozen=True, kw_only=True)
class CheckReport(RichResult):
    """The findings over ``sessions`` (their sources) under ``rules``."""

    sessions: tuple[str, ...]
    findings: tuple[Finding, ...]
    rules: RuleSet = field(default_factory=RuleSet)
    notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    checked_at: str = ""  # ISO 8601, UTC, to the second (JUnit's timestamp): the caller's clock

    payload_kind = "check"

    @property
    def exit_code(self) -> int:  # type: ignore[override]
        """1 when anything was found, else 0."""
        return 1 if self.findings else 0

    def to_dict(self) -> dict[str, Any]:
        """The findings, the sessions, the rules in force. Hand-written: the rules' table."""
        return {
            "sessions": list(self.sessions),
            "findings": [f.to_dict() for f in self.findings],
            "rules": self.rules.to_dict(),
            "rules_from": self.rules.source,
            "notes": list(self.notes),
            "warnings": list(self.warnings),
            "checked_at": self.checked_at,
        }

    @classmethod
    def from_dict(cls, data: Any) -> CheckReport:
        """The inverse of :meth:`to_dict`."""
        rules = RuleSet.from_dict(data["rules"], data["rules_from"])
        findings = tuple(Finding(**f) for f in data["findings"])
        return cls(
            sessions=tuple(data["sessions"]),
            findings=findings,
            rules=rules,
            notes=tuple(data.get("notes", ())),
            warnings=tuple(data.get("warnings", ())),
            checked_at=str(data.get("checked_at", "")),
        )

    def _head(self) -> str:
        sessions = f"{len(self.sessions)} session{'' if len(self.sessions) == 1 else 's'}"
        if not self.findings:
            return f"clean: {sessions}, {len(self.rules.enabled())} rules ({self.rules.source})"
        found = f"{len(self.findings)} finding{'' if len(self.findings) == 1 else 's'}"
        return f"{found} in {sessions} ({self.rules.source})"

    def to_text(self) -> str:
        """A line per finding: session, call, code, message."""
        lines = [self._head()]
        lines += [f"{f.session}: call {f.call}: {f.code} {f.rule}: {f.message} [{f.claim}]"
                  for f in self.findings]  # fmt: skip
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)

    def html_body(self) -> str:
        """The summary line and a table of findings."""
        rows = [[f.session, f.call, f.code, f.rule, f.category, f.message] for f in self.findings]
        table = html_table(["session", "call", "code", "rule", "category", "message"], rows,
                           numeric=(1,)) if rows else ""  # fmt: skip
        if table:
            table = f'<div data-ctx-check-findings="{len(rows)}">{table}</div>'
        return f"<h4 data-ctx-check>{escape(self._head())}</h4>{table}"

    def render(self, fmt: str = "text") -> str:
        """``text``, ``json``, ``junit`` or ``sarif``."""
        if fmt == "junit":
            return self.to_junit()
        if fmt == "sarif":
            return json.dumps(self.to_sarif(), indent=2, ensure_ascii=False) + "\n"
        return super().render(fmt)

    def file_output(self, path: str, fmt: str = "text") -> str | bytes:
        """What ``-o path`` writes: ``fmt`` when one was asked for, else the format the file's
        suffix names (``.sarif``, ``.xml``: JUnit, ``.json``), else text."""
        if fmt == "text":
            fmt = SUFFIX_FORMATS.get(Path(path).suffix.lower(), "text")
        return self.render(fmt)

    def to_junit(self) -> str:
        """JUnit XML (the Ant JUnit schema): a test suite per session, a test case per enabled
        rule, failed (one ``failure`` listing them) when the rule found anything."""
        suites = ET.Element("testsuites")
        rules = self.rules.enabled()
        for number, session in enumerate(self.sessions):
            mine = [f for f in self.findings if f.session == session]
            suite = ET.SubElement(suites, "testsuite", {
                "package": "ctx-lab.check", "id": str(number), "name": session,
                "timestamp": self.checked_at or "1970-01-01T00:00:00", "hostname": "localhost",
                "tests": str(len(rules)), "failures": str(len({f.code for f in mine})),
                "errors": "0", "time": "0",
            })  # fmt: skip
            properties = ET.SubElement(suite, "properties")
            ET.SubElement(properties, "property", name="rules", value=self.rules.source)
            for rule in rules:
                case = ET.SubElement(suite, "testcase", name=f"{rule.code} {rule.name}",
                                     classname=session, time="0")  # fmt: skip
                theirs = [f for f in mine if f.code == rule.code]
                if theirs:  # one failure per test case (the schema allows no more)
                    first = theirs[0]
                    failure = ET.SubElement(
                        case, "failure", type=rule.code,
                        message=f"{len(theirs)} finding(s); call {first.call}: {first.message}",
                    )  # fmt: skip
                    failure.text = "\n".join(f"call {f.call}: {f.message}" for f in theirs)
            ET.SubElement(suite, "system-out").text = ""
            ET.SubElement(suite, "system-err").text = "\n".join(
                n for n in self.notes if n.startswith(f"{session}:")
            )
        ET.indent(suites)
        # a session's or tool's name may hold characters XML 1.0 forbids: shown as \xNN
        document = xml_safe(ET.tostring(suites, "unicode"))
        return '<?xml version="1.0" encoding="UTF-8"?>\n' + document + "\n"

    def to_sarif(self, base: str | None = None) -> dict[str, Any]:
        """SARIF 2.1.0: one run, the rules as the driver's, a result per finding located in its
        session file — relative to ``base`` (default: the working directory, a CI job's
        checkout) with the ``%SRCROOT%`` base id, as code-scanning services resolve it — the
        call as a logical location."""
        driver = {
            "name": "ctx-lab",
            "version": __version__,
            "rules": [
                {"id": r.code, "name": r.name, "shortDescription": {"text": r.summary}}
                for r in RULES
            ],
        }
        index = {r.code: i for i, r in enumerate(RULES)}
        results = [
            {
                "ruleId": f.code,
                "ruleIndex": index[f.code],
                "level": "error",
                "message": {"text": f"call {f.call}: {f.message}"},
                "locations": [
                    {
                        "physicalLocation": {"artifactLocation": artifact(f.session, base)},
                        "logicalLocations": [{"name": f"call {f.call}", "kind": "call"}],
                    }
                ],
                "properties": {
                    "call": f.call,
                    "category": f.category,
                    "value": f.value,
                    "threshold": f.threshold,
                },
            }
            for f in self.findings
        ]
        return {
            "$schema": SARIF_SCHEMA,
            "version": "2.1.0",
            "runs": [{"tool": {"driver": driver}, "results": results}],
        }


# SARIF 2.1.0 §3.4.4: "%SRCROOT%" names the root of the source tree, the base a relative
# artifactLocation.uri is resolved against (https://docs.oasis-open.org/sarif/sarif/v2.1.0/,
# read 2026-12-07); GitHub code scanning resolves it to the checkout
SRCROOT = "%SRCROOT%"
SUFFIX_FORMATS = {".sarif": "sarif", ".xml": "junit", ".json": "json"}


def artifact(path: str, base: str | None = None) -> dict[str, str]:
    """A session file as a SARIF ``artifactLocation``: a relative URI under ``%SRCROOT%``
    (``base``, default the working directory) where the file is inside it, else an absolute
    ``file:`` URI (forward slashes, reserved characters escaped)."""
    from urllib.parse import quote

    target = Path(path.replace("\\", "/"))
    root = Path(base) if base is not None else Path.cwd()
    if target.is_absolute():
        try:
            target = target.relative_to(root)
        except ValueError:
            return {"uri": target.as_uri()}
    parts = [p for p in target.as_posix().split("/") if p not in ("", ".")]
    if ".." in parts:  # outside the source tree: where it is, absolutely
        return {"uri": Path(os.path.abspath(root / target)).as_uri()}  # lexically, no links
    return {"uri": quote("/".join(parts), safe="/._-~"), "uriBaseId": SRCROOT}
