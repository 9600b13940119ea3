"""Hostile recordings for ``ctx-lab capture --fake`` (issue 62): an alias bomb refused in
bounded memory, numbers JSON has not, statuses a proxy may not send again, values that are not
JSON — each a usage error (exit 2), never a traceback or a 3 GB start-up."""

from __future__ import annotations

import itertools
import json
import tracemalloc
from pathlib import Path

import pytest

from ctx_lab.capture._replay import recorded_answers
from ctx_lab.cli import main
from ctx_lab.errors import UsageError

CALL = {"request": {"model": "m"}, "response": {"id": "r", "model": "m"}}


def alias_bomb() -> str:
    """Nine levels of nine aliases: 883 bytes, 9**9 values once expanded."""
    levels = [
        'a: &a ["xxxxxxxx","xxxxxxxx","xxxxxxxx","xxxxxxxx","xxxxxxxx","xxxxxxxx",'
        '"xxxxxxxx","xxxxxxxx","xxxxxxxx"]'
    ]
    names = "abcdefghi"
    for previous, name in itertools.pairwise(names):
        levels.append(f"{name}: &{name} [" + ",".join([f"*{previous}"] * 9) + "]")
    levels.append(
        "interactions:\n- request: {parsed_body: {model: m}}\n"
        "  response: {status: {code: 200}, parsed_body: {x: *i}}"
    )
    return "\n".join(levels) + "\n"


def test_an_alias_bomb_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(alias_bomb())
    assert len(bomb.read_bytes()) < 1000
    tracemalloc.start()
    try:
        with pytest.raises(UsageError, match="aliases are expanded"):
            recorded_answers(bomb)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * 1024 * 1024


@pytest.mark.parametrize(
    ("name", "content", "needle"),
    [
        ("nan.json", '{"request": {}, "response": {"x": NaN}}', "neither JSON"),
        ("inf.jsonl", '{"request": {}, "response": {"x": Infinity}}\n', "neither JSON"),
        ("nan.yaml", "request: {}\nresponse: {x: .nan}\n", "not finite"),
        ("keys.yaml", "request: {}\nresponse: {1: a}\n", "key that is not a string"),
        ("date.yaml", "request: {}\nresponse: {when: 2026-12-07}\n", "a date value"),
        ("huge.json", '{"request": {}, "response": {"n": 1' + "0" * 5000 + "}}", "digits"),
        (
            "switch.yaml",
            "interactions:\n- request: {parsed_body: {}}\n  response: "
            "{status: {code: 101}, parsed_body: {a: 1}}\n",
            "status 101",
        ),
        (
            "text.yaml",
            "interactions:\n- request: {parsed_body: {}}\n  response: "
            "{status: {code: ok}, parsed_body: {a: 1}}\n",
            "status 'ok'",
        ),
        (
            "empty.yaml",
            "interactions:\n- request: {parsed_body: {}}\n  response: "
            "{status: {code: 304}, parsed_body: {a: 1}}\n",
            "no body",
        ),
    ],
)
def test_what_json_or_a_proxy_has_not_is_a_usage_error(
    tmp_path: Path, name: str, content: str, needle: str, capsys
) -> None:
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(UsageError, match=needle):
        recorded_answers(path)
    assert (
        main(
            ["capture", "--provider", "openai", "--db", str(tmp_path / "c.db"), "--fake", str(path)]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "Traceback" not in err and needle.split()[0] in err


def test_a_plain_recording_still_loads(tmp_path: Path) -> None:
    path = tmp_path / "calls.json"
    path.write_text(json.dumps([CALL, CALL]))
    assert [r.status for r in recorded_answers(path)] == [200, 200]
