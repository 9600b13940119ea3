"""The builder on real repositories: per budget, the share of the prompt spent on references
and what became of the file the task is about. Run on checkouts of the four repositories the
builder issue names (not in this repository; fetch them yourself):

    python scripts/measure_builder.py /path/to/checkouts

where the folder holds ``ripgrep``, ``ky``, ``requests`` and ``cobra``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ctx_lab.builder import build_context
from ctx_lab.builder._fit import LIST_HEADER
from ctx_lab.tokens import count_tokens

COUNTER = "cl100k"
TASKS = {
    "ripgrep": (
        "Fix the standard printer so that column numbers are correct when --vimgrep reports "
        "several matches on one line",
        "crates/printer/src/standard.rs",
    ),
    "ky": (
        "Make HTTPError include the response status text and request method in its message",
        "source/errors/HTTPError.ts",
    ),
    "requests": (
        "Session.resolve_redirects drops the Authorization header on a same-host redirect: keep it",
        "src/requests/sessions.py",
    ),
    "cobra": (
        "Command.ExecuteC should report unknown subcommands with suggestions even when Args is set",
        "command.go",
    ),
}


def main(folder: Path) -> None:
    print("repository budget tokens references share  task's file")
    for name, (task, target) in TASKS.items():
        for budget in (8000, 32000):
            result = build_context(task, ["."], root=folder / name, budget=budget, counter=COUNTER)
            refs = [b for b in result.blocks if b.policy_final == "reference"]
            refs = [b for b in refs if b.action != "dropped"]
            listed = [b for b in refs if b.action == "listed"]
            sections = "".join(f"\n## File: {b.path}\n" for b in refs if b.action != "listed")
            spent = count_tokens(sections, COUNTER) + sum(b.tokens_after for b in refs)
            spent += count_tokens(LIST_HEADER, COUNTER) if listed else 0
            row = next((b for b in result.blocks if b.path == target), None)
            fate = f"{row.policy_final} ({row.tokens_after} tokens)" if row else "not collected"
            print(
                f"{name:10} {budget:6} {result.tokens:6} {len(refs):10} "
                f"{spent / result.tokens:5.1%}  {fate}"
            )


if __name__ == "__main__":
    main(Path(sys.argv[1]))
