"""Code beyond the five hand-ruled languages (issue 42): C, C++, Java, C#, Ruby, PHP, Kotlin and
Swift are skeletoned by their grammar wheels (installed with the package); without a grammar a
summary keeps declaration-looking lines and never offers a licence; refill spends spare budget
on the files the task names first, up to their exact text. Real files: ``fixtures/real-code``
(hiredis ``read.c``, gson ``JsonReader.java``; see fixtures/README.md)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from paths import TESTS

from ctx_lab.builder import build_context
from ctx_lab.builder._code_summary import code_summary, summary_of_skeleton
from ctx_lab.builder.skeletons import code_skeleton
from ctx_lab.builder.skeletons._generic import GRAMMARS, installed

REAL = TESTS / "fixtures" / "real-code"
LICENCE = re.compile(r"copyright|licen[cs]e|all rights reserved|redistribution", re.I)

# the top-level definitions of the real files, read with the grammar itself
C_FUNCTIONS = re.compile(r"^(?:static\s+)?[\w\s\*]+?\b(\w+)\(", re.M)


def _c_names(text: str) -> set[str]:
    """Names of read.c's function definitions: a line at column 0 that opens a body."""
    names = set()
    lines = text.split("\n")
    for i, line in enumerate(lines):
        found = C_FUNCTIONS.match(line)
        if found and not line.startswith(("#", " ", "\t", "}")) and "{" in line + lines[i + 1]:
            names.add(found[1])
    return names


def _java_names(text: str) -> set[str]:
    """Names of JsonReader's methods and constructors (two-space indented members)."""
    return set(
        re.findall(
            r"^  (?:(?:public|private|protected|static|final|abstract|synchronized)\s+)+"
            r"(?:[\w<>\[\],\s]+\s)?(\w+)\([^;]*?\)\s*(?:throws [\w, ]+)?\s*\{",
            text,
            re.M,
        )
    )


@pytest.mark.parametrize(
    "suffix", [".c", ".h", ".cpp", ".java", ".cs", ".rb", ".php", ".kt", ".swift"]
)
def test_the_grammar_wheels_come_with_the_package(suffix: str) -> None:
    assert installed(suffix) == GRAMMARS[suffix]


@pytest.mark.parametrize(
    ("name", "names_of"), [("read.c", _c_names), ("JsonReader.java", _java_names)]
)
def test_real_files_keep_every_definition_and_no_licence(name: str, names_of) -> None:  # type: ignore[no-untyped-def]
    text = (REAL / name).read_text()
    names = names_of(text)
    assert len(names) >= 15, names
    skeleton = code_skeleton(text, Path(name).suffix).text
    summary = code_summary(name, text)
    fallback = summary_of_skeleton(name, text, None)  # as without the grammar
    for form in (skeleton, summary, fallback):
        kept = {n for n in names if re.search(rf"\b{re.escape(n)}\b", form)}
        assert len(kept) >= 0.95 * len(names), sorted(names - kept)
    for form in (summary, fallback):
        assert not LICENCE.search(form), form[:300]
    assert len(skeleton) < len(text) / 3 and len(summary) < len(skeleton)


def test_a_summary_never_offers_a_licence_block() -> None:
    text = "/*\n * Copyright (c) 2009 Someone\n * All rights reserved.\n */\n\nint x;\n"
    assert summary_of_skeleton("a.zig", text, None) == "int x;\n"
    assert summary_of_skeleton("a.zig", "// SPDX-License-Identifier: MIT\n", None) == ""


def test_refill_gives_the_file_the_task_names_its_exact_text(tmp_path: Path) -> None:
    """With room for it, the task's file is exact; without, it keeps its skeleton."""
    for name in ("read.c", "JsonReader.java"):
        shutil.copy(REAL / name, tmp_path / name)
    roomy = build_context("fix the nesting limit in JsonReader", [tmp_path], budget=32_000)
    block = next(b for b in roomy.blocks if b.path.endswith("JsonReader.java"))
    assert block.policy_final == "exact" and block.action == "kept"
    assert "refilled: structural" in block.reason
    other = next(b for b in roomy.blocks if b.path.endswith("read.c"))
    assert other.policy_final == "structural"
    tight = build_context("fix the nesting limit in JsonReader", [tmp_path], budget=12_000)
    block = next(b for b in tight.blocks if b.path.endswith("JsonReader.java"))
    assert block.policy_final == "structural" and tight.tokens <= 12_000


def test_at_a_small_budget_the_files_the_task_names_come_before_trivia(tmp_path: Path) -> None:
    """A task naming "the pager": its files are shown (skeleton or better) while files it does
    not touch (marker files, tool configs, tiny modules) give way."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "py.typed").write_text("")
    (tmp_path / "pkg" / "__init__.py").write_text('"""The package."""\n')
    (tmp_path / ".yarnrc.yml").write_text("nodeLinker: node-modules\nenableTelemetry: false\n")
    (tmp_path / "runtime.txt").write_text("python-3.11\n")
    shutil.copy(REAL / "read.c", tmp_path / "pkg" / "reader.c")
    pager = "".join(
        f"def go_to_{i}(page: int) -> int:\n    '''Go to page {i}.'''\n    return page + {i}\n\n"
        for i in range(25)
    )
    (tmp_path / "pkg" / "_pager.py").write_text(pager)
    for i in range(60):  # many files the task does not touch, each worth a line in the list
        (tmp_path / "pkg" / f"module_{i:02d}.py").write_text(f"VALUE_{i} = {i}\n" * 40)
    built = build_context("fix the pager go-to edge cases", [tmp_path], budget=2_000)
    by_path = {b.path.rsplit("/", 1)[-1]: b for b in built.blocks}
    assert by_path["_pager.py"].policy_final in ("exact", "structural", "summarizable")
    assert by_path["_pager.py"].action not in ("listed", "dropped")
    assert "named by the task" in by_path["_pager.py"].reason
    assert built.tokens <= 2_000
