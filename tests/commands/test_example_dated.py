"""The shipped example is dated by its own date however it is opened — with --example, or as
the folder itself (the sidebar's example link and the same folder opened agreed on 1,944 vs
1,936 tokens before)."""

from __future__ import annotations

import json

from ctx_lab.commands._session import Session
from ctx_lab.examples import EXAMPLE_DIR


def test_the_example_folder_and_the_example_flag_give_the_same_packet(run_cli, monkeypatch) -> None:
    code, flagged, _ = run_cli("packet", "--example", "--budget", "2000", "--format", "json")
    assert code == 0
    code, opened, _ = run_cli("packet", str(EXAMPLE_DIR), "--budget", "2000", "--format", "json")
    assert code == 0
    assert json.loads(opened)["tokens_used"] == json.loads(flagged)["tokens_used"] == 1944
    monkeypatch.chdir(EXAMPLE_DIR)  # the nearest .context/, as the sidebar finds it
    code, nearest, _ = run_cli("packet", "--budget", "2000", "--format", "json")
    assert json.loads(nearest)["tokens_used"] == 1944


def test_the_sidebar_s_two_ways_agree_over_rest() -> None:
    session = Session(root=EXAMPLE_DIR.parent)
    link = session.call_query("packet", {"example": ["true"], "budget": ["2000"]})
    folder = session.call_query("packet", {"directory": ["tidepool"], "budget": ["2000"]})
    assert link.tokens_used == folder.tokens_used
