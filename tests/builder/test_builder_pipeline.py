"""build_context: degradation order, exact content, dropping, budgets, memory, files."""

from __future__ import annotations

import itertools
import json
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from packet_helpers import decision, make_context
from paths import REPO

from ctx_lab.builder import ContentBlock, ContextMemory, build_context
from ctx_lab.errors import ExactContentTooLarge
from ctx_lab.tokens import count_tokens


def outcome(result, block_id: str):
    return next(b for b in result.blocks if b.block == block_id)


def make_files(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text(
        "import os\n\n\ndef main():\n"
        + "".join(f"    x{i} = {i}\n" for i in range(200))
        + "    return 0\n"
    )
    (tmp_path / "guide.md").write_text(
        "# Guide\n\nIntro paragraph.\n\n"
        + "".join(f"Detail {i}: you must check this.\n" for i in range(300))
    )
    (tmp_path / "config.json").write_text(json.dumps({"items": list(range(500)), "name": "svc"}))
    return tmp_path


def test_everything_fits_unchanged_policies(tmp_path: Path) -> None:
    make_files(tmp_path)
    result = build_context("Fix the bug", ["app.py", "guide.md"], budget=60_000, root=tmp_path)
    assert result.prompt.startswith("## Task\nFix the bug\n")
    assert "\n## File: app.py\n" in result.prompt and "\n## File: guide.md\n" in result.prompt
    assert outcome(result, "file:app.py").policy_final == "structural"
    assert outcome(result, "file:guide.md").policy_final == "summarizable"
    assert outcome(result, "task").action == "kept"
    assert result.tokens == count_tokens(result.prompt, "chars/3") <= 60_000


def test_degrades_lowest_priority_first(tmp_path: Path) -> None:
    make_files(tmp_path)
    full = build_context("t", ["app.py", "guide.md", "config.json"], budget=60_000, root=tmp_path)
    budget = full.tokens - 5
    result = build_context("t", ["app.py", "guide.md", "config.json"], budget=budget, root=tmp_path)
    doc = outcome(result, "file:guide.md")  # documentation: priority 40, first to go
    # a reference past a quarter of this tiny budget goes in the list of other files
    assert doc.action in ("degraded", "listed") and doc.policy_final == "reference"
    assert outcome(result, "file:app.py").action == "kept"
    assert result.tokens <= budget


def test_ties_larger_block_first(tmp_path: Path) -> None:
    (tmp_path / "small.md").write_text(
        "# S\n\n" + "".join(f"short line {i}\n" for i in range(5)) + "\nmore\n" * 5
    )
    (tmp_path / "big.md").write_text(
        "# B\n\n" + "".join(f"long line of text here {i}\n" for i in range(50)) + "\nmore\n" * 50
    )
    full = build_context("t", ["small.md", "big.md"], budget=60_000, root=tmp_path)
    result = build_context("t", ["small.md", "big.md"], budget=full.tokens - 1, root=tmp_path)
    assert outcome(result, "file:big.md").action == "degraded"
    assert outcome(result, "file:small.md").action == "kept"


def test_exact_never_degrades_and_too_large_names_blocks(tmp_path: Path) -> None:
    (tmp_path / "schema.json").write_text(json.dumps({"k": "v" * 600}))
    with pytest.raises(ExactContentTooLarge) as info:
        build_context(
            "do it " * 10, ["schema.json"], budget=150, root=tmp_path, exact=["schema.json"]
        )
    names = [name for name, _ in info.value.blocks]
    assert names == ["task", "file:schema.json"] and info.value.budget == 150
    assert "file:schema.json (" in str(info.value)
    ok = build_context("do it", ["schema.json"], budget=1000, root=tmp_path, exact=["schema.json"])
    assert json.dumps({"k": "v" * 600}) in ok.prompt
    assert outcome(ok, "file:schema.json").policy_final == "exact"


def test_drops_when_references_do_not_fit(tmp_path: Path) -> None:
    for i in range(12):
        (tmp_path / f"doc{i}.md").write_text(f"# Doc {i}\n\n" + "words " * 200 + "\n")
    result = build_context("task", [f"doc{i}.md" for i in range(12)], budget=200, root=tmp_path)
    actions = [b.action for b in result.blocks if b.source == "file"]
    assert "dropped" in actions and result.tokens <= 200
    dropped = [b for b in result.blocks if b.action == "dropped"]
    assert all(b.tokens_after == 0 and "dropped" in b.reason for b in dropped)


def test_budget_precedence(tmp_path: Path) -> None:
    assert build_context("t", budget=500, root=tmp_path).budget == 500
    assert build_context("t", model="gpt-4o", root=tmp_path).budget == 106_036
    assert build_context("t", root=tmp_path).budget == 60_000
    (tmp_path / "pyproject.toml").write_text("[tool.ctx-lab]\ntoken_budget = 7000\n")
    assert build_context("t", root=tmp_path).budget == 7000
    (tmp_path / "ctx-lab.toml").write_text("token_budget = 9000\n")
    assert build_context("t", root=tmp_path).budget == 9000


def test_memory_from_context_dir_uses_keyword_relevance(tmp_path: Path) -> None:
    make_context(
        tmp_path,
        decisions=decision(
            "2026-05-01-000000",
            "Retry webhooks with backoff",
            "Use exponential backoff for retries",
        )
        + decision("2026-05-02-000000", "Unrelated choice", "Nothing to see")
        + decision("2026-05-03-000000", "Old retry", "~~Superseded by x~~ retries"),
    )
    result = build_context(
        "Add retries to webhook delivery", memory=tmp_path, budget=5000, root=tmp_path
    )
    memory = [b for b in result.blocks if b.source == "memory"]
    assert [b.path for b in memory] == [".context/DECISIONS.md#L1"]  # where the entry is
    assert "\n## Relevant Memory\n- " in result.prompt
    hits = ContextMemory(tmp_path).search("webhook retries", 5)
    assert len(hits) == 1 and hits[0].priority == 60  # the task boost ranks it like code


def test_failing_memory_and_unreadable_files_warn(tmp_path: Path) -> None:
    class Broken:
        def search(self, query: str, k: int):
            raise RuntimeError("index offline")

    (tmp_path / "ok.md").write_text("# ok\n")
    secret = tmp_path / "secret.md"
    secret.write_text("x")
    secret.chmod(0)
    try:
        result = build_context(
            "t", ["ok.md", "secret.md", "nope.md"], memory=Broken(), root=tmp_path
        )
    finally:
        secret.chmod(0o644)
    text = " ".join(result.warnings)
    assert "index offline" in text and "nope.md" in text
    import os

    if os.geteuid() != 0:  # root can read anything
        assert "secret.md" in text


def test_globs_directories_binary_and_gitignore(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("build/\n*.log\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("def a():\n    return 1\n")
    (tmp_path / "src" / "b.go").write_text("package b\nfunc B() {}\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "out.py").write_text("x = 1\n")
    (tmp_path / "debug.log").write_text("log\n")
    (tmp_path / "logo.png").write_bytes(b"\x89PNG\x00\x00binary")
    result = build_context(
        "t", ["src/**/*.py", "src", "*.log", "build", "logo.png"], budget=5000, root=tmp_path
    )
    ids = [b.block for b in result.blocks]
    assert ids == ["task", "file:src/a.py", "file:src/b.go", "file:logo.png"]
    png = outcome(result, "file:logo.png")
    assert (
        png.policy_initial == "reference"
        and "[ref: logo.png (12 bytes, 0 lines)] (binary)" in result.prompt
    )


def test_blocks_given_directly_and_ledger(tmp_path: Path) -> None:
    block = ContentBlock.for_file("inline.md", "# Inline\n\nText.\n", priority=5)
    result = build_context(ContentBlock.for_task("Task text"), [block], budget=1000, root=tmp_path)
    frame = result.ledger()
    assert list(frame.columns) == [
        "block",
        "source",
        "path",
        "priority",
        "policy_initial",
        "policy_final",
        "tokens_before",
        "tokens_after",
        "action",
        "reason",
        "partial",
        "boost",
    ]
    assert frame.set_index("block").loc["file:inline.md", "priority"] == 5
    assert result.plot() is not None


texts = st.text(alphabet=st.sampled_from(list("abc def\n#-*→日")), min_size=0, max_size=400)


@st.composite
def block_sets(draw: st.DrawFn) -> list[ContentBlock]:
    blocks = []
    for i in range(draw(st.integers(0, 6))):
        ext = draw(st.sampled_from([".md", ".txt", ".py", ".json"]))
        policy = draw(st.sampled_from([None, None, None, "exact"]))
        blocks.append(
            ContentBlock.for_file(
                f"f{i}{ext}", draw(texts), policy=policy, priority=draw(st.integers(1, 90))
            )
        )
    return blocks


def check_promise(task: str, blocks: list[ContentBlock], budget: int, counter: str) -> None:
    try:
        result = build_context(task, blocks, budget=budget, counter=counter)
    except ExactContentTooLarge:
        return
    assert result.tokens == count_tokens(result.prompt, counter) <= budget
    for block in blocks:
        if block.policy == "exact":
            assert block.text in result.prompt
    assert task in result.prompt


@given(texts.filter(str.strip), block_sets(), st.integers(0, 800))
def test_budget_promise_chars3(task: str, blocks: list[ContentBlock], budget: int) -> None:
    check_promise(task, blocks, budget, "chars/3")


@settings(max_examples=40)
@given(texts.filter(str.strip), block_sets(), st.integers(0, 600))
def test_budget_promise_cl100k(task: str, blocks: list[ContentBlock], budget: int) -> None:
    check_promise(task, blocks, budget, "cl100k")


def test_cli_build_on_this_repository(run_cli, monkeypatch) -> None:
    monkeypatch.chdir(REPO)
    code, out, err = run_cli(
        "build",
        "--task",
        "Make the pager faster",
        "ctx_lab/",
        "--budget",
        "4000",
        "--format",
        "json",
    )
    assert code == 0, err
    data = json.loads(out)
    assert data["tokens"] <= 4000 and data["budget"] == 4000
    policies = {b["policy_final"] for b in data["blocks"]}
    assert "exact" in policies and len(data["blocks"]) > 20
    assert all(
        {"policy_initial", "policy_final", "tokens_before", "tokens_after", "action", "reason"}
        <= set(b)
        for b in data["blocks"]
    )


def test_cli_build_and_compress_errors(run_cli, tmp_path: Path) -> None:
    code, _, err = run_cli("build", "x.py")
    assert code == 2 and "--task" in err
    (tmp_path / "t.md").write_text("x" * 3000)
    code, _, err = run_cli("build", "--task-file", str(tmp_path / "t.md"), "--budget", "10")
    assert code == 1 and "exact content needs" in err
    code, out, _ = run_cli("compress", str(REPO / "ctx_lab" / "paging" / "_pager.py"))
    assert code == 0 and "structural" in out.splitlines()[0] and "→" in out.splitlines()[0]
    code, out, _ = run_cli(
        "compress", str(REPO / "README.md"), "--policy", "reference", "--format", "json"
    )
    data = json.loads(out)
    assert data["policy"] == "reference" and data["text"].startswith("[ref: ")


def test_cell_magic_build(tmp_path: Path, monkeypatch, ip) -> None:
    from ctx_lab.builder import BuildResult

    monkeypatch.chdir(tmp_path)
    (tmp_path / "n.md").write_text("# Notes\n\nHello.\n")
    result = ip.run_cell_magic("ctx", "build n.md --budget 500", "Summarize the notes")
    assert isinstance(result, BuildResult) and result.prompt.startswith(
        "## Task\nSummarize the notes\n"
    )
    assert "application/vnd.ctx-lab.build+json" in result._repr_mimebundle_()


def test_a_refill_note_counts_as_the_degrade_note_and_tokens_after_do() -> None:
    """Degrade and refill notes give a block's own tokens, the numbers tokens_after shows."""
    import re

    data = REPO / "notebooks" / "data"
    files = [str(data / n) for n in ("code.py", "ledger.go", "cart.ts", "data.json", "prose.md")]
    task = "Add a refund method to the ledger and show refunds in the cart total."
    climbed = []
    for budget in range(300, 2000, 100):
        for block in build_context(task, files, budget=budget).blocks:
            if "refilled:" in block.reason:
                climbed.append(block)
    assert climbed
    for block in climbed:
        steps = re.findall(r"refilled: \w+ \((\d+) tokens\) → \w+ \((\d+) tokens\)", block.reason)
        assert steps, block.reason
        assert int(steps[-1][1]) == block.tokens_after  # the last climb is where it ended
        for (_, reached), (start, _) in itertools.pairwise(steps):
            assert reached == start  # each climb starts where the one before ended
        down = re.findall(r"\w+ → \w+ \((\d+) → (\d+) tokens\)", block.reason)
        if down:
            assert int(down[-1][1]) == int(steps[0][0])  # the first climb undoes the last step
        else:  # never degraded: a file the task names climbed past its default to exact
            assert "→ exact" in block.reason and "named by the task" in block.reason


def test_code_below_the_cut_is_referenced_without_being_parsed(tmp_path: Path, monkeypatch) -> None:
    """Degrading takes the lowest priorities first, each block down to a reference before the
    next priority: code files below that point are referenced as they are, never parsed, and
    say so — while the files that can be in the prompt are compressed as before."""
    from ctx_lab.builder import _compress

    (tmp_path / "tests").mkdir()
    for i in range(40):  # test files: below the code when the task is not about tests
        (tmp_path / "tests" / f"test_mod{i:02d}.py").write_text(
            "".join(
                f"def test_{i}_{j}(x):\n    '''Doc {j}.'''\n    assert x\n\n" for j in range(60)
            )
        )
    for i in range(3):
        (tmp_path / f"mod{i}.py").write_text(
            "".join(
                f"def f{i}_{j}(x):\n    '''Doc {j}.'''\n    return x + {j}\n\n" for j in range(60)
            )
        )
    (tmp_path / "retry.py").write_text(
        "".join(f"def retry_{j}(x):\n    '''Retry {j}.'''\n    return x\n\n" for j in range(20))
    )
    parsed: list[str] = []
    real = _compress.structural
    monkeypatch.setattr(
        _compress, "structural", lambda path, text: parsed.append(path) or real(path, text)
    )
    _compress._CACHE.clear()
    result = build_context("Add retries to retry.py", [str(tmp_path)], budget=1500, root=tmp_path)
    assert result.tokens <= 1500
    by_path = {b.path: b for b in result.blocks if b.source == "file"}
    assert by_path["retry.py"].policy_final != "reference"  # named by the task: formed
    assert parsed and len(parsed) < 10  # not the other 40 modules
    unparsed = [b for b in by_path.values() if "referenced as it is" in b.reason]
    assert len(unparsed) == 40 and all(b.path.startswith("tests/") for b in unparsed)
    assert all(b.policy_final == "reference" for b in unparsed)
    # with room for everything, every file is formed as before
    parsed.clear()
    _compress._CACHE.clear()
    roomy = build_context("Add retries to retry.py", [str(tmp_path)], budget=10**6, root=tmp_path)
    assert len(parsed) == 44 and all("referenced as it is" not in b.reason for b in roomy.blocks)
