"""The docs' console examples are transcripts of commands run on committed inputs
(:mod:`ctx_lab._doc_examples`): a block whose output drifted from what its commands print now
fails here. ``python -m ctx_lab._doc_examples`` makes them again."""

from __future__ import annotations

import difflib

import pytest

from ctx_lab import _doc_examples
from ctx_lab._doc_examples import blocks, render_page

PAGE = """# A page

```console
$ echo "made by a run"
stale text
$ printf 'a\\nb\\nc\\n' | head -2
```

```bash
echo "a bash block is a command to adapt: never run"
```
"""


def test_a_console_block_is_made_by_running_its_commands() -> None:
    made = render_page(PAGE)
    assert '$ echo "made by a run"\nmade by a run\n$ printf' in made
    assert "stale text" not in made
    assert "| head -2\na\nb\n```" in made
    assert 'echo "a bash block is a command to adapt: never run"\n```' in made
    assert render_page(made) == made  # a fixed point: made again, it does not change


def test_stderr_and_redirections_are_as_a_shell_shows_them() -> None:
    page = "```console\n$ echo out > f.txt; echo err >&2\n$ cat f.txt\n```\n"
    assert (
        render_page(page)
        == "```console\n$ echo out > f.txt; echo err >&2\nerr\n$ cat f.txt\nout\n```\n"
    )


def test_a_block_without_a_command_is_refused() -> None:
    with pytest.raises(ValueError, match="without a '\\$ ' command"):
        blocks("```console\njust output\n```\n")


def test_every_docs_console_block_runs_ctx_lab_or_a_committed_script() -> None:
    pages = _doc_examples.pages()
    assert pages, "no console examples in docs/"
    for path in pages:
        for block in blocks(path.read_text(encoding="utf-8")):
            for command in block.commands:
                assert "~" not in command and "…" not in command, (path.name, command)


@pytest.mark.slow
def test_the_docs_examples_are_current() -> None:
    stale = _doc_examples.stale_pages()
    report = []
    for name, (old, new) in stale.items():
        diff = difflib.unified_diff(
            old.splitlines(), new.splitlines(), name, "made now", lineterm=""
        )
        report.append("\n".join(list(diff)[:60]))
    assert not stale, "docs examples are stale: run python -m ctx_lab._doc_examples\n" + "\n".join(
        report
    )
