"""``policies``: what other context policies would have done to a recorded session — the input
of every call, the cache reads and writes, the cost, the compactions and what each lost —
open-loop (the agent's actions are the recorded ones)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated

from ..choices import POLICY_NAMES
from ..files import display_path
from . import _params as params
from ._analysis import CORPUS_OUTPUT, NoWorkerTimeout, Progress, Scheduler, Ship, Workers
from ._param import ALL, Param, hidden, inputs_confined
from ._params import CacheReadingParam, Registry, given_files
from ._registry import Command, command

if TYPE_CHECKING:
    from ..analysis import CorpusReport
    from ..recordings import PoliciesReport

__all__ = ["policies"]

PathArg = str | os.PathLike[str]


@inputs_confined
def policies(
    file: Annotated[
        PathArg | Sequence[PathArg],
        Param(
            "recorded sessions (Claude Code, Codex, Gemini CLI, OpenAI or Anthropic logs) or "
            "capture files; several: a corpus",
            positional=True,
            metavar="FILE",
            max_length=4096,
            input="file",
        ),
    ],
    *,
    model: Annotated[
        str | None,
        Param(
            "every call as if sent to this model: its window, caching rules and prices",
            metavar="M",
            max_length=200,
            default_text="each call's own",
            names_model=True,
        ),
    ] = None,
    policy: Annotated[
        Sequence[str],
        Param(
            "a policy, NAME or NAME:key=value,… (repeatable; a value a|b|c or a range a..b/step "
            "sweeps every setting): " + ", ".join(POLICY_NAMES),
            metavar="NAME",
            flag="--policy",
            default_text="all of them",
            max_length=400,
        ),
    ] = (),
    counter: Annotated[str | None, params.counter("bytes/4", model=False)] = None,
    registry: Registry = None,
    reading: CacheReadingParam = "breakpoints",
    workers: Workers = None,
    scheduler: Scheduler = None,
    ship: Ship = "paths",
    progress: Progress = True,
    no_worker_timeout: NoWorkerTimeout = None,
    root: Annotated[PathArg | None, hidden("files must resolve inside it", session="root")] = None,
) -> PoliciesReport | CorpusReport:
    """Each ``policy`` (default: every built-in one) over a recorded session, open-loop: per
    call the input, cache read and write, fresh input, compaction; per policy the peak, mean,
    compactions, cost with the cache model, cache hit rate and the probes kept, summarized
    and lost (see :func:`ctx_lab.recordings.run_policies`). A value ``a|b|c`` or ``a..b/step``
    sweeps: each setting of the grid runs, the recording beside them; the report says each
    setting's cost × the recording and loss, the cost–loss front and the recommended setting
    with the configuration that runs it in the recording's agent.

    Several files (or ``workers``/``scheduler``) run a corpus: one row per session and policy,
    on a local process pool or a Dask ``scheduler`` — a :class:`~ctx_lab.analysis.CorpusReport`.
    """
    files = given_files(file, "nothing to compare: give one or more recorded sessions")
    from ..recordings import expand_policies

    expand_policies(policy)  # a usage error before any work
    if len(files) > 1 or workers is not None or scheduler is not None:
        from ..analysis import PoliciesOptions, run_policies_corpus
        from ._analysis import run_options

        return run_policies_corpus(
            files,
            PoliciesOptions(tuple(policy), model, counter, registry, reading),
            run_options(workers, scheduler, ship, progress, no_worker_timeout, root),
        )
    from ..recordings import run_policies
    from ._conversation import session_of

    one = files[0]
    path = one  # confined to the root by the declaration
    shown = display_path(path, root) if root is not None else os.fspath(one)
    return run_policies(
        session_of(path), tuple(policy), model=model, counter=counter, registry=registry,
        source=shown, reading=reading,
    )  # fmt: skip


command(
    Command(
        "policies",
        "what other context policies would have done to a recorded session: input, cache, "
        "cost, compactions and what each lost (open-loop)",
        policies,
        formats=("text", "json"),
        surfaces=ALL,
        output=CORPUS_OUTPUT,
        agent_help="Replays a recorded session open-loop under context policies (recorded, "
        "none, Claude Code's and Codex's auto-compaction, summary compaction, Anthropic's "
        "tool-result and thinking clearing, observation masking, a sliding window, ctx_lab's "
        "manager): per policy the peak and mean input, compactions, cost with prompt caching, "
        "cache hit rate, and which facts of the session (paths, errors, the user's "
        "constraints) each kept, summarized or lost.",
        epilog="examples:\n  ctx-lab policies ~/.claude/projects/*/SESSION.jsonl\n"
        "  ctx-lab policies SESSION.jsonl --policy recorded --policy observation-masking:keep=5\n"
        "  ctx-lab policies a.jsonl b.jsonl --policy 'claude-code:pct=50..90/10'\n"
        "  ctx-lab policies SESSION.jsonl --policy 'observation-masking:keep=3|10,batch=1|20,"
        "breakpoint=true'\n"
        "  ctx-lab policies SESSION.jsonl --reading prefix\n"
        "  ctx-lab policies a.jsonl b.jsonl --workers 2 --output rows.csv",
        group="sessions",
    )
)
