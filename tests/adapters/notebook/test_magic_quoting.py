"""The sidebar's "Insert %ctx packet cell" writes a line that runs exactly what it says, for any
folder name: IPython's own expansion (``{…}``, ``$name``) and the magic's shell-style splitting
(spaces, ``-o``) must not turn a name into code or flags. The line comes from the lab
extension's own ``magicLine`` (run in Node), and runs in a real IPython shell."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from paths import REPO

from ctx_lab.examples import EXAMPLE_DIR
from ctx_lab.packet import Packet

LIB = REPO / "labextension" / "lib" / "magic.js"

HOSTILE_NAMES = [
    '{open("pwned", "w").write("1")}',
    "{__import__('os').system('touch pwned')}",
    "$HOME",
    "${HOME}",
    "a b -o pwned",
    "-o",
    "--budget",
    "it's; touch pwned",
    '"quoted"',
    "{{double}}",
    "tab\there",
    "ünïcode ✓",
    "back\\slash",
    "!ls",
    "new\nline; import os; os.system('touch pwned')",
    "carriage\rreturn",
    "sep\u2028arator\u2029para",
    "form\x0cfeed\x1cgroup",
]


def magic_lines(names: list[str]) -> list[str]:
    node = shutil.which("node")
    if node is None or not LIB.is_file():
        pytest.fail(
            "build the lab extension first (bash scripts/test.sh builds it): need node and "
            + str(LIB)
        )
    script = (
        f"import {{ magicLine }} from {json.dumps(LIB.as_uri())};"
        "const names = JSON.parse(process.argv[1]);"
        "console.log(JSON.stringify(names.map(n => magicLine('packet', "
        "[['--budget', '2000'], ['--counter', 'bytes/4']], [n]))));"
    )
    done = subprocess.run(
        [node, "--no-warnings", "--input-type=module", "-e", script, json.dumps(names)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(done.stdout)


def test_hostile_folder_names_run_as_names(ip, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home-must-not-appear"))
    ip.user_ns["HOME"] = "namespace-must-not-appear"
    for name in HOSTILE_NAMES:
        shutil.copytree(EXAMPLE_DIR / ".context", tmp_path / name / ".context")
    for name, line in zip(HOSTILE_NAMES, magic_lines(HOSTILE_NAMES), strict=True):
        outcome = ip.run_cell(line, store_history=False)
        assert outcome.error_in_exec is None and outcome.error_before_exec is None, (name, line)
        packet = outcome.result
        assert isinstance(packet, Packet), (name, line)
        assert packet.budget == 2000 and packet.counter == "bytes/4"
        assert not (tmp_path / "pwned").exists(), (name, line)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(HOSTILE_NAMES)
