"""Bounded fuzz of the MCP tools' arguments (the official SDK client, in memory): every call
comes back as a result or a typed error result — never an untyped exception, never a dead
server. (The REST parameters' fuzz is in tests/server/test_routes.py.)"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import anyio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client
from paths import REPO

from ctx_lab import errors
from ctx_lab.mcp_server import TOOLS, CtxLabMCP, build_server

TYPED = {name for name in dir(errors) if isinstance(getattr(errors, name), type)}

values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True)
    | st.text(max_size=40)
    | st.sampled_from(["", "..", "/etc/passwd", "a" * 5000, "app.log", "\x00", "ctx-lab://x"]),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=8,
)


def arguments(name: str) -> st.SearchStrategy[dict]:
    known = list(TOOLS[name][1]["properties"])
    return st.dictionaries(st.sampled_from([*known, "bogus"]), values, max_size=5)


calls = st.sampled_from(sorted(TOOLS)).flatmap(lambda n: st.tuples(st.just(n), arguments(n)))


def test_mcp_arguments_fuzz(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    shutil.copytree(REPO / "ctx_lab" / "examples" / "tidepool" / ".context", root / ".context")
    (root / "app.log").write_text("".join(f"{i} line\n" for i in range(100)))
    state = CtxLabMCP(root, budget=1500, watch_interval=0)
    seen: list[tuple[str, dict, str]] = []

    examples = int(os.environ.get("CTX_LAB_FUZZ_EXAMPLES", "150"))  # a long run: 20000

    @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.lists(calls, min_size=1, max_size=6))
    def run(batch: list[tuple[str, dict]]) -> None:
        async def session() -> None:
            async with Client(build_server(state)) as client:
                for name, args in batch:
                    result = await client.call_tool(name, args)
                    if result.is_error:
                        text = result.content[0].text
                        kind = text.split(":", 1)[0]
                        seen.append((name, args, text))
                        assert kind in TYPED, (name, args, text)
                # the server still answers
                assert (await client.call_tool("count_tokens", {"text": "ok"})).is_error is False

        anyio.run(session)

    import resource

    run()
    assert seen  # the fuzz did reach the error paths
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"fuzz: {examples} batches, {len(seen)} error results, peak RSS {peak // 1024} MB")
