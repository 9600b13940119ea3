"""The builder on real-shaped repositories: tolerant parsing, Go and Rust structure, code
summaries, data skeletons that stay valid, binary/media/generated files, refill, the task
boost, and files named explicitly although ignored."""

from __future__ import annotations

import json
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
import yaml
from paths import TESTS

from ctx_lab.builder import ContentBlock, build_context
from ctx_lab.builder._compress import apply_policy, structural, summary
from ctx_lab.builder._data_skeleton import data_skeleton
from ctx_lab.builder._fit import section_text as _section_text
from ctx_lab.tokens import count_tokens

FIXTURES = TESTS / "fixtures" / "builder"


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def outcome(result, block_id: str):  # type: ignore[no-untyped-def]
    return next(b for b in result.blocks if b.block == block_id)


# -- row 2: tolerant parsing --------------------------------------------------------------------


def test_rust_with_a_block_the_grammar_cannot_parse_keeps_the_rest() -> None:
    found = structural("bufcrate.rs", fixture("bufcrate.rs"))
    assert found.partial and "unsafe extern" in found.note
    for kept in ("pub struct Buf", "pub trait Read", "macro_rules! impl_buf", "impl Buf"):
        assert kept in found.text
    block = ContentBlock.for_file("bufcrate.rs", fixture("bufcrate.rs"))
    compressed = apply_policy(block, "structural")
    assert compressed.policy == "structural" and compressed.partial


def test_partial_is_marked_in_the_build_ledger(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "bufcrate.rs", tmp_path / "lib.rs")
    result = build_context("tidy the buffer", ["lib.rs"], budget=5000, root=tmp_path)
    row = outcome(result, "file:lib.rs")
    assert row.partial and "partial" in row.reason and "pub struct Buf" in result.prompt


def test_python_312_syntax_keeps_its_classes_and_functions() -> None:
    found = structural("stack.py", fixture("stack312.py"))
    assert "class Stack[T]:" in found.text and "def first[T](items: list[T]) -> T:" in found.text
    assert '"""A last-in, first-out stack."""' in found.text
    assert "type Pair[T] = tuple[T, T]" in found.text and "tree-sitter" in found.note
    assert "self.items.append" not in found.text


# -- row 3: Go and Rust structure ---------------------------------------------------------------


def test_go_keeps_build_constraints_and_doc_comments_of_exported_names() -> None:
    text = structural("doc.go", fixture("transport_doc.go")).text
    assert text.startswith("//go:build linux && amd64\n// +build linux,amd64\n")
    assert "// Package transport moves bytes between peers." in text
    assert "// It keeps connections alive" in text  # the package doc whole
    assert "// Client sends requests.\ntype Client struct" in text
    assert "// Do sends one request.\nfunc (c *Client) Do" in text
    assert "It retries on failure" not in text  # an item's doc: its first line
    assert "helper is unexported" not in text and "internal helper comment" not in text


def test_rust_attributes_stay_with_their_items_and_crate_docs_stay() -> None:
    text = structural("lib.rs", fixture("bufcrate.rs")).text
    assert text.startswith("//! A small buffer crate.")
    assert "#![no_std]\n#![deny(missing_docs)]" in text
    assert '#[cfg(feature = "std")]\nextern crate std;' in text
    # the attribute of the dropped macro call does not land on the next item
    assert '#[cfg(feature = "alloc")]' not in text
    assert "\nextern crate alloc;" in text
    assert "/// A buffer of bytes.\n#[derive(Debug, Clone)]\npub struct Buf" in text


# -- row 4: summaries of code -------------------------------------------------------------------


def test_code_summary_keeps_names_and_never_reads_comments_as_headings() -> None:
    text = summary("client.py", fixture("client.py"))
    assert "class Client:" in text and "class AsyncClient:" in text
    assert "async def close(self) -> None:" in text
    assert "# Transport selection" not in text and "-----" not in text
    lines = [ln for ln in text.split("\n") if ln.strip()]
    top_level = [ln for ln in lines if not ln[0].isspace()]
    assert len(top_level) == len(set(top_level))
    go = summary("doc.go", fixture("transport_doc.go"))
    assert "type Client struct" in go and "func (c *Client) Do" in go and "package transport" in go
    rust = summary("lib.rs", fixture("bufcrate.rs"))
    assert "pub struct Buf" in rust and "pub trait Read" in rust


def test_prose_summaries_say_a_line_once() -> None:
    text = "# Notes\n\nNOTE: keep it.\n\nmore\n\nNOTE: keep it.\n\nNOTE: keep it.\n"
    assert summary("notes.md", text).count("NOTE: keep it.") == 1


# -- row 5: data skeletons ----------------------------------------------------------------------


@pytest.mark.parametrize("length", range(41, 53))
def test_elided_strings_never_grow(length: int) -> None:
    value = "x" * length
    out = json.loads(data_skeleton(json.dumps({"k": value}), "json"))["k"]
    assert len(out) <= length


def test_toml_skeleton_keeps_quoted_keys_and_comments_and_parses() -> None:
    text = fixture("pyproject_sample.toml")
    out = data_skeleton(text, "toml")
    parsed = tomllib.loads(out)
    ignores = parsed["tool"]["ruff"]["lint"]["per-file-ignores"]
    assert ignores["__init__.py"] == ["F401"] and "tests/*.py" in ignores
    assert '"__init__.py" = ["F401"]' in out
    assert out.startswith("# Sample configuration\n")
    assert "# Per-file lint exceptions\n[tool.ruff.lint.per-file-ignores]" in out
    assert "\n[tool]\n" not in out and "\n[tool.ruff]\n" not in out  # no empty parent tables
    assert parsed["tool"]["bins"] == [{"name": "one"}]


@pytest.mark.parametrize(
    ("fmt", "text", "load"),
    [
        ("json", json.dumps({"a.b": {"c": list(range(20)), "d": "y" * 300}}), json.loads),
        ("yaml", "a.b:\n  c: [1, 2, 3, 4, 5]\n  d: '" + "y" * 300 + "'\n", yaml.safe_load),
        (
            "toml",
            '"a.b" = { c = [1, 2, 3, 4, 5] }\n[x."y.z"]\nd = "' + "y" * 300 + '"\n',
            tomllib.loads,
        ),
    ],
)
def test_data_skeletons_parse_as_their_format(fmt: str, text: str, load) -> None:  # type: ignore[no-untyped-def]
    out = data_skeleton(text, fmt)
    parsed = load(out)
    assert "a.b" in parsed or "x" in parsed


# -- row 6: binary, media, minified and generated files ------------------------------------------


def test_binary_media_minified_lock_and_generated_files_are_references(tmp_path: Path) -> None:
    (tmp_path / "art.ai").write_bytes(b"%!PS-Adobe-3.0\n" + b"text line\n" * 10_000 + b"\x00bin")
    (tmp_path / "logo.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg">' + "<path/>" * 500)
    (tmp_path / "app.min.js").write_text("var a=1;" * 50)
    (tmp_path / "bundle.js").write_text("x" * 1500 + "\n")
    (tmp_path / "Cargo.lock").write_text('[[package]]\nname = "a"\n')
    (tmp_path / "gen.go").write_text("// Code generated by stringer. DO NOT EDIT.\n\npackage a\n")
    (tmp_path / "real.py").write_text("def real():\n    return 1\n")
    names = ["art.ai", "logo.svg", "app.min.js", "bundle.js", "Cargo.lock", "gen.go", "real.py"]
    result = build_context("look", names, budget=50_000, root=tmp_path)
    for name in names[:-1]:
        row = outcome(result, f"file:{name}")
        assert row.policy_final == "reference", name
    art = next(ln for ln in result.prompt.split("\n") if ln.startswith("[ref: art.ai"))
    assert art.endswith("(binary)")
    assert "SVG media" in outcome(result, "file:logo.svg").reason
    assert "minified" in outcome(result, "file:app.min.js").reason
    assert "1,500 characters" in outcome(result, "file:bundle.js").reason
    assert "lock file" in outcome(result, "file:Cargo.lock").reason
    assert "generated" in outcome(result, "file:gen.go").reason
    assert outcome(result, "file:real.py").policy_final == "structural"


# -- row 7: refill ------------------------------------------------------------------------------


def _project(tmp_path: Path) -> list[str]:
    src = tmp_path / "src"
    src.mkdir()
    for i in range(6):
        (src / f"mod{i}.py").write_text(
            f'"""Module {i}."""\n\n'
            + "".join(
                f"def f{i}_{j}(x):\n    '''Doc {j}.'''\n    return x + {j}\n\n" for j in range(40)
            )
        )
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(8):
        (docs / f"guide{i}.md").write_text(
            f"# Guide {i}\n\n" + "".join(f"Paragraph {k} of guide {i}.\n\n" for k in range(30))
        )
    return ["src", "docs"]


def test_refill_leaves_no_upgrade_that_would_fit(tmp_path: Path) -> None:
    paths = _project(tmp_path)
    task = "improve the guides"
    full = build_context(task, paths, budget=10**6, root=tmp_path)
    steps = ["reference", "summarizable", "structural"]
    refilled = 0
    for budget in (full.tokens // 2, full.tokens // 3, full.tokens // 5):
        result = build_context(task, paths, budget=budget, root=tmp_path)
        spare = budget - result.tokens
        assert spare >= 0
        refilled += sum("refilled" in b.reason for b in result.blocks)
        for row in result.blocks:
            if row.action not in ("degraded", "dropped"):
                continue
            initial = next(b for b in full.blocks if b.block == row.block)
            current = steps.index(row.policy_final) if row.action == "degraded" else -1
            target = steps.index(initial.policy_final)
            if current >= target:
                continue
            block = ContentBlock.for_file(row.path, (tmp_path / row.path).read_text())
            now = "" if current < 0 else apply_policy(block, steps[current]).text
            after = apply_policy(block, steps[current + 1]).text
            cost = count_tokens(_section_text(block, after), "chars/3") - (
                count_tokens(_section_text(block, now), "chars/3") if now else 0
            )
            assert cost > spare, (row.block, cost, spare)
    assert refilled  # spare budget was used again at some budget


# -- row 8: the task boost ----------------------------------------------------------------------


def test_the_file_the_task_is_about_is_boosted(tmp_path: Path) -> None:
    for name in ("http", "ws", "grpc", "smtp"):
        (tmp_path / f"{name}_transport.py").write_text(
            f'"""The {name} transport."""\n\n'
            + "".join(
                f"def {name}_send_{j}(payload):\n    '''Send over {name}.'''\n    return payload\n\n"
                for j in range(60)
            )
        )
    files = [f"{n}_transport.py" for n in ("http", "ws", "grpc", "smtp")]
    task = "Fix retries in the smtp transport: smtp_send drops payloads"
    boosted = build_context(task, files, budget=2500, root=tmp_path)
    smtp = outcome(boosted, "file:smtp_transport.py")
    assert smtp.boost == 15 and "task boost +15" in smtp.reason
    others = [outcome(boosted, f"file:{n}_transport.py") for n in ("http", "ws", "grpc")]
    assert all(o.boost < smtp.boost for o in others)
    rank = ["reference", "summarizable", "structural"]
    assert all(rank.index(smtp.policy_final) >= rank.index(o.policy_final) for o in others)
    plain = build_context(task, files, budget=2500, root=tmp_path, task_boost=False)
    assert all(b.boost == 0 for b in plain.blocks)


# -- row 9: named but ignored --------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_named_ignored_file_is_included_with_a_warning(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("build/\n.venv/\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "out.py").write_text("def built():\n    pass\n")
    (tmp_path / "src.py").write_text("def src():\n    pass\n")
    named = build_context("t", ["build/out.py"], budget=5000, root=tmp_path)
    assert "def built():" in named.prompt
    assert any("build/out.py" in w and "ignored by git" in w for w in named.warnings)
    expanded = build_context("t", ["."], budget=5000, root=tmp_path)
    assert "def built" not in expanded.prompt and "def src" in expanded.prompt


# -- hand-written code is not minified or generated (shapes of ky, requests, ripgrep) ----------

KY_HTTP_ERROR = (
    "import {KyError} from './KyError.js';\n\n/**\nError thrown when the response has a non-2xx "
    "status code.\n\n"
    + "The error has a `response` property with the `Response` object, " * 17
    + "\n*/\nexport class HTTPError<T = unknown> extends KyError {\n"
    + "\toverride name = 'HTTPError' as const;\n"
    + "".join(f"\tfield{i}: string;\n" for i in range(20))
    + "}\n"
)
REQUESTS_CONF = (
    "# Requests documentation build configuration file, created by\n# sphinx-quickstart.\n#\n"
    "# This file is execfile()d with the current directory set to its\n# containing dir.\n#\n"
    "# Note that not all possible configuration values are present in this\n"
    "# autogenerated file.\n#\nimport os\nimport sys\n\nproject = 'Requests'\n"
)
RIPGREP_ZSH = (
    "/*!\nProvides completions for ripgrep's CLI for the zsh shell.\n\nCustom completion "
    "functions\n1. Are much higher in quality than the ones below that are auto-generated.\n*/\n\n"
    "pub(crate) fn generate() -> String {\n    String::new()\n}\n"
)


def test_hand_written_files_are_neither_minified_nor_generated() -> None:
    from ctx_lab.builder._blocks import reference_reason

    assert max(len(line) for line in KY_HTTP_ERROR.split("\n")) > 1000
    assert reference_reason("source/errors/HTTPError.ts", KY_HTTP_ERROR) is None
    assert reference_reason("docs/conf.py", REQUESTS_CONF) is None
    assert reference_reason("crates/core/flags/complete/zsh.rs", RIPGREP_ZSH) is None
    # what stays a reference: a banner, the known markers, code lines of a bundle
    assert "generated" in reference_reason(
        "a.py", "# This file was automatically generated by SWIG\nx = 1\n"
    )
    assert "generated" in reference_reason("a.ts", "// @generated by protoc\nlet a = 1;\n")
    bundle = ("var a=1;" * 200 + "\n") * 3 + "x;\n" * 20
    assert "3 of 23 lines" in reference_reason("dist/app.js", bundle)


def test_references_collapse_into_one_list_past_a_quarter_of_the_budget(tmp_path: Path) -> None:
    for i in range(120):
        (tmp_path / f"mod_{i:03}.py").write_text(
            "".join(f"def f{i}_{j}(x):\n    return x + {j}\n\n" for j in range(40))
        )
    result = build_context("tidy mod_007", ["."], budget=2500, root=tmp_path)
    listed = [b for b in result.blocks if b.action == "listed"]
    assert len(listed) > 50 and "\n## Other Files (not shown)\n- mod_" in result.prompt
    list_part = result.prompt[result.prompt.index("\n## Other Files") :]
    assert count_tokens(list_part, "chars/3") <= 0.25 * result.budget
    assert result.tokens <= result.budget
    dropped = [b for b in result.blocks if b.action == "dropped"]
    assert all("quarter of the budget" in b.reason for b in dropped)
    named = outcome(result, "file:mod_007.py")
    assert named.policy_final != "reference" and "named by the task" in named.reason


def test_named_files_and_symbols_outrank_shared_words_and_tests_rank_below(
    tmp_path: Path,
) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "tests").mkdir()
    wordy = "".join(
        f"def handle_{j}(session, redirect, header):\n    '''Session redirect header.'''\n"
        "    return session\n\n"
        for j in range(60)
    )
    (tmp_path / "src" / "helpers.py").write_text(wordy)
    (tmp_path / "src" / "sessions.py").write_text(
        "class Session:\n    def resolve_redirects(self, resp):\n        return resp\n"
    )
    (tmp_path / "tests" / "test_sessions.py").write_text(wordy)
    task = "Session.resolve_redirects drops the header on a redirect"
    result = build_context(task, ["src", "tests"], budget=60_000, root=tmp_path)
    target = outcome(result, "file:src/sessions.py")
    helpers = outcome(result, "file:src/helpers.py")
    tests = outcome(result, "file:tests/test_sessions.py")
    assert target.boost == 25 and "defines" in target.reason
    assert target.priority + target.boost > helpers.priority + helpers.boost
    assert tests.priority + tests.boost < helpers.priority + helpers.boost
    assert "test file" in tests.reason
    about_tests = build_context(
        "the redirect tests fail", ["src", "tests"], budget=60_000, root=tmp_path
    )
    assert "test file" not in outcome(about_tests, "file:tests/test_sessions.py").reason


def test_memory_blocks_name_their_own_file_and_rank_by_the_task(tmp_path: Path) -> None:
    theme = tmp_path / ".context" / "decisions"
    theme.mkdir(parents=True)
    (theme / "retries.md").write_text(
        "# Retries\n\n## [2026-05-01-000000] Retry webhooks with backoff\n\n"
        "Use exponential backoff for webhook retries.\n"
    )
    (tmp_path / "app.py").write_text("def deliver(hook):\n    return hook\n")
    result = build_context(
        "Add retries to webhook delivery", ["app.py"], memory=tmp_path, budget=5000, root=tmp_path
    )
    memory = [b for b in result.blocks if b.source == "memory"]
    assert [b.path for b in memory] == [".context/decisions/retries.md#L3"]
    assert memory[0].priority == 60 and memory[0].boost > 0
