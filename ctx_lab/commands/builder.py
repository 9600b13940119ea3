"""``ctx-lab build`` and ``ctx-lab compress``: build a budgeted prompt, preview one policy."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..builder import POLICIES, BuildResult, ContentBlock, apply_policy, build_context
from ..display import RichResult, escape
from ..errors import UsageError
from ..textfile import read_bytes, read_text
from ..tokens import get_counter
from .options import add_counter, non_negative_int
from .registry import Command, Invocation, command


def _build_arguments(p: argparse.ArgumentParser) -> None:
    task = p.add_mutually_exclusive_group()
    task.add_argument("--task", metavar="TEXT", help="the task (exact, never compressed)")
    task.add_argument("--task-file", metavar="F", help="read the task from a file")
    p.add_argument("paths", nargs="*", metavar="PATH", help="files, directories or glob patterns")
    p.add_argument("--memory", metavar="DIR", help="a project (or .context/) to search for memory")
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--budget", type=non_negative_int, metavar="N", help="token budget")
    budget.add_argument("--model", metavar="M", help="use the model's effective input budget")
    add_counter(p, "chars/3")
    p.add_argument(
        "--format", choices=("md", "json"), default="md", help="output format (default md)"
    )
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically)")


def _run_build(args: argparse.Namespace, inv: Invocation) -> BuildResult:
    if args.task is not None:
        task = args.task
    elif args.task_file:
        task = read_text(args.task_file, [])
    elif inv.cell is not None:
        task = inv.cell
    else:
        raise UsageError("give the task with --task TEXT or --task-file F (or as the cell body)")
    if not task.strip():
        raise UsageError("the task is empty")
    return build_context(task, args.paths, args.memory, args.budget, args.counter, args.model)


@dataclass(frozen=True)
class CompressPreview(RichResult):
    """One file under one policy: the text and its token counts before and after."""

    path: str
    requested: str
    policy: str
    tokens_before: int
    tokens_after: int
    text: str
    counter: str
    note: str = ""

    payload_kind = "compress"

    def to_dict(self) -> dict[str, Any]:
        """Path, policies, counts, counter, note and the compressed text."""
        return dict(self.__dict__)

    def to_text(self) -> str:
        """A header line with the counts, then the compressed text."""
        saved = 1 - self.tokens_after / self.tokens_before if self.tokens_before else 0.0
        head = (
            f"{self.path}: {self.policy} — {self.tokens_before} → {self.tokens_after} tokens "
            f"({self.counter}, {saved:.0%} saved)"
        )
        if self.note:
            head += f"\nnote: {self.note}"
        return f"{head}\n\n{self.text}"

    def html_body(self) -> str:
        """Counts and the compressed text."""
        return (
            f"<h4 data-ctx-compress>{escape(self.path)}: {escape(self.policy)} — "
            f"{self.tokens_before} → {self.tokens_after} tokens</h4>"
            + (f'<div class="ctx-muted">{escape(self.note)}</div>' if self.note else "")
            + f"<pre>{escape(self.text)}</pre>"
        )


def _compress_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE")
    p.add_argument("--policy", choices=POLICIES, help="default: the file's default policy")
    add_counter(p, "chars/3")


def _run_compress(args: argparse.Namespace, inv: Invocation) -> CompressPreview:
    counter = get_counter(args.counter)
    data = read_bytes(args.file)
    binary = b"\x00" in data[:8192]
    warnings: list[str] = []
    text = "" if binary else read_text(args.file, warnings)
    path = Path(args.file).as_posix()
    block = ContentBlock.for_file(path, text, policy=args.policy, binary=binary)
    result = apply_policy(block, block.policy, len(data))
    return CompressPreview(
        path,
        block.policy,
        result.policy,
        counter.count(text) if not binary else 0,
        counter.count(result.text),
        result.text,
        counter.name,
        "; ".join([result.note, *warnings]).strip("; "),
    )


BUILD = command(
    Command(
        "build",
        "build a prompt from a task, files and memory within a token budget",
        _build_arguments,
        _run_build,
        formats=("md", "json"),
        epilog="examples:\n"
        '  ctx-lab build --task "Add retries to the fetcher" ctx_lab/ --budget 4000\n'
        "  ctx-lab build --task-file task.md 'src/**/*.py' docs/ --memory . --format json",
    )
)
COMPRESS = command(
    Command(
        "compress",
        "preview one file under one compression policy with before/after token counts",
        _compress_arguments,
        _run_compress,
        epilog="examples:\n  ctx-lab compress ctx_lab/paging.py\n"
        "  ctx-lab compress README.md --policy summarizable --counter cl100k",
    )
)
