"""The documentation's console examples, generated: every ```` ```console ```` block in ``docs/``
and the README
is a transcript — ``$ `` lines and what they print — made by running each command, as printed,
on inputs committed in this repository. ``python -m ctx_lab._doc_examples`` rewrites the
outputs in place; the test suite fails while a committed block differs from what its commands
print now (``tests/project/test_doc_examples.py``).

The commands run in ``bash`` (pipes, ``echo``, ``&&`` and ``| head -N`` work as a reader's shell
runs them), one scratch folder per page, in the page's order (a block may read what an earlier
one wrote), with the repository's inputs a command names copied in, ``ctx-lab`` and ``python``
from this interpreter's environment, a pinned terminal width, no API keys and ``HOME`` inside
the scratch folder (shown as ``~``). Commands that a reader adapts rather than runs (servers,
their own projects) live in ```` ```bash ```` blocks, which claim no output.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["DOCS", "Block", "render_page", "stale_pages"]

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
TIMEOUT = 300  # seconds one command may take
_FENCE = re.compile(r"^```console\n(.*?)^```\n", re.MULTILINE | re.DOTALL)
PASSED_ENV = ("PATH", "LANG", "LC_ALL", "TIKTOKEN_CACHE_DIR", "SKIP_JUPYTER_BUILDER")


@dataclass(frozen=True)
class Block:
    """One console block: its commands (each with the output it printed when last made)."""

    start: int  # offset of the block's body in the page
    end: int
    commands: tuple[str, ...]

    @classmethod
    def parse(cls, body: str, start: int, end: int) -> Block:
        """The ``$`` commands of a block (a trailing backslash continues one onto the next line)."""
        commands: list[str] = []
        lines = iter(body.splitlines())
        for line in lines:
            if not line.startswith("$ "):
                continue
            command = line[2:]
            while command.endswith("\\"):
                command += "\n" + next(lines, "")
            commands.append(command)
        if not commands:
            raise ValueError(f"a console block without a '$ ' command at offset {start}")
        return cls(start, end, tuple(commands))


def blocks(page: str) -> list[Block]:
    """The console blocks of a Markdown page, in order."""
    return [Block.parse(m[1], m.start(1), m.end(1)) for m in _FENCE.finditer(page)]


def _inputs(command: str) -> Iterator[Path]:
    """The repository's files and folders a command names (copied into the scratch folder)."""
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        words = command.split()
    for word in words:
        for part in word.split("="):
            if not part or part.startswith(("-", "/")) or ".." in part:
                continue
            candidate = REPO / part.rstrip("/")
            if candidate.exists() and candidate != REPO:
                yield Path(part.rstrip("/"))


def _copy_in(scratch: Path, relative: Path) -> None:
    target = scratch / relative
    if target.exists():
        return
    source = REPO / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.is_dir():
        shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
    else:
        shutil.copy2(source, target)


def _environment(scratch: Path) -> dict[str, str]:
    home = scratch / "home"
    home.mkdir(exist_ok=True)
    env = {k: os.environ[k] for k in PASSED_ENV if k in os.environ}
    bin_dir = str(Path(sys.executable).parent)
    env.update(
        PATH=f"{bin_dir}:{env.get('PATH', '/usr/bin:/bin')}",
        HOME=str(home),
        COLUMNS="100",
        TZ="UTC",
        LANG=env.get("LANG", "C.UTF-8"),
        PYTHONHASHSEED="0",
        PYTHONDONTWRITEBYTECODE="1",
        NO_COLOR="1",
    )
    return env


def run(command: str, scratch: Path) -> str:
    """What ``command`` prints (stdout and stderr, as a terminal shows them) in ``scratch``."""
    for relative in _inputs(command):
        _copy_in(scratch, relative)
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", "{ " + command + "\n} 2>&1"],
        cwd=scratch,
        env=_environment(scratch),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    out = done.stdout.replace(str(scratch / "home"), "~").replace(str(scratch), ".")
    return "\n".join(line.rstrip() for line in out.rstrip("\n").splitlines())


def render_block(block: Block, scratch: Path) -> str:
    """The block's body again: each command followed by what it prints now."""
    parts: list[str] = []
    for command in block.commands:
        parts.append(f"$ {command}")
        output = run(command, scratch)
        if output:
            parts.append(output)
    return "\n".join(parts) + "\n"


def render_page(page: str) -> str:
    """``page`` with every console block's outputs made again."""
    found = blocks(page)
    if not found:
        return page
    with tempfile.TemporaryDirectory(prefix="ctx-lab-docs-") as tmp:
        scratch = Path(tmp)
        out, cursor = [], 0
        for block in found:
            out += [page[cursor : block.start], render_block(block, scratch)]
            cursor = block.end
        out.append(page[cursor:])
    return "".join(out)


def pages() -> list[Path]:
    """The documentation pages that hold console blocks (the README's too)."""
    found = [*sorted(DOCS.glob("*.md")), REPO / "README.md"]
    return [p for p in found if "```console" in p.read_text(encoding="utf-8")]


def stale_pages() -> dict[str, tuple[str, str]]:
    """Pages whose committed examples differ from what their commands print: name → (old, new)."""
    stale = {}
    for path in pages():
        text = path.read_text(encoding="utf-8")
        made = render_page(text)
        if made != text:
            stale[path.relative_to(REPO).as_posix()] = (text, made)
    return stale


def main(argv: list[str] | None = None) -> int:
    """Rewrite every page's console examples (``--check``: only say which are stale)."""
    args = sys.argv[1:] if argv is None else argv
    stale = stale_pages()
    for name, (_, made) in stale.items():
        if "--check" not in args:
            (REPO / name).write_text(made, encoding="utf-8")
        print(f"{'stale' if '--check' in args else 'rewrote'}: {name}")
    return 1 if stale and "--check" in args else 0


if __name__ == "__main__":
    raise SystemExit(main())
