"""Every payload kind has a JSON Schema, real payloads validate, and the lab renderers cover
every kind."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest
from paths import REPO
from read_helpers import make_pdf

from ctx_lab import commands
from ctx_lab.builder import build_context
from ctx_lab.commands import invoke
from ctx_lab.conversation import ContextManager, Message, StreamJournal, recover_into
from ctx_lab.conversation._recovery import inspect_journal
from ctx_lab.conversation._report import history_report
from ctx_lab.display import PAYLOAD_VERSION, RichResult
from ctx_lab.schemas import KINDS, load_schema

EXAMPLES = REPO / "ctx_lab" / "examples"
SESSIONS = EXAMPLES / "sessions"
REAL = REPO.parent / "shared" / "real-data" / "transcripts"
CORPUS_SWEEP = ["sweep", "--budget", "3000", "--model", "gpt-4o", "--workers", "0", "--no-progress"]
CORPUS_REPLAY = ["replay", "--model", "gpt-4o", "--workers", "0", "--no-progress"]


def payload_of(argv: list[str]) -> dict:
    return invoke(argv).result.payload()


def saved_calibration(config: Path) -> dict:
    """A stored calibration's payload, stored in a directory of its own so no later test
    counts with it."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CTX_LAB_CONFIG_DIR", str(config))
        argv = ["calibrate", str(SESSIONS / "coding-session.jsonl"), "--model", "claude-sonnet-4-5"]
        return payload_of(argv)


@pytest.fixture(scope="module")
def payloads(tmp_path_factory) -> dict[str, list[dict]]:
    tmp = tmp_path_factory.mktemp("payloads")
    (tmp / "a.txt").write_text("line one\nline two\n" * 30)
    make_pdf(tmp / "d.pdf", ["page one", "page two"])
    manager = ContextManager("unknown", counter="bytes/4")
    for i in range(10):
        manager.push_message(Message.user(f"m{i}"), 500)
    manager.save(tmp / "h.json")
    journal = StreamJournal.open(tmp / "j.db")
    active = journal.begin_session("m")
    active.append_text("partial")
    journal.close()
    out: dict[str, list[dict]] = {
        "tokens": [payload_of(["tokens", str(tmp / "a.txt"), "--counter", "all"])],
        "model": [
            payload_of(["models", "gpt-4o"]),
            payload_of(["models", "gpt-5", "--registry", "models-dev"]),
        ],
        "models": [payload_of(["models"])],
        "doctor": [payload_of(["doctor"])],
        "packet": [payload_of(["packet", "--example", "--budget", str(b)]) for b in (0, 900, 4000)]
        + [
            payload_of(["packet", "--example", "--budget", str(b), "--profile", "ctx-0.8"])
            for b in (0, 800, 8000)
        ],
        "profiles": [payload_of(["packet", "--example", "--compare", "ctx-0.8"])],
        "entries": [payload_of(["entries", "--example"])],
        "budget": [payload_of(["budget"])],
        "page": [payload_of(["page", str(tmp / "a.txt"), "--root", str(tmp), "--lines", "2-4"])],
        "read": [
            payload_of(["read", str(tmp / "a.txt"), "--root", str(tmp), "--max-chars", "50"]),
            payload_of(["read", str(tmp / "d.pdf"), "--root", str(tmp)]),
        ],
        "build": [build_context("task", [str(tmp / "a.txt")], budget=200).payload()],
        "compress": [payload_of(["compress", str(tmp / "a.txt")])],
        "usage": [manager.usage().payload()],
        "history": [history_report(manager, "h.json").payload()],
        "journal": [
            inspect_journal(tmp / "j.db", "recover").payload(),
            inspect_journal(tmp / "j.db", "stats").payload(),
            recover_into(
                ContextManager("m"), StreamJournal.open(tmp / "j.db"), tmp / "r.json"
            ).payload(),
        ],
        "counters": [payload_of(["counters"])],
        "replay": [
            payload_of(["replay", str(SESSIONS / "support-chat.jsonl"), "--model", "gpt-4o"]),
            payload_of(
                [
                    "replay",
                    str(SESSIONS / "coding-session.jsonl"),
                    "--model",
                    "gpt-4",
                    "--no-caching",
                ]
            ),
        ],
        "calibration": [
            payload_of(["calibrate", str(SESSIONS / "support-chat.jsonl")]),
            saved_calibration(tmp / "config"),
        ],
        "calibrations": [
            payload_of(["calibrate", "--list"]),
        ],
        "calibration_evaluation": [
            payload_of(
                [
                    "calibrate",
                    str(SESSIONS / "coding-session.jsonl"),
                    "--evaluate",
                    str(SESSIONS / "coding-session.jsonl"),
                ]
            ),
            payload_of(
                [
                    "calibrate",
                    str(REAL / "marot__spotter" / "subagent.jsonl"),
                    "--evaluate",
                    str(REAL / "marot__spotter" / "tool_heavy.jsonl"),
                ]
            ),
        ],
        "context": [
            commands.context(REPO / "ctx_lab" / "examples" / "tidepool", root=REPO).payload()
        ],
        "anatomy": [
            payload_of(["anatomy", str(REAL / "pydantic__pydantic-ai" / name)])
            for name in ("test_anthropic_tool_with_thinking.json", "test_openai_tool_output.jsonl")
        ]
        + [payload_of(["anatomy", str(REAL / "marot__spotter" / "short.jsonl")])],
        "anatomy_session": [
            payload_of(["anatomy", str(REAL / "marot__spotter" / "tool_heavy.jsonl"), "--session"]),
            payload_of(
                [
                    "anatomy",
                    str(REAL / "pydantic__pydantic-ai" / "test_openai_tool_output.jsonl"),
                    "--session",
                ]
            ),
        ],
        "cache": [
            payload_of(["cache", str(REAL / "marot__spotter" / "tool_heavy.jsonl")]),
            payload_of(["cache", str(SESSIONS / "coding-session.jsonl"), "--sizes", "counts"]),
            payload_of(
                ["cache", str(REAL / "pydantic__pydantic-ai" / "test_openai_tool_output.jsonl")]
            ),
        ],
        "policies": [
            payload_of(["policies", str(REAL / "marot__spotter" / "tool_heavy.jsonl")]),
            payload_of(
                [
                    "policies",
                    str(SESSIONS / "coding-session.jsonl"),
                    "--policy",
                    "summary:threshold=500",
                ]
            ),
        ],
        "check": [
            payload_of(["check", str(REAL / "marot__spotter" / "tool_heavy.jsonl")]),
            payload_of(["check", str(SESSIONS / "coding-session.jsonl"), "--model", "gpt-4o"]),
        ],
        "corpus": [
            payload_of(
                [
                    "policies",
                    *(str(p) for p in sorted(SESSIONS.iterdir())),
                    "--workers",
                    "0",
                    "--no-progress",
                    "--policy",
                    "recorded",
                ]
            ),
            payload_of([*CORPUS_SWEEP, str(EXAMPLES / "tidepool"), str(tmp)]),
            payload_of([*CORPUS_REPLAY, *(str(p) for p in SESSIONS.iterdir()), str(tmp / "a.txt")]),
            payload_of([*CORPUS_REPLAY, str(SESSIONS / "support-chat.jsonl"), "--per", "call"]),
        ],
    }
    return out


def test_every_kind_has_a_schema(payloads) -> None:
    assert set(KINDS) == set(payloads)


@pytest.mark.parametrize("kind", KINDS)
def test_real_payloads_validate(payloads, kind: str) -> None:
    schema = load_schema(kind)
    jsonschema.Draft202012Validator.check_schema(schema)
    for payload in payloads[kind]:
        assert payload["version"] == PAYLOAD_VERSION
        jsonschema.validate(json.loads(json.dumps(payload)), schema)


def test_schemas_reject_wrong_payloads() -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"version": 2, "used_tokens": 1}, load_schema("usage"))
    with pytest.raises(KeyError):
        load_schema("nope")


def test_lab_renderers_cover_every_kind() -> None:
    source = (REPO / "labextension" / "src" / "renderers.ts").read_text()
    kinds = set(
        re.findall(r"'([a-z_]+)'", source.split("export const KINDS = [", 1)[1].split("];", 1)[0])
    )
    assert kinds == set(KINDS)


def test_every_result_class_declares_a_known_kind() -> None:
    import ctx_lab.commands
    import ctx_lab.conversation._recovery
    import ctx_lab.conversation._report
    import ctx_lab.server._handlers  # noqa: F401

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    # ctx_lab's own results (a test's throw-away payload class is not one)
    ours = [c for c in subclasses(RichResult) if c.__module__.startswith("ctx_lab.")]
    assert {c.payload_kind for c in ours} <= set(KINDS)


def test_generated_schemas_are_current() -> None:
    """``schemas/<kind>.json`` of every result that declares its JSON (ctx_lab.wire) is the
    schema made from the class; a stale copy fails here."""
    from ctx_lab.server._payloads import declared_schemas, schema_text

    declared = declared_schemas(ours_only=True)
    assert {"budget", "context"} <= set(declared)
    for kind, schema in declared.items():
        if kind in KINDS:
            committed = (REPO / "ctx_lab" / "schemas" / f"{kind}.json").read_text("utf-8")
            assert committed == schema_text(schema), (
                f"schemas/{kind}.json is stale: run python -m ctx_lab.server._payloads"
            )


def test_borrowed_parts_of_hand_schemas_are_the_declarations() -> None:
    """A hand-written schema's parts that are a declared kind's (the corpus's settings and
    recommendation) are written from the declaration; a stale copy fails here."""
    from ctx_lab.server._payloads import BORROWED, declared_schemas, with_borrowed

    declared = declared_schemas(ours_only=True)
    for (kind, name), source in BORROWED.items():
        schema = load_schema(kind)
        assert schema["properties"][name] == declared[source]["properties"][name]
        assert with_borrowed(kind, schema, declared) == schema


def test_generated_typescript_is_current() -> None:
    """labextension/src/generated.ts (payload types, section titles, severities) is made from the
    Python side; a stale copy fails here, so TypeScript never keeps its own version."""
    from ctx_lab.server._typescript import render_typescript

    committed = (REPO / "labextension" / "src" / "generated.ts").read_text(encoding="utf-8")
    assert committed == render_typescript(), (
        "run: python -m ctx_lab.server._typescript > labextension/src/generated.ts"
    )


def test_renderers_only_read_severity() -> None:
    """The lab never recomputes how full a meter is: no ratio thresholds in its sources."""
    for path in (REPO / "labextension" / "src").glob("*.ts"):
        source = path.read_text(encoding="utf-8")
        assert not re.search(r"0\.[79]\b", source), path.name


def _result_classes() -> dict[str, list[type]]:
    import ctx_lab.commands
    import ctx_lab.conversation._recovery
    import ctx_lab.conversation._report  # noqa: F401

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    found: dict[str, list[type]] = {}
    for cls in subclasses(RichResult):
        found.setdefault(cls.payload_kind, []).append(cls)
    return found


@pytest.mark.parametrize("kind", KINDS)
def test_every_payload_round_trips_through_from_dict(payloads, kind: str) -> None:
    """to_dict()/from_dict() on every result: what the CLI printed or REST returned can be
    turned back into the result, which gives the same payload again."""
    classes = _result_classes()[kind]
    for payload in payloads[kind]:
        data = {k: v for k, v in payload.items() if k != "version"}
        if kind == "journal":
            cls = next(c for c in classes if ("steps" in data) == (c.__name__ == "RecoveryReport"))
        elif kind == "packet":  # Packet.from_dict restores each profile's class
            cls = next(c for c in classes if c.__name__ == "Packet")
        else:
            (cls,) = classes
        restored = cls.from_dict(data)
        assert json.loads(json.dumps(restored.payload())) == json.loads(json.dumps(payload))


@pytest.mark.parametrize("kind", KINDS)
def test_msgspec_under_the_codec_changes_nothing(payloads, kind: str, monkeypatch) -> None:
    """The plain parts go through msgspec (ctx_lab.wire._fast): on every real payload, the
    objects decoded and the dicts encoded are exactly the codec's own (lists, not tuples)."""
    from ctx_lab.wire import _fast

    classes = _result_classes()[kind]
    for payload in payloads[kind]:
        data = {k: v for k, v in payload.items() if k != "version"}
        for cls in classes:
            if not cls.declares_wire():
                continue
            try:
                fast = cls.from_dict(data)
            except Exception:  # another class of the kind (journal, packet): not its payload
                continue
            monkeypatch.setattr(_fast, "ENABLED", False)
            slow = cls.from_dict(data)
            assert slow == fast
            assert fast.to_dict() == slow.to_dict()
            monkeypatch.setattr(_fast, "ENABLED", True)
            assert fast.to_dict() == slow.to_dict()


def test_every_payload_class_takes_its_fields_by_name() -> None:
    """Field order is the wire order: a payload class is ``kw_only``, so inserting a field can
    never shift the values of the calls that build it."""
    import dataclasses

    import ctx_lab.server._handlers  # noqa: F401  (every result class defined)

    def subclasses(cls: type) -> list[type]:
        return [c for sub in cls.__subclasses__() for c in (sub, *subclasses(sub))]

    loose = [
        f"{cls.__module__}.{cls.__qualname__}: {f.name}"
        for cls in subclasses(RichResult)
        if cls.__module__.startswith("ctx_lab.") and dataclasses.is_dataclass(cls)
        for f in dataclasses.fields(cls)
        if f.init and not f.kw_only
    ]
    assert not loose, "positional fields on payload classes:\n" + "\n".join(loose)
