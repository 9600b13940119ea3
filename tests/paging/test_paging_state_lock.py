"""Round 3 of the attack on the surfaces that arrived since the last one: each finding of the
hardening issue (N1–N20) with the test that reproduces it."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.hardening  # a theme of the hardening rounds


def test_page_state_is_charged_under_a_lock_across_processes(tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    (tmp_path / "big.log").write_text(
        "".join(f"{i} a line of text for paging\n" for i in range(1, 3001))
    )
    script = (
        "import json, sys\n"
        "from ctx_lab import commands\n"
        "from ctx_lab.errors import CtxLabError\n"
        "served = 0\n"
        "for k in range(6):\n"
        "    start = 1 + 50 * (int(sys.argv[1]) * 6 + k)\n"
        "    try:\n"
        "        r = commands.page('big.log', lines=(start, start + 49), root='.',\n"
        "                          state='state.json', max_pages=1000, max_tokens=8000)\n"
        "        served += r.tokens\n"
        "    except CtxLabError:\n"
        "        pass\n"
        "print(served)\n"
    )
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(n)], cwd=tmp_path, stdout=subprocess.PIPE, text=True
        )
        for n in range(8)
    ]
    served = sum(int(w.communicate(timeout=120)[0]) for w in workers)
    recorded = json.loads((tmp_path / "state.json").read_text())
    assert served <= 8000 and served == recorded["tokens_used"] > 6000
