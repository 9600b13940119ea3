"""Every example a command's ``--help`` prints, and the docs' CI steps, run as printed: in bash
(so ``~`` and ``*`` expand as a shell expands them), with ``ctx-lab`` the installed command, in
a scratch folder and home holding real inputs under the names the examples use. Only a line
that names a machine this test cannot reach is left out, and it says which."""

from __future__ import annotations

import gzip
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from paths import RECORDED, REPO

from ctx_lab.commands import commands

pytestmark = pytest.mark.slow

HELD = RECORDED / "marot__spotter"
# a line this machine cannot run as printed, and why (loopback only here)
NOT_HERE = {"--scheduler tcp://10.0.0.5:8786": "a Dask scheduler at 10.0.0.5"}
CURSOR = "<next_cursor of the previous call>"


def help_examples() -> list[tuple[str, str]]:
    """``(command, line)`` for every example line of every command's ``--help``."""
    found = []
    for name, command in commands().items():
        for line in (command.epilog or "").splitlines():
            if line.strip().startswith("ctx-lab "):
                found.append((name, line.strip()))
    return found


def docs_ci_steps() -> list[str]:
    """The ``run: ctx-lab …`` lines of the docs' CI (YAML) examples."""
    found = []
    for path in sorted((REPO / "docs").glob("*.md")):
        for block in re.findall(r"```yaml\n(.*?)```", path.read_text(encoding="utf-8"), re.S):
            found += [m.strip() for m in re.findall(r"run:\s*(ctx-lab .*)", block)]
    return found


def _inputs(work: Path, home: Path) -> None:
    """The files the examples name, made from the repository's own real inputs."""
    from ctx_lab.anatomy import CaptureStore
    from ctx_lab.examples import EXAMPLE_DIR, SESSIONS_DIR
    from ctx_lab.examples.corpus import make_corpus

    claude = (SESSIONS_DIR / "coding-session.jsonl").read_bytes()
    for name in ("SESSION.jsonl", "session.jsonl", "a.jsonl", "b.jsonl"):
        (work / name).write_bytes(claude)
    (work / "chat-log.jsonl").write_bytes((SESSIONS_DIR / "support-chat.jsonl").read_bytes())
    projects = home / ".claude" / "projects" / "repo"
    projects.mkdir(parents=True)
    for packed in sorted(HELD.glob("*.jsonl.gz"))[:2]:  # real Claude Code sessions, with usage
        (projects / packed.name.removesuffix(".gz")).write_bytes(
            gzip.decompress(packed.read_bytes())
        )
    (projects / "SESSION.jsonl").write_bytes(claude)
    request = {"model": "gpt-4o", "messages": [{"role": "user", "content": "Count me."}]}
    (work / "request.json").write_text(json.dumps(request))
    with CaptureStore(work / "capture.db") as store:
        body = json.dumps({"model": "claude-sonnet-4-5", "max_tokens": 8,
                           "messages": [{"role": "user", "content": "hi"}]}).encode()  # fmt: skip
        answer = json.dumps({"type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                             "content": [{"type": "text", "text": "hello"}],
                             "usage": {"input_tokens": 8, "output_tokens": 2}}).encode()  # fmt: skip
        store.record_many([{
            "started": "2026-01-01T00:00:00+00:00", "provider": "anthropic", "method": "POST",
            "path": "/v1/messages", "status": 200, "stream": False, "request_body": body,
            "request_bytes": len(body), "response_body": answer, "response_bytes": len(answer),
        }])  # fmt: skip
    shutil.copy(work / "capture.db", work / "calls.db")
    (projects.parent / "x").mkdir()
    shutil.copy(work / "SESSION.jsonl", projects.parent / "x" / "session.jsonl")
    subprocess.run([sys.executable, "-m", "ctx_lab.conversation", str(work)], check=True,
                   capture_output=True)  # fmt: skip
    (home / ".agent").mkdir()
    shutil.copy(work / "stream.db", home / ".agent" / "stream.db")
    (work / "task.md").write_text("# Task\n\nAdd retries to the fetcher, with a backoff.\n")
    (work / "ctx-rules.toml").write_text("[rules.fill]\npercent = 80\n")
    (work / "docs").mkdir()
    shutil.copy(REPO / "notebooks" / "data" / "gateway-handbook.pdf", work / "docs" / "guide.pdf")
    (work / "src").mkdir()
    (work / "src" / "app.py").write_text("".join(f"line_{i} = {i}\n" for i in range(1, 121)))
    (work / "notes.md").write_text("".join(f"Note {i}: a sentence.\n" for i in range(1, 200)))
    shutil.copy(REPO / "README.md", work / "README.md")
    shutil.copytree(EXAMPLE_DIR / ".context", work / ".context")
    steering = work / ".context" / "steering"
    steering.mkdir(exist_ok=True)
    (steering / "release-checklist.md").write_text("# Release checklist\n\n- tag, then notes.\n")
    shutil.copytree(EXAMPLE_DIR, work / "src" / "billing")
    shutil.copytree(EXAMPLE_DIR, home / "src" / "billing")
    made = make_corpus(work / "corpus", projects=3, sessions=2, seed=1)
    (work / "projects").mkdir()
    for project in made.projects:
        shutil.copytree(project, work / "projects" / project.name)
    (work / "sessions").mkdir()
    shutil.copy(work / "SESSION.jsonl", work / "sessions" / "one.jsonl")
    os.symlink(REPO / "ctx_lab", work / "ctx_lab")  # the examples that read ctx_lab's own code


def _run(line: str, work: Path, home: Path) -> subprocess.CompletedProcess[str]:
    script = (
        f'ctx-lab() {{ {shlex.quote(sys.executable)} -m ctx_lab.cli "$@"; }}\n'
        f"cd {shlex.quote(str(work))}\n{line}\n"
    )
    env = {**os.environ, "HOME": str(home), "CTX_LAB_CONFIG_DIR": str(home / ".config"),
           "COLUMNS": "100"}  # fmt: skip
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY"):
        env.pop(key, None)
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env,
                          timeout=300, check=False)  # fmt: skip


def test_every_help_example_and_ci_step_runs_as_printed(tmp_path: Path) -> None:
    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir()
    home.mkdir()
    _inputs(work, home)
    lines = [line for _, line in help_examples()] + docs_ci_steps()
    assert len(lines) > 50 and any("-o ctx.sarif" in line for line in lines)
    failed: list[str] = []
    skipped: list[str] = []
    for line in lines:
        reason = next((why for part, why in NOT_HERE.items() if part in line), None)
        if reason is not None:
            skipped.append(reason)
            continue
        if CURSOR in line:  # the cursor a first read of the same file printed
            uri = line.split()[2]
            first = _run(f"ctx-lab read {uri} --max-chars 1000 --format json", work, home)
            cursor = json.loads(first.stdout)["next_cursor"]
            assert cursor, first.stdout[:300]
            line = line.replace(CURSOR, shlex.quote(cursor))
        done = _run(line, work, home)
        # 0, or 1 where the command reports what it found (check: findings), never 2
        if done.returncode not in (0, 1) or "Traceback" in done.stderr:
            failed.append(f"{line}\n  exit {done.returncode}: {done.stderr.strip()[-400:]}")
        elif done.returncode == 1 and not line.startswith("ctx-lab check"):
            failed.append(f"{line}\n  exit 1: {done.stderr.strip()[-400:]}")
    assert skipped == list(NOT_HERE.values())
    assert not failed, "examples that do not run as printed:\n" + "\n".join(failed)


def test_the_example_inputs_writer_never_takes_a_flag_for_a_folder(tmp_path: Path) -> None:
    """``python -m ctx_lab.conversation --help`` made a folder named ``--help``."""
    for args, code in ((["--help"], 0), (["-x"], 2), ([], 2), (["a", "b"], 2)):
        done = subprocess.run([sys.executable, "-m", "ctx_lab.conversation", *args],
                              cwd=tmp_path, capture_output=True, text=True, check=False)  # fmt: skip
        assert done.returncode == code, (args, done.stderr)
    assert not list(tmp_path.iterdir())
    done = subprocess.run([sys.executable, "-m", "ctx_lab.conversation", "made"], cwd=tmp_path,
                          capture_output=True, text=True, check=True)  # fmt: skip
    assert sorted(p.name for p in (tmp_path / "made").iterdir()) == ["chat.json", "stream.db"]
