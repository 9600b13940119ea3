"""Deterministic workloads: generated ``.context/`` directories, chats, logs, documents and
source trees, sized as the benchmark issue measured them."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from pathlib import Path

WORDS = (
    "ingest retry backoff sensor reading device clock queue broker partition shard index cache "
    "budget packet ledger token counter window summary session journal cursor page quota "
    "timeout deadline schema migration rollout canary alert metric trace span latency error "
    "refund invoice customer order payment ledger export import archive compress decode"
).split()


def sentence(rng: random.Random, n: int = 12) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def context_dir(
    root: Path, decisions: int, learnings: int, tasks: int, seed: int = 7, areas: int = 0
) -> Path:
    """A ``.context/`` with that many entries (dated, tagged, with bodies) under ``root``.
    ``areas``: name that many areas of the project (``area17``), one in each task and each
    entry — as a real project's tasks name the component they touch, so each task brings
    keywords of its own (0: the shared vocabulary alone)."""
    rng = random.Random(seed)

    def area() -> str:
        return f" Touches area{rng.randrange(areas)}." if areas else ""

    ctx = root / ".context"
    ctx.mkdir(parents=True, exist_ok=True)
    (ctx / "CONSTITUTION.md").write_text(
        "# Constitution\n\n" + "".join(f"- [ ] {sentence(rng, 8)}\n" for _ in range(8))
    )
    (ctx / "CONVENTIONS.md").write_text(
        "# Conventions\n\n"
        + "".join(f"- **{rng.choice(WORDS)}**: {sentence(rng)}\n" for _ in range(60))
    )
    (ctx / "TASKS.md").write_text(
        "# Tasks\n\n"
        + "".join(
            f"- [{' ' if i % 4 else 'x'}] {sentence(rng, 8)}{area()}"
            f" #added:2026-0{1 + i % 6}-1{i % 9}"
            f"{' #priority:high' if i % 7 == 0 else ''}\n"
            for i in range(tasks)
        )
    )
    for name, count in (("DECISIONS.md", decisions), ("LEARNINGS.md", learnings)):
        parts = [f"# {name[:-3].title()}\n\n"]
        for i in range(count):
            day = f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}-{i % 24:02d}0000"
            body = "\n".join(sentence(rng, 14) for _ in range(4)) + area()
            parts.append(f"## [{day}] {sentence(rng, 6)}\n\n**Status**: Accepted\n\n{body}\n\n")
        (ctx / name).write_text("".join(parts))
    return root


def log_file(path: Path, lines: int) -> Path:
    with path.open("w") as handle:
        for i in range(lines):
            handle.write(f"2026-06-15T12:{i // 60 % 60:02d}:{i % 60:02d}Z ingest line {i} ok\n")
    return path


def pdf_file(path: Path, pages: list[str]) -> Path:
    """A PDF with one page per string (fpdf2, a test dependency)."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_creation_date(datetime(2026, 6, 15, 12, 0, tzinfo=UTC))  # the same bytes every run
    pdf.set_font("Helvetica", size=11)
    for text in pages:
        pdf.add_page()
        pdf.multi_cell(0, 6, text)
    pdf.output(str(path))
    return path


def small_modules(root: Path, files: int, seed: int = 1) -> Path:
    """Many small Python modules (2–6 short functions each): a build's per-file work is small,
    so the degrade loop's own cost shows."""
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    for i in range(files):
        lines = [f'"""Module {i}."""', "import os", ""]
        for f in range(rng.randint(2, 6)):
            lines += [f"def fn_{i}_{f}(value):", f"    '''Doc {f}.'''", "    return value * 2", ""]
        (root / f"m{i:05d}.py").write_text("\n".join(lines))
    return root


def source_tree(root: Path, files: int, seed: int = 3) -> Path:
    """Python modules of realistic shape (~14 KB each)."""
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    for f in range(files):
        lines = [f'"""Module {f}: {sentence(rng)}"""', "", "import os", "import json", ""]
        for c in range(6):
            lines += [f"class Thing{c}:", f'    """{sentence(rng)}"""', ""]
            for m in range(6):
                lines += [
                    f"    def method_{m}(self, value: int, *, name: str = 'x') -> dict:",
                    f'        """{sentence(rng, 8)}"""',
                    "        total = 0",
                    "        for i in range(value):",
                    "            total += i * 2  # " + rng.choice(WORDS),
                    "        return {'total': total, 'name': name}",
                    "",
                ]
        (root / f"module_{f:03d}.py").write_text("\n".join(lines) + "\n")
    return root


_FUNCTION = {
    "py": "def f{i}(value: int) -> int:\n    '''Doc {i}.'''\n    total = value * {i}\n"
    "    return total\n",
    "go": "// F{i} doubles.\nfunc F{i}(value int) int {{\n\ttotal := value * {i}\n"
    "\treturn total\n}}\n",
    "rs": "/// F{i} doubles.\npub fn f{i}(value: i64) -> i64 {{\n    let total = value * {i};\n"
    "    total\n}}\n",
    "ts": "/** F{i} doubles. */\nexport function f{i}(value: number): number {{\n"
    "  const total = value * {i};\n  return total;\n}}\n",
}
_HEAD = {"py": "", "go": "package bench\n\n", "rs": "", "ts": ""}


def code_file(suffix: str, lines: int) -> str:
    """A source file of about ``lines`` lines in the language of ``suffix`` (py, go, rs, ts):
    documented functions, as generated clients are."""
    parts = [_HEAD[suffix]]
    count = len(_HEAD[suffix].splitlines())
    i = 0
    while count < lines:
        text = _FUNCTION[suffix].format(i=i) + "\n"
        parts.append(text)
        count += text.count("\n")
        i += 1
    return "".join(parts)


def agent_session(calls: int, seed: int = 2, result_words: tuple[int, int] = (50, 900)) -> object:
    """A generated agent session as a Transcript: a user task every 15 calls, each call an
    assistant note and a tool call whose result (``result_words``, 50–900 words by default)
    comes before the next call."""
    from ctx_lab.conversation import Message
    from ctx_lab.recordings import Call, Transcript

    rng = random.Random(seed)
    words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu".split()
    messages: list[Message] = []
    made: list[Call] = []
    for i in range(calls):
        if i % 15 == 0:
            messages.append(Message.user("task " + " ".join(rng.choice(words) for _ in range(80))))
        prompt = len(messages)
        note = " ".join(rng.choice(words) for _ in range(rng.randint(10, 60)))
        messages.append(Message.assistant(note))
        messages.append(Message.tool_use(f"c{i}", "Bash", {"command": "ls"}))
        made.append(Call(i, len(messages), "gpt-4o", None, None, prompt))
        output = " ".join(rng.choice(words) for _ in range(rng.randint(*result_words)))
        messages.append(Message.tool_result(f"c{i}", output))
    return Transcript("openai-chat", tuple(messages), tuple(made))


def captured_calls(path: Path, calls: int, window: int = 20, seed: int = 5) -> Path:
    """A capture file of ``calls`` Chat Completions calls of one growing agent conversation:
    a system prompt, 12 tool definitions and the newest ``window`` messages each (an agent
    resends its history; a window stands for its compaction)."""
    import json

    from ctx_lab.anatomy import CaptureStore

    rng = random.Random(seed)
    system = "You are a careful coding agent. " + sentence(rng, 400)
    tools = [
        {"type": "function", "function": {"name": f"tool_{k}", "description": sentence(rng, 40),
         "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}}
        for k in range(12)
    ]  # fmt: skip
    history: list[dict[str, str]] = []
    with CaptureStore(path) as store:
        batch = []
        for i in range(calls):
            role = "user" if i % 2 == 0 else "assistant"
            history.append({"role": role, "content": sentence(rng, rng.randint(20, 300))})
            del history[:-window]
            body = {"model": "gpt-4o", "tools": tools,
                    "messages": [{"role": "system", "content": system}, *history]}  # fmt: skip
            data = json.dumps(body).encode()
            usage = {"prompt_tokens": 4000 + i % 500, "completion_tokens": 5}
            answer = json.dumps({"choices": [], "usage": usage}).encode()
            batch.append({"started": f"2026-01-01T00:{i // 60 % 60:02d}:{i % 60:02d}+00:00",
                          "provider": "openai", "method": "POST", "path": "/v1/chat/completions",
                          "status": 200, "request_body": data, "request_bytes": len(data),
                          "response_body": answer, "response_bytes": len(answer)})  # fmt: skip
            if len(batch) == 500:
                store.record_many(batch)
                batch = []
        if batch:
            store.record_many(batch)
    return path


def dense_context_dir(root: Path, megabytes: float, tasks: int = 400, seed: int = 11) -> Path:
    """A ``.context/`` of about ``megabytes`` whose entries share a small vocabulary: 60-word
    bodies over 30 words, and ``tasks`` open tasks drawing from the same words — every task
    keyword matches nearly every entry (the shape that grows match positions and postings)."""
    rng = random.Random(seed)
    vocabulary = WORDS[:30]

    def words(n: int) -> str:
        return " ".join(rng.choice(vocabulary) for _ in range(n))

    ctx = root / ".context"
    ctx.mkdir(parents=True, exist_ok=True)
    (ctx / "TASKS.md").write_text(
        "# Tasks\n\n" + "".join(f"- [ ] {words(8).capitalize()}.\n" for _ in range(tasks))
    )
    target = int(megabytes * 1_000_000) // 2
    for name in ("DECISIONS.md", "LEARNINGS.md"):
        parts, size, i = [f"# {name[:-3].title()}\n\n"], 0, 0
        while size < target:
            day = f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}-{i % 24:02d}0000"
            part = f"## [{day}] {words(6).capitalize()}\n\n{words(60).capitalize()}.\n\n"
            parts.append(part)
            size += len(part)
            i += 1
        (ctx / name).write_text("".join(parts))
    return root
