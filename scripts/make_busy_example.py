"""Write ``ctx_lab/examples/busy/``: a generated, busy ``.context/`` in today's layout (theme
folders, steering files, a legend comment holding entries, multi-paragraph tasks) with ~250
decisions and learnings — big enough that relevance rules rank differently.

Deterministic (a fixed seed and dates): ``python scripts/make_busy_example.py`` rewrites the
same bytes. Notebook 02 and the packet tests read it; the bench times packets on it.
"""

from __future__ import annotations

import random
import shutil
from datetime import datetime, timedelta
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "ctx_lab" / "examples" / "busy"
NOW = datetime(2026, 6, 15, 12, 0, 0)

# Topic → rare words that mostly occur in that topic's entries.
TOPICS = {
    "hooks": ["hook", "pre-commit", "edge", "sandbox", "exit-code"],
    "sessions": ["session", "transcript", "resume", "handoff"],
    "tokens": ["tokenizer", "budget", "estimate", "overshoot"],
    "journal": ["journal", "append", "fsync", "rotation"],
    "permissions": ["permission", "allowlist", "deny", "escalation"],
    "templates": ["template", "scaffold", "placeholder", "legend"],
    "search": ["index", "bm25", "ranking", "stemming"],
    "release": ["release", "changelog", "semver", "tag"],
    "mcp": ["mcp", "resource", "notification", "stdio"],
    "watch": ["watcher", "debounce", "inotify", "poll"],
    "paths": ["symlink", "traversal", "confine", "root"],
    "cache": ["cache", "eviction", "mtime", "stale"],
}
COMMON = [
    "context",
    "file",
    "command",
    "agent",
    "project",
    "entry",
    "packet",
    "tests",
    "change",
    "user",
    "output",
    "config",
    "default",
    "error",
    "docs",
    "code",
    "run",
    "path",
]
VERBS = ["Use", "Keep", "Prefer", "Avoid", "Require", "Move", "Split", "Document", "Cache", "Check"]


def sentence(rng: random.Random, topic: str, rare: int, common: int) -> str:
    words = rng.sample(TOPICS[topic], rare) + rng.sample(COMMON, common)
    rng.shuffle(words)
    return " ".join(words).capitalize() + "."


def entry(rng: random.Random, stamp: datetime, topic: str, kind: str) -> str:
    title_words = rng.sample(TOPICS[topic], 2) + rng.sample(COMMON, 2)
    title = f"{rng.choice(VERBS)} {' '.join(title_words)}"
    if kind == "decision":
        body = (
            f"**Status**: Accepted\n\n**Context**: {sentence(rng, topic, 2, 6)}\n\n"
            f"**Decision**: {sentence(rng, topic, 1, 5)}\n\n"
            f"**Consequence**: {sentence(rng, topic, 1, 7)}"
        )
    else:
        body = (
            f"**Context**: {sentence(rng, topic, 1, 7)}\n\n**Lesson**: {sentence(rng, topic, 2, 5)}"
            f"\n\n**Application**: {sentence(rng, topic, 1, 6)}"
        )
    return f"## [{stamp:%Y-%m-%d-%H%M%S}] {title}\n\n{body}\n"


def main() -> None:
    rng = random.Random(20260615)
    shutil.rmtree(OUT, ignore_errors=True)
    ctx = OUT / ".context"
    for folder in ("decisions", "learnings", "conventions", "steering"):
        (ctx / folder).mkdir(parents=True)
    topics = list(TOPICS)
    stamps = sorted(
        (
            NOW - timedelta(days=rng.randint(0, 280), seconds=rng.randint(0, 86399))
            for _ in range(250)
        ),
        reverse=True,
    )
    themed: dict[tuple[str, str], list[str]] = {}
    legend: list[str] = []
    for i, stamp in enumerate(stamps):
        kind = "decision" if i % 5 < 2 else "learning"
        topic = topics[rng.randrange(len(topics))]
        text = entry(rng, stamp, topic, kind)
        if kind == "decision" and len(legend) < 4 and i % 7 == 0:
            legend.append(text)  # filed inside the template's legend, as real tools do
        else:
            themed.setdefault((kind + "s", topic), []).append(text)
    for (folder, topic), texts in sorted(themed.items()):
        body = "\n---\n\n".join(texts)
        (ctx / folder / f"{topic}.md").write_text(f"# {topic}\n\n{body}", encoding="utf-8")
    (ctx / "DECISIONS.md").write_text(
        "# Decisions\n\nThemes live in decisions/.\n\n<!-- DECISION FORMATS\n\n"
        "## [YYYY-MM-DD-HHMMSS] Decision Title\n\n**Status**: Accepted | Superseded\n\n"
        + "\n".join(legend)
        + "-->\n",
        encoding="utf-8",
    )
    (ctx / "LEARNINGS.md").write_text(
        "# Learnings\n\nThemes live in learnings/.\n", encoding="utf-8"
    )
    (ctx / "CONSTITUTION.md").write_text(
        "# Constitution\n\n- [ ] Never commit secrets or tokens\n"
        "- [ ] Every command has a test that fails without it\n"
        "- [ ] Never write outside the project root\n",
        encoding="utf-8",
    )
    tasks = ["# Tasks\n\n## In Progress\n"]
    for n in range(18):
        topic = topics[n % len(topics)]
        added = NOW - timedelta(days=n * 3 + 1)
        mark = "*" if n % 4 == 0 else "-"
        tasks.append(f"{mark} [ ] {sentence(rng, topic, 2, 4)}\n")
        if n % 3 == 0:
            tasks.append(f"\n  {sentence(rng, topic, 1, 5)}\n\n")
        tasks.append(
            f"  #added:{added:%Y-%m-%d-%H%M%S}" + (" #priority:high" if n % 5 == 0 else "") + "\n"
        )
    tasks.append("\n## Done\n- [x] Scaffold the project #added:2025-09-01-100000\n")
    (ctx / "TASKS.md").write_text("".join(tasks), encoding="utf-8")
    conventions = ["# Conventions\n"]
    for topic in topics[:8]:
        conventions.append(f"- **{topic.capitalize()}**: {sentence(rng, topic, 1, 4)}\n")
    (ctx / "CONVENTIONS.md").write_text("".join(conventions), encoding="utf-8")
    (ctx / "conventions" / "naming.md").write_text(
        "# naming\n\n- **Commands are verbs**: `ctx add`, never `ctx adder`\n"
        "- **Files are nouns**: one concept per module\n",
        encoding="utf-8",
    )
    steering = {
        "security": (
            "Security rules for all code changes",
            "always",
            10,
            "- Never log secrets.\n- Validate every path against the project root.",
        ),
        "hooks": (
            "Hook authoring rules",
            "auto",
            20,
            "- Hooks are idempotent.\n- A hook's exit code is its only verdict.",
        ),
        "release": (
            "Release checklist",
            "manual",
            30,
            "1. Update the changelog.\n2. Tag with semver.\n3. Publish.",
        ),
        "draft": (
            "A steering file nobody edited yet",
            "always",
            50,
            "<!-- remove this after you edit the steering file !-->\n",
        ),
    }
    for name, (description, inclusion, priority, body) in steering.items():
        (ctx / "steering" / f"{name}.md").write_text(
            f"---\nname: {name}\ndescription: {description}\ninclusion: {inclusion}\n"
            f"tools: []\npriority: {priority}\n---\n\n{body}\n",
            encoding="utf-8",
        )


if __name__ == "__main__":
    main()
