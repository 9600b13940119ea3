"""Hostile inputs are bounded: size limits named with their variable, deep nesting and floods
degrade or fail cleanly, never a hang, a traceback or a RecursionError (hardening rows 10-12,
14). Limits are lowered for the test instead of timing anything."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from ctx_lab import commands
from ctx_lab.errors import CorruptDocument, CtxLabError, FileTooLarge, UsageError
from ctx_lab.examples import EXAMPLE_DIR
from ctx_lab.packet import load_context
from ctx_lab.read import _extract as extract_module
from ctx_lab.read._extract import MAX_HTML_DEPTH, extract_html, extract_pdf


def test_deep_html_nesting_is_unwrapped_not_recursed() -> None:
    html = "<html><body>" + "<div>" * 3000 + "<p>deep text</p>" + "</div>" * 3000 + "</body></html>"
    assert "deep text" in extract_html(html)
    nested_lists = "<ul><li>" * 2000 + "item" + "</li></ul>" * 2000
    assert "item" in extract_html(f"<html><body>{nested_lists}</body></html>")
    assert MAX_HTML_DEPTH <= 200


def test_html_floods_are_not_scanned_by_backtracking_regexes(monkeypatch) -> None:
    """128 KB of unclosed <script> tags took 24 s through a lazy regex per tag: the page is
    parsed once by lxml now, and no regex with a lazy ``.*?`` runs over the document."""
    real_sub, real_findall, real_search = re.sub, re.findall, re.search
    big = 64 * 1024

    def guard(real):
        def call(pattern, *args, **kwargs):
            text = pattern if isinstance(pattern, str) else pattern.pattern
            subject = args[1] if real is real_sub and len(args) > 1 else (args[0] if args else "")
            if ".*?" in str(text) and isinstance(subject, str) and len(subject) > big:
                raise AssertionError(f"backtracking regex over {len(subject)} chars: {text}")
            return real(pattern, *args, **kwargs)

        return call

    monkeypatch.setattr(extract_module.re, "sub", guard(real_sub))
    monkeypatch.setattr(extract_module.re, "findall", guard(real_findall))
    monkeypatch.setattr(extract_module.re, "search", guard(real_search))
    flood = "<script>" * 32_000 + "<a>" * 32_000
    page = f"<html><body><p>{'real words ' * 50}</p>{flood}</body></html>"
    assert "real words" in extract_html(page)


def test_ctxrc_alias_bomb_is_refused_with_a_short_warning(tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / ".context").mkdir(parents=True)
    (project / ".context" / "TASKS.md").write_text("- [ ] t\n")
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i, name in enumerate("bcdefghi"):
        prev = "abcdefghi"[i]
        lines.append(
            f"{name}: &{name} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]"
        )
    lines.append("token_budget: *i")
    (project / ".ctxrc").write_text("\n".join(lines) + "\n")
    assert len((project / ".ctxrc").read_bytes()) < 600
    ctx = load_context(project)
    assert ctx.settings.token_budget is None
    assert sum(len(w) for w in ctx.warnings) < 2000
    assert any("aliases are not allowed" in w for w in ctx.warnings)


def test_a_huge_ctxrc_value_is_shown_short(tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / ".context").mkdir(parents=True)
    (project / ".ctxrc").write_text("token_budget: " + json.dumps(["x" * 100] * 500) + "\n")
    ctx = load_context(project)
    assert ctx.settings.token_budget is None and max(len(w) for w in ctx.warnings) < 300


def test_paging_a_file_over_the_page_limit_stops_before_reading(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("CTX_LAB_MAX_PAGE_BYTES", "100000")
    (tmp_path / "big.log").write_bytes(b"line of a big log\n" * 10_000)  # 180 KB
    with pytest.raises(FileTooLarge, match="CTX_LAB_MAX_PAGE_BYTES"):
        commands.page("big.log", lines=(1, 2), root=tmp_path)


def test_cli_over_a_limit_exits_1_without_a_traceback(run_cli, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("CTX_LAB_MAX_FILE_BYTES", "1000")
    (tmp_path / "big.txt").write_text("x" * 5000)
    for argv in (["tokens", str(tmp_path / "big.txt")], ["compress", str(tmp_path / "big.txt")]):
        code, _, err = run_cli(*argv)
        assert code == 1 and "CTX_LAB_MAX_FILE_BYTES" in err and "Traceback" not in err


def test_an_oversized_file_becomes_a_reference_in_a_build(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("CTX_LAB_MAX_FILE_BYTES", "2000")
    (tmp_path / "small.py").write_text("def f():\n    return 1\n")
    (tmp_path / "huge.py").write_text("x = 1\n" * 1000)
    result = commands.build("task", ["small.py", "huge.py"], budget=5000, root=tmp_path)
    blocks = {b.path: b for b in result.blocks}
    assert blocks["huge.py"].policy_final == "reference"
    assert any("huge.py" in w and "CTX_LAB_MAX_FILE_BYTES" in w for w in result.warnings)
    assert "def f()" in result.prompt


def test_the_build_stops_reading_past_its_total(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("CTX_LAB_MAX_BUILD_BYTES", "5000")
    for i in range(5):
        (tmp_path / f"m{i}.py").write_text(f"# module {i}\n" + "y = 2\n" * 300)  # ~1.8 KB each
    read: list[str] = []
    from ctx_lab.builder import _build as build_module

    real = build_module.read_bytes

    def counting(path, *args, **kwargs):
        read.append(Path(path).name)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(build_module, "read_bytes", counting)
    result = commands.build("task", ["."], budget=50_000, root=tmp_path)
    assert len(read) <= 3
    assert sum(b.policy_final == "reference" for b in result.blocks) >= 2


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("deep.json", "[" * 100_000 + "]" * 100_000),
        ("deep.yaml", "a:\n" + "".join("  " * i + "- \n" for i in range(1, 3000))),
        ("deep.toml", "a = " + "[" * 50_000 + "]" * 50_000 + "\n"),
        ("deep.py", "x = " + "(" * 5000 + "1" + ")" * 5000 + "\n"),
        ("deep.ts", "const x = " + "[" * 20_000 + "]" * 20_000 + ";\n"),
        ("deep.go", "package p\nvar x = " + "(" * 20_000 + "1" + ")" * 20_000 + "\n"),
    ],
)
def test_deep_nesting_falls_back_instead_of_crashing(tmp_path: Path, name: str, text: str) -> None:
    (tmp_path / name).write_text(text)
    (tmp_path / "ok.py").write_text("def fine():\n    pass\n")
    preview = commands.compress(name, root=tmp_path)
    assert preview.policy in ("summarizable", "structural", "reference")
    result = commands.build("task", [name, "ok.py"], budget=100_000, root=tmp_path)
    assert {b.path for b in result.blocks} >= {name, "ok.py"}


def test_a_context_file_with_too_many_entries_keeps_the_newest(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("CTX_LAB_MAX_ENTRIES", "50")
    context = tmp_path / ".context"
    context.mkdir()
    (context / "DECISIONS.md").write_text(
        "".join(
            f"## [2026-01-{1 + i % 28:02d}-120000] Decision {i}\n\nbody {i}\n\n" for i in range(120)
        )
    )
    ctx = load_context(tmp_path)
    assert len(ctx.decisions) == 50 and ctx.decisions[-1].title == "Decision 119"
    assert any("CTX_LAB_MAX_ENTRIES" in w for w in ctx.warnings)


@pytest.mark.parametrize(
    "state",
    [
        '{"max_pages": Infinity, "max_tokens": 8000}',
        '{"max_pages": 1e999, "max_tokens": 8000}',
        '{"max_pages": "10", "max_tokens": 8000}',
        '{"max_pages": -1, "max_tokens": 8000}',
        '{"max_pages": 10}',
        "[1, 2]",
        '{"max_pages": 10, "max_tokens": 8000, "pages_used": true}',
    ],
)
def test_a_mangled_paging_state_is_a_clear_error(run_cli, tmp_path: Path, state: str) -> None:
    (tmp_path / "state.json").write_text(state)
    (tmp_path / "a.txt").write_text("a\nb\n")
    code, _, err = run_cli(
        "page",
        str(tmp_path / "a.txt"),
        "--root",
        str(tmp_path),
        "--state",
        str(tmp_path / "state.json"),
    )
    assert code == 1 and "not a paging" in err and "Traceback" not in err


@pytest.mark.parametrize(
    "now", ["9999-12-31T23:59:59-12:00", "0001-01-01T00:00:00+14:00", "yesterday"]
)
def test_out_of_range_times_are_usage_errors(run_cli, now: str) -> None:
    code, _, err = run_cli("packet", "--example", "--now", now)
    assert code == 2 and "ISO 8601" in err and "Traceback" not in err


@pytest.mark.parametrize(
    "data",
    [
        b"%PDF-1.7\n" + os.urandom(2000),
        b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [2 0 R] /Count 1 >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF",
        b"%PDF-1.4\n1 0 obj << /Length 999999999 >> stream\nxx\nendstream endobj\ntrailer << /Root 1 0 R >>\n%%EOF",
    ],
)
def test_broken_pdfs_are_corrupt_documents(data: bytes) -> None:
    try:
        pages = extract_pdf(data, 100)
    except CorruptDocument:
        return
    assert isinstance(pages, tuple)


def test_long_and_odd_names_are_errors_not_crashes(run_cli, tmp_path: Path) -> None:
    long_name = "n" * 300 + ".txt"
    for argv in (
        ["tokens", str(tmp_path / long_name)],
        ["page", long_name, "--root", str(tmp_path)],
        ["read", long_name, "--root", str(tmp_path)],
        ["read", "http://127.0.0.1:99999/"],
        ["read", "http://[::1/"],
        ["read", "http://" + "a" * 300 + ".example/"],
        ["models", "m" * 300],
    ):
        code, _, err = run_cli(*argv)
        assert code in (0, 1, 2) and "Traceback" not in err, argv


def test_the_example_still_loads_within_the_limits() -> None:
    assert load_context(EXAMPLE_DIR).decisions


def test_usage_error_for_a_wrong_counter_type() -> None:
    with pytest.raises((UsageError, CtxLabError)):
        commands.tokens(text="x", counter="nope")
