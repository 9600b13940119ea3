"""Write ``ctx_lab/examples/sessions/``: two recorded sessions in the formats agents and apps
write, for notebook 06, the replay tests and the bench.

- ``coding-session.jsonl`` — a Claude Code session (one JSON object per line, as Claude Code
  keeps them under ``~/.claude/projects/``): nine tasks on a small Python service, a few
  hundred model calls, heavy on tool use (Read, Grep, Bash, Edit; parallel calls; a sub-agent
  whose lines are a side-chain), thinking blocks, a pasted screenshot, each response written
  one content block per line under one message id, an automatic compaction, and per-call
  ``usage`` split into input, cache-creation, cache-read and output tokens.
- ``support-chat.jsonl`` — an application's log of OpenAI Chat Completions requests and
  responses (a support assistant with one function tool), ``usage`` with cached prompt tokens.

The usage figures are generated, not measured, and the rule is stated so readers can check what
calibration recovers: Claude Code's calls report ``HIDDEN_TOKENS`` (the agent's system prompt
and tool definitions, which its transcripts do not hold) plus, for each recorded message since
the last compaction, its bytes/4 count × ``CLAUDE_FACTOR`` × a factor of its own drawn from
0.9–1.1 (prose, code and JSON tokenize differently); the chat log reports ctx_lab's o200k count
of each request (exact for gpt-4.1-mini) plus 3 tokens of reply priming.

Deterministic (fixed seeds and clock): ``python scripts/make_sessions.py`` rewrites the same bytes.
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from ctx_lab.conversation import ContextManager, Message
from ctx_lab.tokens import get_counter

OUT = Path(__file__).resolve().parent.parent / "ctx_lab" / "examples" / "sessions"
START = datetime(2026, 6, 15, 9, 0, tzinfo=UTC)
CLAUDE_MODEL = "claude-sonnet-4-5-20250929"
CLAUDE_FACTOR = 1.24
HIDDEN_TOKENS = 14_800
COMPACT_AT = 150_000  # reported input at which the session compacted automatically
CHAT_MODEL = "gpt-4.1-mini-2025-04-14"
SESSION_ID = "7c1e2f54-9b0a-4d2e-8f31-5a6b7c8d9e01"
CWD = "/home/dev/tidepool"

MODULES = ["ingest", "storage", "api", "auth", "jobs", "metrics", "config", "cli", "cache"]
VERBS = ["load", "parse", "validate", "merge", "flush", "render", "resolve", "retry", "index"]
NOUNS = ["reading", "station", "batch", "window", "token", "record", "schema", "queue", "tide"]
TASKS = [
    "The nightly ingest job fails on stations with a missing timezone. Find out why and fix it.",
    "Add a /health endpoint that reports database and queue status.",
    "Readings arrive twice when the uploader retries; make ingest idempotent.",
    "The API returns 500 for an unknown station id instead of 404. Fix it and add a test.",
    "CI is red: test_merge_windows is flaky. Here is the failure from the CI page.",
    "Add a --dry-run flag to the `tidepool import` command.",
    "Profile the batch insert path; it got 3x slower last week.",
    "Our metrics exporter leaks a file descriptor per scrape. Track it down.",
    "Write the changelog entry for this release and bump the version.",
]


class Writer:
    """Claude Code's JSONL: one record per line, each linked to its parent by uuid."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.lines: list[str] = []
        self.parent: str | None = None
        self.clock = START
        self.count = 0

    def uuid(self) -> str:
        self.count += 1
        raw = self.rng.getrandbits(128)
        text = f"{raw:032x}"
        return f"{text[:8]}-{text[8:12]}-4{text[13:16]}-a{text[17:20]}-{text[20:32]}"

    def tick(self, seconds: float) -> str:
        self.clock += timedelta(seconds=seconds)
        return self.clock.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.clock.microsecond // 1000:03d}Z"

    def write(self, record: dict[str, Any], *, link: bool = True) -> str:
        uid = self.uuid()
        base = {
            "parentUuid": self.parent if link else None,
            "isSidechain": False,
            "userType": "external",
            "cwd": CWD,
            "sessionId": SESSION_ID,
            "version": "2.0.14",
            "gitBranch": "main",
        }
        full = {**base, **record, "uuid": uid, "timestamp": record.get("timestamp") or self.tick(2)}
        self.lines.append(json.dumps(full, ensure_ascii=False))
        if not full.get("isSidechain"):
            self.parent = uid
        return uid


def code_file(rng: random.Random, module: str, functions: int) -> str:
    lines = [
        f'"""{module}: part of the tidepool service."""',
        "",
        "from __future__ import annotations",
        "",
    ]
    lines += [
        "import logging",
        "from dataclasses import dataclass",
        "",
        "log = logging.getLogger(__name__)",
        "",
    ]
    for _ in range(functions):
        verb, noun = rng.choice(VERBS), rng.choice(NOUNS)
        lines += [
            "",
            f"def {verb}_{noun}(items: list[dict], *, strict: bool = False) -> list[dict]:",
            f'    """{verb.capitalize()} each {noun} of a batch; with strict, raise on the first bad one."""',
            "    out = []",
            "    for item in items:",
            f"        if not item.get('{noun}_id'):",
            "            if strict:",
            f"                raise ValueError(f'missing {noun}_id in {{item!r}}')",
            f"            log.warning('skipping %s without an id', '{noun}')",
            "            continue",
            f"        out.append({{**item, '{verb}ed': True}})",
            "    return out",
        ]
    return "\n".join(lines) + "\n"


def tool_call(rng: random.Random, task: int) -> tuple[str, dict[str, Any], str]:
    """One tool call and its result text."""
    module = rng.choice(MODULES)
    kind = rng.choices(["Read", "Grep", "Bash", "Edit"], [5, 2, 3, 2])[0]
    if kind == "Read":
        text = code_file(rng, module, rng.randint(1, 5))
        numbered = "\n".join(f"{i:>6}\t{line}" for i, line in enumerate(text.splitlines(), 1))
        return kind, {"file_path": f"{CWD}/tidepool/{module}.py"}, numbered
    if kind == "Grep":
        noun = rng.choice(NOUNS)
        hits = [
            f"tidepool/{rng.choice(MODULES)}.py:{rng.randint(5, 400)}:    {rng.choice(VERBS)}_{noun}(batch)"
            for _ in range(rng.randint(3, 12))
        ]
        return kind, {"pattern": f"{noun}_", "output_mode": "content", "-n": True}, "\n".join(hits)
    if kind == "Bash":
        passed = rng.randint(40, 260)
        failed = rng.choice([0, 0, 1, 2])
        body = [
            f"tests/test_{rng.choice(MODULES)}.py::test_{rng.choice(VERBS)}_{rng.choice(NOUNS)} PASSED"
            for _ in range(rng.randint(4, 14))
        ]
        if failed:
            body += [
                "FAILED tests/test_ingest.py::test_merge_windows - AssertionError: windows overlap",
                "E       assert [(0, 10), (5, 15)] == [(0, 15)]",
            ]
        body.append(f"==== {failed} failed, {passed} passed in {rng.uniform(1, 40):.2f}s ====")
        return (
            kind,
            {"command": "python -m pytest -q -x", "description": "Run the tests"},
            "\n".join(body),
        )
    old = f"    return {rng.choice(VERBS)}_{rng.choice(NOUNS)}(batch)"
    return (
        kind,
        {
            "file_path": f"{CWD}/tidepool/{module}.py",
            "old_string": old,
            "new_string": old + "  # task " + str(task + 1),
        },
        f"The file {CWD}/tidepool/{module}.py has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n"
        + "\n".join(
            f"{i:>6}\t{line}"
            for i, line in enumerate(code_file(rng, module, 1).splitlines()[-8:], 40)
        ),
    )


def coding_session() -> str:
    rng = random.Random(2026_06_15)
    writer = Writer(rng)
    manager = ContextManager("claude-sonnet-4-5", counter="bytes/4")
    sent: list[int] = []  # bytes/4 counts of the messages since the last compaction
    previous_input = 0
    compacted = False
    writer.lines.append(
        json.dumps(
            {
                "type": "summary",
                "summary": "Tidepool maintenance: ingest, health, CI",
                "leafUuid": "pending",
            }
        )
    )

    def push(message: Message) -> None:
        # each message's own tokens-per-estimate ratio: prose, code and JSON tokenize apart
        sent.append(round(manager.count(message) * CLAUDE_FACTOR * rng.uniform(0.9, 1.1)))

    def usage(answer: list[Message], thinking: int) -> dict[str, int]:
        nonlocal previous_input
        reported = HIDDEN_TOKENS + sum(sent)
        fresh = rng.randint(1, 8)
        cached = min(previous_input, reported - fresh) if previous_input else HIDDEN_TOKENS
        out = round(CLAUDE_FACTOR * sum(manager.count(m) for m in answer)) + thinking
        previous_input = reported
        return {
            "input_tokens": fresh,
            "cache_creation_input_tokens": reported - fresh - cached,
            "cache_read_input_tokens": cached,
            "output_tokens": out,
        }

    def respond(blocks: list[dict[str, Any]], messages: list[Message], thinking: int) -> None:
        """One API response: one line per content block, same message id and usage."""
        message_id = f"msg_01{writer.uuid().replace('-', '')[:22]}"
        request_id = f"req_011{writer.uuid().replace('-', '')[:21]}"
        figures = usage(messages, thinking)
        for block in blocks:
            writer.write(
                {
                    "message": {
                        "id": message_id,
                        "type": "message",
                        "role": "assistant",
                        "model": CLAUDE_MODEL,
                        "content": [block],
                        "stop_reason": None,
                        "stop_sequence": None,
                        "usage": figures,
                    },
                    "requestId": request_id,
                    "type": "assistant",
                    "timestamp": writer.tick(rng.uniform(2, 9)),
                }
            )
        for message in messages:
            push(message)

    def user(content: Any, **extra: Any) -> None:
        writer.write({"type": "user", "message": {"role": "user", "content": content}, **extra})

    for task, prompt in enumerate(TASKS):
        if task == 4:  # a pasted screenshot of the CI page
            content: Any = [
                {"type": "text", "text": prompt},
                {
                    "type": "image",
                    "source": {
                        "type": "base64",
                        "media_type": "image/png",
                        "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
                    },
                },
            ]
            push(Message.user(prompt + "\n[image]"))
        else:
            content = prompt
            push(Message.user(prompt))
        user(content)
        steps = rng.randint(26, 38)
        for step in range(steps):
            last = step == steps - 1
            blocks: list[dict[str, Any]] = []
            answer: list[Message] = []
            thinking = 0
            if rng.random() < 0.3:
                thought = (
                    f"I should look at {rng.choice(MODULES)} before changing {rng.choice(MODULES)}."
                )
                blocks.append(
                    {
                        "type": "thinking",
                        "thinking": thought,
                        "signature": "EuYBCkQIBhgCIkD" + "x" * 40,
                    }
                )
                thinking = rng.randint(60, 900)
            if last:
                text = f"Done: {prompt.split('.')[0].lower()}. The tests pass ({rng.randint(120, 260)} passed). Changed {rng.randint(1, 5)} files."
                blocks.append({"type": "text", "text": text})
                answer.append(Message.assistant(text))
                respond(blocks, answer, thinking)
                break
            if rng.random() < 0.45:
                text = f"Let me check how {rng.choice(NOUNS)}s flow through {rng.choice(MODULES)}."
                blocks.append({"type": "text", "text": text})
                answer.append(Message.assistant(text))
            calls = [tool_call(rng, task) for _ in range(rng.choice([1, 1, 1, 2, 3]))]
            ids = []
            for name, arguments, _ in calls:
                call_id = f"toolu_01{writer.uuid().replace('-', '')[:22]}"
                ids.append(call_id)
                blocks.append({"type": "tool_use", "id": call_id, "name": name, "input": arguments})
                answer.append(Message.tool_use(call_id, name, arguments))
            respond(blocks, answer, thinking)
            if task == 2 and step == 3:  # a sub-agent's work: its lines are a side-chain
                for i in range(6):
                    writer.write(
                        {
                            "type": "assistant" if i % 2 else "user",
                            "isSidechain": True,
                            "message": {
                                "role": "assistant" if i % 2 else "user",
                                "content": f"sub-agent step {i}: searching for duplicate uploads",
                            },
                        }
                    )
            results = []
            for call_id, (name, arguments, result) in zip(ids, calls, strict=True):
                results.append({"tool_use_id": call_id, "type": "tool_result", "content": result})
                push(Message.tool_result(call_id, result))
            # Claude Code writes the results of parallel calls in one user line each
            for block in results:
                user(
                    [block],
                    toolUseResult={"type": "text"},
                    timestamp=writer.tick(rng.uniform(0.5, 6)),
                )
            if previous_input > COMPACT_AT and not compacted:
                compacted = True
                writer.write(
                    {
                        "type": "system",
                        "subtype": "compact_boundary",
                        "content": "Conversation compacted",
                        "isMeta": False,
                        "level": "info",
                        "logicalParentUuid": writer.parent,
                        "compactMetadata": {"trigger": "auto", "preTokens": previous_input},
                    },
                    link=False,
                )
                summary = (
                    "This session is being continued from a previous conversation that ran out of context. "
                    "Summary: tasks 1–"
                    + str(task + 1)
                    + " of the tidepool maintenance list; ingest timezone bug fixed, "
                    "/health added, ingest made idempotent, station 404s fixed with tests. Files touched: "
                    + ", ".join(f"tidepool/{m}.py" for m in MODULES)
                    + ". Continue with the current task."
                )
                sent.clear()
                previous_input = 0
                user(summary, isCompactSummary=True, isVisibleInTranscriptOnly=True)
                push(Message.user(summary))
        if task == 6:
            writer.lines.append(
                json.dumps(
                    {
                        "type": "file-history-snapshot",
                        "messageId": writer.uuid(),
                        "snapshot": {"trackedFileBackups": {}},
                        "isSnapshotUpdate": False,
                    }
                )
            )
    last = json.loads(writer.lines[-1])
    head = json.loads(writer.lines[0])
    head["leafUuid"] = last["uuid"]
    writer.lines[0] = json.dumps(head)
    return "\n".join(writer.lines) + "\n"


def as_messages(items: list[dict[str, Any]]) -> list[Message]:
    """The chat messages as ctx_lab reads them (tool calls and results as their own messages)."""
    out = []
    for item in items:
        if item["role"] == "user":
            out.append(Message.user(item["content"]))
        elif item["role"] == "assistant":
            if item.get("content"):
                out.append(Message.assistant(item["content"]))
            for call in item.get("tool_calls") or []:
                out.append(
                    Message.tool_use(
                        call["id"],
                        call["function"]["name"],
                        json.loads(call["function"]["arguments"]),
                    )
                )
        elif item["role"] == "tool":
            out.append(Message.tool_result(item["tool_call_id"], item["content"]))
    return out


def support_chat() -> str:
    rng = random.Random(4_1)
    o200k = get_counter("o200k")  # completions: the reply's own tokens
    system = (
        "You are the support assistant of Tidepool Outfitters. Be brief and friendly. "
        "Look orders up with lookup_order before answering questions about them; never invent order details."
    )
    tools = [
        {
            "type": "function",
            "function": {
                "name": "lookup_order",
                "description": "Look up an order by its number.",
                "parameters": {
                    "type": "object",
                    "properties": {"order": {"type": "string"}},
                    "required": ["order"],
                },
            },
        }
    ]
    questions = [
        "Where is my order {o}? It was supposed to arrive yesterday.",
        "Can I change the shipping address on {o}?",
        "The wetsuit in {o} is too small. How do I exchange it?",
        "Do you ship to Iceland?",
        "I was charged twice for {o}.",
        "What's your return window for sale items?",
    ]
    counter = ContextManager("gpt-4.1-mini", counter="o200k")
    counter.set_system_prompt(system)
    counter.set_tools(tools)
    messages: list[dict[str, Any]] = [{"role": "system", "content": system}]
    lines = []
    previous = 0
    for turn in range(22):
        order = f"TPO-{rng.randint(10000, 99999)}"
        question = rng.choice(questions)
        messages.append({"role": "user", "content": question.format(o=order)})
        wants_tool = "{o}" in question and rng.random() < 0.8
        steps = [True, False] if wants_tool else [False]
        for use_tool in steps:
            request = {
                "model": "gpt-4.1-mini",
                "messages": [dict(m) for m in messages],
                "tools": tools,
                "temperature": 0.2,
            }
            prompt = (
                counter.overhead_tokens()
                + sum(counter.count(m) for m in as_messages(messages[1:]))
                + 3
            )
            cached = (previous // 128) * 128 if previous >= 1024 else 0
            if use_tool:
                reply: dict[str, Any] = {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": f"call_{rng.getrandbits(64):016x}",
                            "type": "function",
                            "function": {
                                "name": "lookup_order",
                                "arguments": json.dumps({"order": order}),
                            },
                        }
                    ],
                }
            else:
                reply = {
                    "role": "assistant",
                    "content": f"Thanks for your patience! Order {order} is {rng.choice(['on its way', 'at the depot', 'delivered to a neighbour', 'being repacked'])}; "
                    + "you will get an email with tracking details shortly. " * rng.randint(1, 4),
                }
            completion = o200k.count(json.dumps(reply))
            response = {
                "id": f"chatcmpl-{rng.getrandbits(80):020x}",
                "object": "chat.completion",
                "created": 1781514000 + turn * 97,
                "model": CHAT_MODEL,
                "choices": [
                    {
                        "index": 0,
                        "message": reply,
                        "finish_reason": "tool_calls" if use_tool else "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": prompt,
                    "completion_tokens": completion,
                    "total_tokens": prompt + completion,
                    "prompt_tokens_details": {"cached_tokens": cached},
                },
            }
            lines.append(json.dumps({"request": request, "response": response}, ensure_ascii=False))
            messages.append(reply)
            previous = prompt
            if use_tool:
                call = reply["tool_calls"][0]
                status = rng.choice(["shipped", "processing", "delivered"])
                messages.append(
                    {
                        "role": "tool",
                        "tool_call_id": call["id"],
                        "content": json.dumps(
                            {
                                "order": order,
                                "status": status,
                                "carrier": "PostNord",
                                "items": rng.randint(1, 4),
                            }
                        ),
                    }
                )
    return "\n".join(lines) + "\n"


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "coding-session.jsonl").write_text(coding_session(), encoding="utf-8")
    (OUT / "support-chat.jsonl").write_text(support_chat(), encoding="utf-8")
    for path in sorted(OUT.glob("*.jsonl")):
        print(
            f"{path.name}: {path.stat().st_size:,} bytes, {len(path.read_text().splitlines())} lines"
        )


if __name__ == "__main__":
    main()
