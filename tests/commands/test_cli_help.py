"""Every ``--help`` a newcomer types first answers with help (never a traceback), and every flag a
command cannot do without is required by the parser (a usage error, exit 2, shown as required)."""

from __future__ import annotations

import argparse
import inspect
from collections.abc import Iterator

import nbformat
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctx_lab.cli import main
from ctx_lab.commands import build_parser, capture_serve, commands, mcp_serve
from ctx_lab.commands._param import specs

SERVERS = {("capture",): capture_serve, ("mcp", "serve"): mcp_serve}


def every_help_line() -> list[tuple[str, ...]]:
    """Each command line that should print help: the top level, every command, the servers."""
    lines: list[tuple[str, ...]] = [()]
    lines += [(name,) for name in commands()]
    lines += [("mcp",), *SERVERS]
    return lines


@pytest.mark.parametrize("words", every_help_line(), ids=lambda w: " ".join(w) or "ctx-lab")
def test_every_help_prints_help(words: tuple[str, ...], capsys: pytest.CaptureFixture) -> None:
    assert main([*words, "--help"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("usage: ctx-lab"), out[:200]
    assert "Traceback" not in out + err and err == ""


def test_mcp_serve_help_says_what_it_serves_with_examples(capsys: pytest.CaptureFixture) -> None:
    """``ctx-lab mcp serve --help``: a description naming every tool, examples, the extra."""
    assert main(["mcp", "serve", "--help"]) == 0
    out = capsys.readouterr().out
    from ctx_lab.commands import mcp_tools

    flat = " ".join(out.split())
    assert all(name in flat for name in mcp_tools())
    assert "examples:" in out and "ctx-lab mcp serve --transport http" in out
    assert 'pip install "ctx-lab[mcp]"' in out


def test_a_percent_in_help_is_literal(capsys: pytest.CaptureFixture) -> None:
    """The read command's --cursor help names ``%ctx``: argparse must not read it as a format."""
    assert main(["read", "--help"]) == 0
    assert "%ctx" in capsys.readouterr().out


def _parsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _parsers(sub)


def _required_flags(function) -> set[str]:
    """The flags a declared function cannot be called without (no default, not positional)."""
    return {
        s.flag
        for s in specs(function)
        if s.on("cli") and s.required_on("cli") and not s.param.positional
    }


def test_every_required_parameter_is_a_required_flag() -> None:
    """Across every command's parser, a flag is required exactly when its declaration has no
    default — and the usage line shows it without brackets."""
    by_prog = {p.prog: p for p in _parsers(build_parser())}
    for name, cmd in commands().items():
        parser = by_prog[f"ctx-lab {name}"]
        declared = _required_flags(cmd.function)
        flagged = {
            option
            for action in parser._actions
            if action.required and action.option_strings
            for option in action.option_strings
            if option.startswith("--")
        }
        assert flagged == declared, name
        usage = parser.format_usage()
        for flag in declared:
            assert f"[{flag}" not in usage and flag in usage, (name, usage)


def test_the_capture_flags_are_required(capsys: pytest.CaptureFixture) -> None:
    assert _required_flags(capture_serve) == {"--db", "--provider"}
    assert main(["capture"]) == 2
    err = capsys.readouterr().err
    assert "the following arguments are required: --provider, --db" in err
    assert "Traceback" not in err
    assert main(["capture", "--db", "calls.db"]) == 2
    assert "required: --provider" in capsys.readouterr().err
    assert main(["capture", "--help"]) == 0
    usage = capsys.readouterr().out.split("\n\n", 1)[0]
    assert "--provider {anthropic,openai}" in usage and "[--provider" not in usage
    assert "--db FILE" in usage and "[--db" not in usage


def test_server_declarations_without_defaults_are_required() -> None:
    """A server option without a default is required on its parser too (mcp serve has none)."""
    for function in SERVERS.values():
        for name, parameter in inspect.signature(function).parameters.items():
            spec = next(s for s in specs(function) if s.name == name)
            assert spec.required_on("cli") == (parameter.default is inspect.Parameter.empty)


@pytest.mark.kernel
def test_every_help_in_a_real_kernel() -> None:
    """``%ctx <command> --help`` in a real kernel prints help and Run All goes on."""
    from nbclient import NotebookClient

    names = ["", *commands()]
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("%load_ext ctx_lab")]
    nb.cells += [
        nbformat.v4.new_code_cell(f"%ctx {name} --help".replace("  ", " ")) for name in names
    ]
    nb.cells.append(nbformat.v4.new_code_cell("print('still running')"))
    NotebookClient(nb, timeout=180, kernel_name="python3").execute()  # raises on any error
    for name, cell in zip(names, nb.cells[1:-1], strict=True):
        text = "".join(o.get("text", "") for o in cell.outputs if o["output_type"] == "stream")
        assert text.startswith(f"usage: %ctx {name}".rstrip()), (name, text[:300])
        assert not [o for o in cell.outputs if o["output_type"] == "error"], name
    assert nb.cells[-1].outputs[0]["text"] == "still running\n"


@settings(max_examples=60)
@given(st.one_of(st.none(), st.text(alphabet="-0123456789 x", max_size=5)))
def test_help_is_as_wide_as_argparse_makes_it(value: str | None) -> None:
    """The parser gives argparse its width instead of letting it import shutil for it: the
    same width by shutil's rule ($COLUMNS when positive, else the terminal, else 80)."""
    import os
    import shutil

    from ctx_lab.commands._parser import columns

    with pytest.MonkeyPatch.context() as patch:
        if value is None:
            patch.delenv("COLUMNS", raising=False)
        else:
            patch.setenv("COLUMNS", value)
        assert columns() == shutil.get_terminal_size().columns
        parser = build_parser(only="packet")
        assert parser._get_formatter()._width == argparse.HelpFormatter("x")._width
        assert os.environ.get("COLUMNS") == (None if value is None else value)
