"""Inputs declared once: a parameter declared ``Param(input=…)`` is confined to the call's root
by the declaration (``inputs_confined``) — for every surface and for Python callers alike —
and no command confines its own inputs."""

from __future__ import annotations

import inspect
import os
import re
from pathlib import Path

import pytest

from ctx_lab.commands import commands
from ctx_lab.commands._param import specs
from ctx_lab.errors import PathOutsideRoot
from tests.paths import REPO


def _declared() -> list[tuple[str, str, str]]:
    found = []
    for name, command in sorted(commands().items()):
        for spec in specs(command.function):
            if spec.param.input:
                found.append((name, spec.name, spec.param.input))
    return found


DECLARED = _declared()


def test_the_commands_that_read_files_declare_them() -> None:
    named = {(c, p) for c, p, _ in DECLARED}
    for pair in [
        ("anatomy", "file"),
        ("cache", "file"),
        ("check", "file"),
        ("check", "rules"),
        ("history", "file"),
        ("journal", "db"),
        ("replay", "file"),
        ("calibrate", "files"),
        ("calibrate", "evaluate"),
        ("policies", "file"),
        ("build", "task_file"),
        ("compress", "file"),
        ("tokens", "paths"),
    ]:
        assert pair in named, pair


def _call(command: str, parameter: str, value: object, root: Path) -> None:
    """The command's function with ``parameter`` given, every other required one a stand-in
    (confinement runs before the body does)."""
    function = commands()[command].function
    signature = inspect.signature(function)
    args = {
        name: "x"
        for name, p in signature.parameters.items()
        if p.default is inspect.Parameter.empty and name != parameter
    }
    spec = next(s for s in specs(function) if s.name == parameter)
    args[parameter] = [value] if spec.array else value
    function(**args, root=root)


@pytest.mark.parametrize(("command", "parameter", "label"), DECLARED)
def test_a_declared_input_outside_the_root_is_refused(
    tmp_path: Path, command: str, parameter: str, label: str
) -> None:
    root = tmp_path / "root"
    root.mkdir()
    outside = tmp_path / "secret.jsonl"
    outside.write_text("{}\n")
    os.symlink(outside, root / "link.jsonl")
    for value in (str(outside), "../secret.jsonl", "link.jsonl"):
        with pytest.raises(PathOutsideRoot, match=re.escape(label)):
            _call(command, parameter, value, root)


def test_no_command_confines_its_own_inputs() -> None:
    """The declaration does it (``_param.inputs_confined``): one other ``confine`` remains,
    the packet's look upward for a project (its files are named by the path as given), and it
    says why."""
    calls = {
        path.name: path.read_text(encoding="utf-8").count("confine(root,")
        for path in (REPO / "ctx_lab" / "commands").glob("*.py")
    }
    assert {name: n for name, n in calls.items() if n} == {"_packet.py": 1, "_param.py": 1}
