"""Round 3 of the attack on the surfaces that arrived since the last one: each finding of the
hardening issue (N1–N20) with the test that reproduces it."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctx_lab.cli import main as cli_main
from ctx_lab.errors import CtxLabError

pytestmark = pytest.mark.hardening  # a theme of the hardening rounds


def test_lone_surrogates_never_enter_a_history_that_must_save(tmp_path: Path) -> None:
    from ctx_lab.conversation import ContextManager, Message
    from ctx_lab.errors import UsageError

    manager = ContextManager("gpt-4o", counter="bytes/4")
    with pytest.raises(UsageError, match="unpaired surrogate"):
        manager.set_system_prompt("prompt \ud800")
    with pytest.raises(UsageError, match="unpaired surrogate"):
        manager.set_tools([{"name": "t", "description": "x \udfff"}])
    with pytest.raises(UsageError, match="JSON data"):
        manager.set_tools([{"name": object()}])

    class Broken:
        name = "broken"

        def summarize(self, pending, target_tokens):  # type: ignore[no-untyped-def]
            return "summary \ud83d"

    small = ContextManager("gpt-4o", counter="bytes/4", preserve_recent=2)
    for i in range(400):
        small.push_message(Message.user(f"message {i} " + "words " * 400))
    with pytest.raises(CtxLabError):
        small.summarize_pending(Broken())
    assert len(small.history.summaries) == 0
    small.save(tmp_path / "h.json")  # still saves
    assert ContextManager.load(tmp_path / "h.json").history.summaries == []


@pytest.mark.parametrize(
    "context",
    [
        [],
        "x",
        {"tools": "not a list"},
        {"system_prompt": 5},
        {"counter": 7},
        {"target_ratio": "high"},
        {"preserve_recent": -1},
        {"output_limit": "a lot"},
    ],
)
def test_a_history_with_damaged_settings_is_history_corrupted(
    tmp_path: Path, context: object, capsys
) -> None:
    import json

    from ctx_lab.conversation import ContextManager, Message
    from ctx_lab.errors import HistoryCorrupted

    manager = ContextManager("gpt-4o", counter="bytes/4")
    manager.push_message(Message.user("hello"))
    path = manager.save(tmp_path / "h.json")
    data = json.loads(path.read_text())
    data["context"] = context
    path.write_text(json.dumps(data))
    with pytest.raises(HistoryCorrupted):
        ContextManager.load(path)
    assert cli_main(["history", str(path)]) == 1
    assert "error:" in capsys.readouterr().err
