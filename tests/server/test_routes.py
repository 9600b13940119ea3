"""Every route of /ctx-lab/api/: happy path, missing auth, traversal attempts, bad parameters."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
import yaml
from tornado.httpclient import HTTPClientError

from ctx_lab.cli import main as cli_main
from ctx_lab.server._handlers import ROUTES

OPENAPI = Path(__file__).resolve().parents[2] / "ctx_lab" / "server" / "openapi.yaml"
SESSIONS = Path(__file__).resolve().parents[2] / "ctx_lab" / "examples" / "sessions"


async def get(jp_fetch, route: str, **params) -> dict:
    response = await jp_fetch("ctx-lab", "api", route, params=params, method="GET")
    assert response.code == 200
    return json.loads(response.body)


async def error(jp_fetch, route: str, status: int, **params) -> dict:
    with pytest.raises(HTTPClientError) as info:
        await jp_fetch("ctx-lab", "api", route, params=params, method="GET")
    assert info.value.code == status, info.value.response.body
    return json.loads(info.value.response.body)["error"]


async def test_packet_and_entries(jp_fetch, project) -> None:
    packet = await get(
        jp_fetch, "packet", directory="proj", budget="1500", now="2026-06-15T12:00:00Z"
    )
    assert packet["version"] == 1 and packet["budget"] == 1500 and packet["tokens_used"] <= 1500
    assert packet["read_order"][0] == ".context/CONSTITUTION.md" and packet["ledger"]
    example = await get(jp_fetch, "packet", example="1", budget="800", counter="cl100k")
    assert example["counter"] == "cl100k" and example["generated"] == "2026-06-15T12:00:00Z"
    entries = await get(jp_fetch, "entries", directory="proj/.context", model="gpt-4o")
    assert entries["budget"] == 106_036 and entries["rows"]


async def test_packet_focus_relevance_steering_and_warnings(jp_fetch, project) -> None:
    import shutil

    from ctx_lab.examples import BUSY_DIR

    shutil.copytree(BUSY_DIR / ".context", project / "busy" / ".context")
    response = await jp_fetch(
        "ctx-lab",
        "api",
        "packet",
        params={
            "directory": "busy",
            "budget": "6000",
            "now": "2026-06-15T12:00:00Z",
            "focus": "journal fsync",
            "relevance": "bm25",
            "steering": "release",
        },
        method="GET",
    )
    packet = json.loads(response.body)
    assert packet["focus"] == "journal fsync" and packet["relevance"] == "bm25"
    assert "release" in [s["name"] for s in packet["steering"]]
    assert any("inside an HTML comment" in w for w in packet["warnings"])
    assert ".context/decisions/" in packet["read_order"]
    themed = [r for r in packet["ledger"] if (r["source"] or "").startswith(".context/decisions/")]
    assert themed and all(not r["source"].startswith("/") for r in packet["ledger"] if r["source"])
    entries = await get(jp_fetch, "entries", directory="busy", budget="6000", focus="hook")
    assert entries["warnings"] and any(r["warnings"] for r in entries["rows"])
    await error(jp_fetch, "packet", 400, directory="busy", relevance="magic")
    body = await error(jp_fetch, "packet", 400, directory="busy", steering="nope")
    assert "no steering file named nope" in body["message"]


async def test_ctx08_profile_and_comparison(jp_fetch, project) -> None:
    packet = await get(
        jp_fetch,
        "packet",
        directory="proj",
        budget="800",
        profile="ctx-0.8",
        now="2026-06-15T12:00:00Z",
    )
    assert packet["profile"] == "ctx-0.8" and packet["native"]["budget"] == 800
    # the server never reveals an absolute path: the read order is relative to its root
    assert packet["read_order"][0] == "proj/.context/CONSTITUTION.md"
    assert packet["native"]["read_order"][0] == "proj/.context/CONSTITUTION.md"
    assert packet["overshoot"] == packet["tokens_used"] - 800 > 0
    assert all(r["rule"] for r in packet["ledger"])
    shown = await get(
        jp_fetch, "packet", directory="proj", profile="ctx-0.8", display_dir="/x/.context"
    )
    assert shown["read_order"][0] == "/x/.context/CONSTITUTION.md"
    compared = await get(jp_fetch, "packet", directory="proj", budget="2000", compare="ctx-0.8")
    assert compared["version"] == 1 and compared["rows"]
    assert {r["rule"] for r in compared["rows"]} >= {None, "constitution-regex"}
    entries = await get(jp_fetch, "entries", directory="proj", profile="ctx-0.8")
    assert entries["profile"] == "ctx-0.8"
    body = await error(
        jp_fetch, "packet", 400, directory="proj", profile="ctx-0.8", counter="cl100k"
    )
    assert "byte estimate" in body["message"]


async def test_context_lookup(jp_fetch, project) -> None:
    found = await get(jp_fetch, "context", directory="proj/src")
    assert found["found"] and found["dir"] == "proj" and "TASKS.md" in found["signature"]
    assert (await get(jp_fetch, "context", directory=""))["found"] is False


async def test_page_and_budget(jp_fetch, project) -> None:
    first = await get(
        jp_fetch, "page", artifact_id="proj/src/app.py", lines="1-5", budget_id="b1", max_pages="2"
    )
    assert first["content"].startswith("import os") and first["lines"] == 5
    assert first["budget"]["max_pages"] == 2 and first["budget_id"] == "b1"
    second = await get(jp_fetch, "page", artifact_id="proj/src/app.py", lines="6-", budget_id="b1")
    assert second["budget"]["pages_used"] == 2
    await error(jp_fetch, "page", 409, artifact_id="proj/src/app.py", budget_id="b1")
    budget = await get(jp_fetch, "budget", budget_id="b1")
    assert budget["pages_remaining"] == 0 and budget["version"] == 1
    await error(jp_fetch, "budget", 404, budget_id="nope")
    await error(jp_fetch, "page", 404, artifact_id="missing.txt")
    await error(jp_fetch, "page", 400, artifact_id="notes.md", lines="9-2")


async def test_read(jp_fetch, project) -> None:
    first = await get(jp_fetch, "read", uri="proj/src/app.py", max_chars="100")
    assert first["truncated"] and len(first["content"]) <= 100
    second = await get(
        jp_fetch, "read", uri="proj/src/app.py", cursor=first["next_cursor"], max_chars="100"
    )
    assert not second["cursor_reset"] and second["position"]["start"] == first["position"]["end"]
    await error(jp_fetch, "read", 403, uri="http://example.com/")
    await error(jp_fetch, "read", 403, uri="file:///etc/passwd")
    await error(jp_fetch, "read", 400, uri="notes.md", max_chars="0")


async def test_build_models_tokens(jp_fetch, project) -> None:
    build = await get(
        jp_fetch, "build", task="Add a health check", paths="proj/src", memory="proj", budget="3000"
    )
    assert build["tokens"] <= 3000 and any(
        b["block"] == "file:proj/src/app.py" for b in build["blocks"]
    )
    model = await get(jp_fetch, "models", name="gpt-4o")
    assert model["effective_input_budget"] == 106_036 and model["version"] == 1
    listing = await get(jp_fetch, "models")
    assert any(m["model"] == "gpt-4o" for m in listing["models"])
    tokens = await get(jp_fetch, "tokens", paths="notes.md", counter="bytes/4")
    assert tokens["files"][0]["path"].endswith("notes.md") and tokens["total"]["bytes/4"] == 7
    text = await get(jp_fetch, "tokens", text="hello world")
    assert text["total"]["cl100k"] == 2


@pytest.mark.parametrize(
    ("route", "params"),
    [
        ("packet", {"directory": "../"}),
        ("packet", {"directory": "/etc"}),
        ("entries", {"directory": "proj/../.."}),
        ("page", {"artifact_id": "../../etc/passwd"}),
        ("page", {"artifact_id": "/etc/passwd"}),
        ("read", {"uri": "../outside.txt"}),
        ("build", {"task": "x", "paths": "/etc"}),
        ("tokens", {"paths": "../x"}),
        ("context", {"directory": "~"}),
    ],
)
async def test_traversal_refused(jp_fetch, project, route, params) -> None:
    body = await error(jp_fetch, route, 403, **params)
    assert body["type"] == "PathOutsideRoot"


async def test_symlink_out_refused(jp_fetch, project, tmp_path) -> None:
    outside = tmp_path / "outside-secret.txt"
    outside.write_text("secret")
    os.symlink(outside, project / "link.txt")
    await error(jp_fetch, "page", 403, artifact_id="link.txt")
    await error(jp_fetch, "read", 403, uri="link.txt")


@pytest.mark.parametrize(
    ("route", "params", "needle"),
    [
        ("packet", {"directory": "proj", "budget": "-5"}, "negative"),
        ("packet", {"directory": "proj", "budget": "lots"}, "budget 'lots' is not a whole number"),
        ("packet", {"directory": "proj", "counter": "nope"}, "valid counters"),
        ("packet", {"directory": "proj", "now": "yesterday"}, "ISO 8601"),
        ("models", {"registry": "nope"}, "invalid choice"),
        ("build", {}, "task"),
        ("tokens", {}, "path="),
        ("page", {}, "artifact_id"),
        ("read", {}, "uri"),
    ],
)
async def test_bad_parameters(jp_fetch, project, route, params, needle) -> None:
    body = await error(jp_fetch, route, 400, **params)
    assert needle in body["message"]


async def test_missing_directory_is_404(jp_fetch, project) -> None:
    body = await error(jp_fetch, "packet", 404, directory="nowhere")
    # the message names the path as the client gave it, never where the server's root is
    assert "nowhere" in body["message"] and str(project) not in body["message"]


@pytest.mark.parametrize("route", sorted(ROUTES))
async def test_auth_required(jp_fetch, project, route) -> None:
    with pytest.raises(HTTPClientError) as info:
        await jp_fetch("ctx-lab", "api", route, headers={"Authorization": ""}, method="GET")
    assert info.value.code == 403


def test_openapi_documents_every_route_and_parameter() -> None:
    from ctx_lab.server._openapi import render_openapi

    spec = yaml.safe_load(OPENAPI.read_text())
    documented = {p.split("/")[-1] for p in spec["paths"]}
    assert documented == set(ROUTES)
    for path, item in spec["paths"].items():
        assert path.startswith("/ctx-lab/api/")
        operation = item["get"]
        assert operation["responses"]["200"] and operation["responses"]["403"]
    # generated from the commands' declarations: stale when a parameter changed unregenerated
    assert OPENAPI.read_text() == render_openapi(), "python -m ctx_lab.server._openapi"


async def test_context_signature_changes_with_the_files(jp_fetch, project) -> None:
    before = (await get(jp_fetch, "context", directory="proj"))["signature"]
    tasks = project / "proj" / ".context" / "TASKS.md"
    tasks.write_text(tasks.read_text() + "- [ ] A new task\n")
    after = (await get(jp_fetch, "context", directory="proj"))["signature"]
    assert before != after  # the sidebar polls this and reloads


# -- one front door: every route returns exactly what its command function returns -------------


def _same(route_body: dict, result) -> None:
    body = dict(route_body)
    assert body.pop("version") == 1
    assert body == json.loads(json.dumps(result.to_dict(), ensure_ascii=False))


async def test_every_route_is_its_command_function(jp_fetch, jp_serverapp, project) -> None:
    from datetime import datetime

    from ctx_lab import commands
    from ctx_lab.paging import PagingBudget
    from ctx_lab.read import Reader

    root = project
    now = "2026-06-15T12:00:00Z"
    cases = {
        "packet": (
            {"directory": "proj", "budget": "1500", "now": now, "counter": "cl100k"},
            lambda: commands.packet(
                "proj", budget=1500, now=datetime.fromisoformat(now), counter="cl100k", root=root
            ),
        ),
        "entries": (
            {"example": "1", "model": "gpt-4o"},
            lambda: commands.entries(example=True, model="gpt-4o", root=root),
        ),
        "context": (
            {"directory": "proj/src"},
            lambda: commands.context("proj/src", root=root),
        ),
        "models": (
            {"name": "gpt-4o", "reserve": "4096"},
            lambda: commands.models("gpt-4o", reserve=4096),
        ),
        "tokens": (
            [("paths", "notes.md"), ("paths", "proj/src/app.py"), ("counter", "all")],
            lambda: commands.tokens(["notes.md", "proj/src/app.py"], counter="all", root=root),
        ),
        "counters": ({}, commands.counters),
        "build": (
            {"task": "Add a health check", "paths": "proj/src", "memory": "proj", "budget": "3000"},
            lambda: commands.build(
                "Add a health check", ["proj/src"], memory="proj", budget=3000, root=root
            ),
        ),
        "page": (
            {
                "artifact_id": "proj/src/app.py",
                "lines": "2-9",
                "budget_id": "same",
                "max_tokens": "50",
            },
            lambda: commands.page(
                "proj/src/app.py",
                lines=(2, 9),
                root=root,
                kept_budget=PagingBudget(max_tokens=50, budget_id="same"),
                budget_id="same",
            ),
        ),
        "read": (
            {"uri": "proj/src/app.py", "max_chars": "120"},
            lambda: commands.read(
                "proj/src/app.py",
                max_chars=120,
                root=root,
                reader=Reader(
                    [root], secret=jp_serverapp.web_app.settings["ctx_lab_session"].reader._secret
                ),
            ),
        ),
        "replay": (
            [("file", "chat.jsonl"), ("model", "gpt-4o"), ("model", "gpt-4"), ("caching", "false")],
            lambda: commands.replay(
                "chat.jsonl", model=["gpt-4o", "gpt-4"], caching=False, root=root
            ),
        ),
        "anatomy": (
            [("file", "chat.jsonl"), ("session", "true"), ("model", "gpt-4o")],
            lambda: commands.anatomy("chat.jsonl", session=True, model="gpt-4o", root=root),
        ),
        "cache": (
            [("file", "chat.jsonl"), ("sizes", "counts")],
            lambda: commands.cache("chat.jsonl", sizes="counts", root=root),
        ),
        "policies": (
            [("file", "chat.jsonl"), ("policy", "recorded"), ("policy", "summary:threshold=300")],
            lambda: commands.policies(
                "chat.jsonl", policy=["recorded", "summary:threshold=300"], root=root
            ),
        ),
        "check": (
            [("file", "chat.jsonl"), ("model", "gpt-4o"), ("now", now)],
            lambda: commands.check(
                "chat.jsonl", model="gpt-4o", root=root, now=datetime.fromisoformat(now)
            ),
        ),
    }
    shutil.copy(SESSIONS / "support-chat.jsonl", root / "chat.jsonl")
    for route, (params, call) in cases.items():
        response = await jp_fetch("ctx-lab", "api", route, params=params, method="GET")
        sent = json.loads(response.body)
        _same(sent, call())
    # the budget route answers the budget the page route keeps
    budget = await get(jp_fetch, "budget", budget_id="same")
    page = await get(jp_fetch, "page", artifact_id="notes.md", lines="1", budget_id="same")
    assert {k: v for k, v in budget.items() if k != "version"} != page["budget"]
    after = await get(jp_fetch, "budget", budget_id="same")
    assert {k: v for k, v in after.items() if k != "version"} == page["budget"]
    assert set(cases) | {"budget"} == set(ROUTES)


async def test_malformed_transcripts_answer_422_never_500(jp_fetch, project) -> None:
    shapes = [
        {"type": "user", "uuid": "u", "parentUuid": None},
        {
            "type": "assistant",
            "uuid": "a",
            "parentUuid": None,
            "message": {"id": "m", "content": [], "usage": {"input_tokens": "many"}},
        },
        {"sessionId": "s", "messages": [{"type": "gemini", "toolCalls": [{"name": "x"}]}]},
        {"type": "response_item", "payload": {"type": "function_call", "name": 5, "call_id": "c"}},
    ]
    for i, shape in enumerate(shapes):
        (project / f"bad{i}.jsonl").write_text(json.dumps(shape) + "\n")
        body = await error(jp_fetch, "replay", 422, file=f"bad{i}.jsonl", model="gpt-4o")
        assert body["type"] == "TranscriptError" and "line 1" in body["message"]
        assert str(project) not in body["message"]


async def test_replay_reads_only_under_the_root(jp_fetch, project, tmp_path_factory) -> None:
    elsewhere = tmp_path_factory.mktemp("sessions") / "s.jsonl"
    shutil.copy(SESSIONS / "support-chat.jsonl", elsewhere)
    body = await error(jp_fetch, "replay", 403, file=str(elsewhere))
    assert body["type"] == "PathOutsideRoot" and str(project) not in body["message"]
    (project / "broken.jsonl").write_text('{"messages": []}\n{not json\n')
    body = await error(jp_fetch, "replay", 422, file="broken.jsonl")
    assert "line 2" in body["message"]
    shutil.copy(SESSIONS / "coding-session.jsonl", project / "s.jsonl")
    reply = await get(jp_fetch, "replay", file="s.jsonl", model="gpt-4")
    assert reply["source"] == "s.jsonl" and reply["calls"] > 200
    assert any(row["summarized_tokens"] > 0 for row in reply["rows"])


# -- escapes through globs, directory listings and symlinked .context/ files -------------------


@pytest.fixture
def outside(tmp_path_factory) -> Path:
    """A directory outside the server root with a secret in it."""
    where = tmp_path_factory.mktemp("outside")
    (where / "hostname").write_text("secret-host\n")
    (where / "DECISIONS.md").write_text("## [2026-01-01-000000] Secret decision\n\nsecret body\n")
    return where


async def test_symlink_through_glob_is_refused(jp_fetch, project, outside) -> None:
    os.symlink(outside, project / "etc_link")
    for paths in ("etc_link/*", "etc_link", "../*", "/etc/host*"):  # named: refused
        body = await error(jp_fetch, "build", 403, task="x", paths=paths)
        assert body["type"] == "PathOutsideRoot" and "secret" not in body["message"]
        assert str(outside) not in body["message"]
    for paths in ("etc_lin?/*", "**/*"):  # met while expanding: skipped, named in a warning
        built = await get(jp_fetch, "build", task="x", paths=paths, budget="4000")
        assert "secret" not in built["prompt"]
        assert any("etc_link: a symlink leading outside the tree" in w for w in built["warnings"])
        assert not any(str(outside) in w for w in built["warnings"])


async def test_symlinked_context_file_is_refused(jp_fetch, project, outside) -> None:
    context = project / "leaky" / ".context"
    context.mkdir(parents=True)
    (context / "TASKS.md").write_text("- [ ] a task\n")
    os.symlink(outside / "DECISIONS.md", context / "DECISIONS.md")
    for route in ("packet", "entries"):
        body = await error(jp_fetch, route, 403, directory="leaky")
        assert body["type"] == "PathOutsideRoot"
    await error(jp_fetch, "context", 403, directory="leaky")
    await error(jp_fetch, "build", 403, task="x", memory="leaky")


async def test_symlinked_context_directory_is_refused(jp_fetch, project, outside) -> None:
    (project / "proj2").mkdir()
    os.symlink(outside, project / "proj2" / ".context")
    for route in ("packet", "entries", "context"):
        await error(jp_fetch, route, 403, directory="proj2")


async def test_a_fifo_is_refused_not_waited_on(jp_fetch, project) -> None:
    os.mkfifo(project / "pipe.txt")
    for route, params in (
        ("tokens", {"paths": "pipe.txt"}),
        ("page", {"artifact_id": "pipe.txt"}),
        ("read", {"uri": "pipe.txt"}),
        ("build", {"task": "x", "paths": "pipe.txt"}),
    ):
        await error(jp_fetch, route, 403, **params)


async def test_counters_route_lists_plugins(jp_fetch, project, counter_plugin) -> None:
    from plugin_helpers import PLUGIN_COUNTER

    listed = {c["name"]: c for c in (await get(jp_fetch, "counters"))["counters"]}
    assert {"cl100k", "bytes/4", "chars/3", "o200k", PLUGIN_COUNTER} <= set(listed)
    assert listed[PLUGIN_COUNTER] == {
        "name": PLUGIN_COUNTER,
        "exact": False,
        "available": True,
        "reason": "",
        "verified_by": "",  # an estimate is checked against nothing
    }
    assert listed["cl100k"]["exact"] is True and "sha256" in listed["cl100k"]["verified_by"]
    counted = await get(jp_fetch, "tokens", text="a b c", counter=PLUGIN_COUNTER)
    assert counted["total"][PLUGIN_COUNTER] == 3


async def test_one_budget_id_under_concurrent_requests(jp_fetch, project) -> None:
    import asyncio

    from tornado.httpclient import HTTPClientError

    async def one(start: int):
        try:
            response = await jp_fetch(
                "ctx-lab",
                "api",
                "page",
                params={
                    "artifact_id": "proj/src/app.py",
                    "lines": f"{start}-{start + 30}",
                    "budget_id": "hot",
                    "max_tokens": "300",
                    "max_pages": "1000",
                },
                method="GET",
            )
        except HTTPClientError as exc:
            assert exc.code == 409
            return None
        return json.loads(response.body)

    pages = [p for p in await asyncio.gather(*(one(1 + i % 60) for i in range(40))) if p]
    budget = await get(jp_fetch, "budget", budget_id="hot")
    assert budget["tokens_used"] <= 300
    assert budget["tokens_used"] == sum(p["tokens"] for p in pages)
    assert budget["pages_used"] == len(pages)


async def test_two_hundred_concurrent_requests_nothing_lost_or_crossed(jp_fetch, project) -> None:
    import asyncio

    async def one(i: int) -> None:
        text = "word " * (i + 1)
        body = await get(jp_fetch, "tokens", text=text, counter="bytes/4")
        assert body["total"]["bytes/4"] == -(-len(text.strip()) // 4)

    await asyncio.gather(*(one(i) for i in range(200)))


async def test_packet_with_a_models_dev_model(jp_fetch, project) -> None:
    packet = await get(
        jp_fetch,
        "packet",
        directory="proj",
        model="anthropic/claude-sonnet-4-5",
        registry="models-dev",
    )
    assert packet["budget_source"].endswith("(models-dev)") and packet["budget"] > 100_000
    entries = await get(
        jp_fetch,
        "entries",
        directory="proj",
        model="anthropic/claude-sonnet-4-5",
        registry="models-dev",
    )
    assert entries["budget"] == packet["budget"]


async def test_long_paths_are_4xx_and_payloads_never_name_the_root(
    jp_fetch, project, jp_root_dir
) -> None:
    long = "a" * 5000
    for route, params in [
        ("build", {"task": "x", "paths": long}),
        ("context", {"directory": long}),
        ("packet", {"directory": long}),
    ]:
        with pytest.raises(HTTPClientError) as info:
            await jp_fetch("ctx-lab", "api", route, params=params, method="GET")
        assert 400 <= info.value.code < 500, (route, info.value.response.body)
        assert "Traceback" not in info.value.response.body.decode()
    # a warning that names a file under the root says it relative to the root
    (project / "proj" / "src" / "gone.py").symlink_to(jp_root_dir.parent / "elsewhere.py")
    build = await get(jp_fetch, "build", task="Add a health check", paths="proj/src", budget="3000")
    body = json.dumps(build)
    assert str(jp_root_dir) not in body and build["warnings"]


async def test_entries_are_paged_and_responses_bounded(jp_fetch, project, monkeypatch) -> None:
    first = await get(jp_fetch, "entries", directory="proj", budget="2000", limit="5")
    assert len(first["rows"]) == 5 and first["rows_total"] > 5 and first["offset"] == 0
    rest = await get(jp_fetch, "entries", directory="proj", budget="2000", offset="5", limit="5000")
    assert len(rest["rows"]) == first["rows_total"] - 5
    assert rest["rows"][0] != first["rows"][0]
    bad = await error(jp_fetch, "entries", 400, directory="proj", limit="0")
    assert "limit must be" in bad["message"]
    monkeypatch.setenv("CTX_LAB_MAX_RESPONSE_BYTES", "1000")
    big = await error(jp_fetch, "packet", 413, directory="proj", budget="2000")
    assert "CTX_LAB_MAX_RESPONSE_BYTES" in big["message"]


FUZZ_NAMES = [
    "dir",
    "example",
    "budget",
    "model",
    "now",
    "counter",
    "focus",
    "relevance",
    "steering",
    "profile",
    "registry",
    "display_dir",
    "offset",
    "limit",
    "id",
    "lines",
    "budget_id",
    "max_pages",
    "max_tokens",
    "uri",
    "cursor",
    "max_chars",
    "task",
    "paths",
    "memory",
    "exact",
    "name",
    "reserve",
    "path",
    "text",
    "file",
    "format",
    "per",
    "preserve_recent",
    "output_limit",
    "caching",
    "transcript_format",
]
FUZZ_VALUES = [
    "",
    "0",
    "-1",
    "1e9",
    "99999999999999999999",
    "nan",
    "true",
    "yes",
    "../../etc/passwd",
    "/etc/passwd",
    "~",
    "a" * 5000,
    "proj",
    "proj/.context",
    "notes.md",
    "\x00",
    "ü✓",
    "2026-13-45T99:99:99Z",
    "gpt-4o",
    "cl100k",
    "bm25",
    "ctx-0.8",
    "http://127.0.0.1:1/",
    "file:///etc/passwd",
    "1-5",
    "5-1",
    "{}",
    "[1]",
    "%00",
    "proj/src/*",
    "**/*",
]


async def test_rest_parameters_fuzz(jp_fetch, project) -> None:
    import random

    rng = random.Random(int(os.environ.get("CTX_LAB_FUZZ_SEED", "11")))
    rounds = int(os.environ.get("CTX_LAB_FUZZ_REST", "12"))
    statuses: dict[int, int] = {}
    for route in ROUTES:
        for _ in range(rounds):
            params = {
                rng.choice(FUZZ_NAMES): rng.choice(FUZZ_VALUES) for _ in range(rng.randint(0, 5))
            }
            try:
                response = await jp_fetch("ctx-lab", "api", route, params=params, method="GET")
                code = response.code
                json.loads(response.body)
            except HTTPClientError as exc:
                code = exc.code
                body = json.loads(exc.response.body)
                assert set(body["error"]) == {"type", "message", "status"}, (route, params)
                assert body["error"]["status"] == exc.code
                assert "Traceback" not in body["error"]["message"]
            assert code < 500, (route, params)
            statuses[code] = statuses.get(code, 0) + 1
    assert statuses.get(200) and len(statuses) > 2


async def test_a_missing_file_is_404_on_every_route(jp_fetch, project) -> None:
    for route, params in [
        ("read", {"uri": "missing.txt"}),
        ("page", {"artifact_id": "missing.txt"}),
        ("tokens", {"paths": "missing.txt"}),
        ("anatomy", {"file": "missing.jsonl"}),
    ]:
        body = await error(jp_fetch, route, 404, **params)
        assert "missing" in body["message"] and body["status"] == 404


async def test_entries_pages_reuse_the_parsed_context(jp_fetch, jp_root_dir, monkeypatch) -> None:
    """Paging through a big .context/ parses it once (cached by file identity), not per page."""
    import os
    import time

    from ctx_lab.packet import _context

    folder = jp_root_dir / "big" / ".context"
    folder.mkdir(parents=True)
    text = "# Decisions\n" + "".join(
        f"\n## [2026-01-{1 + i % 28:02d}-120000] Decision {i}\n\n**Status**: Accepted\n\n"
        f"**Decision**: keep the sensor gateway retry budget number {i} as it is\n"
        for i in range(20_000)
    )
    (folder / "DECISIONS.md").write_text(text)
    (folder / "TASKS.md").write_text("# Tasks\n\n- [ ] one\n")
    old = time.time() - 3600
    for file in folder.iterdir():
        os.utime(file, (old, old))
    loads: list[int] = []
    real_load = _context._load
    monkeypatch.setattr(_context, "_load", lambda *a: loads.append(1) or real_load(*a))
    for offset in (0, 100, 200):
        page = await get(
            jp_fetch, "entries", directory="big", budget="4000", offset=str(offset), limit="100"
        )
        assert len(page["rows"]) == 100 and page["offset"] == offset
    assert loads == [1]


async def test_transcripts_of_unexpected_shapes_are_422(jp_fetch, jp_root_dir) -> None:
    """A field of the wrong type and a number past Python's digit limit: typed errors (422) on
    /replay and /anatomy (calibrate is not served over REST), never a 500."""
    (jp_root_dir / "m5.json").write_text('{"messages": 5}')
    line = '{"type": "user", "message": {"role": "user", "content": "hi"}, "n": ' + "9" * 5000
    (jp_root_dir / "big.jsonl").write_text(line + "}\n")
    for name in ("m5.json", "big.jsonl"):
        for route, params in (
            ("replay", {"file": name, "model": "gpt-4o"}),
            ("anatomy", {"file": name}),
        ):
            # a transcript is refused as one (422); anatomy also tries the file as a request
            # body, whose shape is the caller's mistake (400)
            status = 422 if route == "replay" or name == "big.jsonl" else 400
            body = await error(jp_fetch, route, status, **params)
            assert "Traceback" not in body["message"], body
    for name in ("m5.json", "big.jsonl"):  # and the CLI's calibrate, exit 1
        assert cli_main(["calibrate", str(jp_root_dir / name), "--model", "claude-sonnet-4-5"]) == 1


async def test_a_made_up_model_in_a_recording_warns_once_over_rest(jp_fetch, project) -> None:
    """The REST check of a recording whose model no registry knows: 200, one warning naming
    the assumed limits, no finding made from them (as the CLI: test_recording_models)."""
    from shared_recordings import made_up_recording

    made_up_recording(project)
    report = await get(jp_fetch, "check", file="made-up.json")
    assert report["findings"] == []
    said = [w for w in report["warnings"] if "made-up-model-9" in w]
    assert len(said) == 1 and "assumed" in said[0]


class FakePanic(BaseException):
    """What pyo3 raises for a Rust panic: a BaseException that ``except Exception`` misses."""


async def test_two_megabytes_of_whitespace_and_a_native_panic(
    jp_fetch, project, monkeypatch
) -> None:
    (project / "blank.txt").write_text(" " * 2_000_000)
    counted = await get(jp_fetch, "tokens", paths="blank.txt", counter="o200k")
    assert counted["total"]["o200k"] == 2_000_000 // 128

    def panics(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise FakePanic("called `Result::unwrap()` on an `Err` value")

    monkeypatch.setattr("ctx_lab.tokens.count_texts", panics)
    failed = await error(jp_fetch, "tokens", 422, paths="blank.txt", counter="o200k")
    assert failed["type"] == "NativeCodeError" and "FakePanic" in failed["message"]
    monkeypatch.undo()
    assert (await get(jp_fetch, "tokens", text="hello world"))["total"]["cl100k"] == 2


def test_the_cli_counts_two_megabytes_of_whitespace_and_reports_a_panic(
    tmp_path, capsys, monkeypatch
) -> None:
    blank = tmp_path / "blank.txt"
    blank.write_text(" " * 2_000_000)
    assert cli_main(["tokens", str(blank), "--counter", "o200k", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["total"]["o200k"] == 2_000_000 // 128

    def panics(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise FakePanic("boom")

    monkeypatch.setattr("ctx_lab.tokens.count_texts", panics)
    assert cli_main(["tokens", str(blank), "--counter", "o200k"]) == 1
    err = capsys.readouterr().err
    assert "native code failed (FakePanic: boom)" in err and "Traceback" not in err
