"""ctx-lab packet / entries and %ctx packet: formats, -o, --example, bad input."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from paths import TESTS

from ctx_lab.packet import Packet
from ctx_lab.packet._packet import LEDGER_COLUMNS
from ctx_lab.tokens import count_tokens

FIXTURE = TESTS / "fixtures" / "ctx-parity" / "fixture"


def test_packet_example_markdown(run_cli) -> None:
    code, out, _ = run_cli("packet", "--example", "--budget", "2000")
    assert code == 0
    assert out.startswith("# Context Packet\nGenerated: 2026-06-15T12:00:00Z | Budget: 2000 tokens")
    assert count_tokens(out, "bytes/4") <= 2000


def test_packet_json_and_output_file(run_cli, tmp_path: Path) -> None:
    target = tmp_path / "packet.json"
    code, out, _ = run_cli(
        "packet",
        str(FIXTURE),
        "--budget",
        "1500",
        "--now",
        "2026-11-22T08:32:28Z",
        "--format",
        "json",
        "-o",
        str(target),
    )
    assert code == 0 and out == ""
    data = json.loads(target.read_text())
    assert data["budget"] == 1500 and data["tokens_used"] <= 1500
    assert [p.name for p in tmp_path.iterdir()] == ["packet.json"]  # no temporary left behind
    assert Packet.from_dict(data).tokens_used == data["tokens_used"]


def test_packet_model_budget(run_cli) -> None:
    code, out, _ = run_cli("packet", "--example", "--model", "llama-3-70b", "--format", "json")
    assert code == 0 and json.loads(out)["budget"] == 3892


def test_packet_counter_cl100k(run_cli) -> None:
    code, out, _ = run_cli("packet", "--example", "--budget", "1200", "--counter", "cl100k")
    assert code == 0 and count_tokens(out, "cl100k") <= 1200 and "(cl100k)" in out


def test_entries_formats(run_cli) -> None:
    code, out, _ = run_cli("entries", "--example", "--budget", "1500", "--format", "json")
    rows = json.loads(out)
    assert code == 0 and isinstance(rows, list)
    assert list(rows[0]) == list(LEDGER_COLUMNS)  # the columns themselves: test_packet_assembly
    assert {r["action"] for r in rows} >= {"full", "summary"}
    code, out, _ = run_cli("entries", "--example", "--budget", "1500", "--format", "csv")
    parsed = list(csv.DictReader(io.StringIO(out)))
    assert len(parsed) == len(rows) and parsed[0]["section"] == "constitution"
    code, out, _ = run_cli("entries", "--example", "--budget", "1500")
    assert "1500 tokens" in out.splitlines()[0] and "section" in out.splitlines()[2]


@pytest.mark.parametrize(
    ("argv", "code", "needle"),
    [
        (["packet", "--example", "--budget", "-1"], 2, "negative"),
        (["packet", "--example", "--budget", "1.5"], 2, "whole number"),
        (["packet", "--example", "--budget", "10", "--model", "gpt-4o"], 2, "not allowed"),
        (["packet", "--example", "--now", "yesterday"], 2, "ISO 8601"),
        (["packet", "/definitely/not/here"], 1, "no such directory"),
        (["packet", "--example", "--counter", "nope"], 2, "valid counters"),
        (["entries", "--example", "--format", "xml"], 2, "table"),
    ],
)
def test_packet_bad_input(run_cli, argv, code, needle) -> None:
    got, _, err = run_cli(*argv)
    assert got == code and needle in err and "Traceback" not in err


def test_packet_magic(ip) -> None:
    packet = ip.run_line_magic("ctx", "packet --example --budget 2000")
    assert isinstance(packet, Packet) and packet.budget == 2000
    bundle = packet._repr_mimebundle_()
    payload = bundle["application/vnd.ctx-lab.packet+json"]
    assert payload["version"] == 1 and payload["ledger"] and payload["allocation"]
    entries = ip.run_line_magic("ctx", "entries --example --budget 2000")
    assert entries.json_data()[0]["section"] == "constitution"


def test_a_folder_inside_a_project_packs_the_nearest_project_above(run_cli, tmp_path) -> None:
    import shutil

    from ctx_lab.examples import EXAMPLE_DIR

    shutil.copytree(EXAMPLE_DIR, tmp_path / "proj")
    (tmp_path / "proj" / "src" / "deep").mkdir(parents=True)
    code, out, err = run_cli("packet", str(tmp_path / "proj" / "src" / "deep"), "--budget", "800")
    assert code == 0 and out.startswith("# Context Packet")
    assert "has no .context/: the nearest project above it" in err
    code, _, err = run_cli("packet", str(tmp_path), "--budget", "800")  # none above: as before
    assert code == 1 and ".context" in err


def test_context_takes_an_absolute_path_as_packet_does(run_cli, tmp_path, monkeypatch) -> None:
    """``ctx-lab context ABSPATH`` from anywhere finds the project as ``packet`` does (it was
    refused as outside the working directory); ``--root`` still confines."""
    import shutil

    from ctx_lab.examples import EXAMPLE_DIR

    project = tmp_path / "proj"
    shutil.copytree(EXAMPLE_DIR / ".context", project / ".context")
    (project / "src").mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    code, out, err = run_cli("context", str(project / "src"))
    assert code == 0 and out.splitlines()[0] == str(project), err
    assert "  .context/TASKS.md → tier 2 tasks:" in out  # the layout report follows
    assert run_cli("packet", str(project), "--budget", "800")[0] == 0
    code, _, err = run_cli("context", str(project), "--root", str(elsewhere))
    assert code == 1 and "outside --root" in err
