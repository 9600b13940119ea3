"""Corpus analyses: the same sweeps and replays over many projects and sessions, on one
machine or a Dask cluster.

>>> from ctx_lab.analysis import sweep_corpus, replay_corpus
>>> frame = sweep_corpus(project_dirs, budgets=[4000, 8000], models=["gpt-4o"])  # doctest: +SKIP
>>> replay_corpus(sessions, ["claude-sonnet-4-5", "gpt-4.1"], executor=client)  # doctest: +SKIP

Work is split per item (a ``.context/`` directory, a recorded session); each item is parsed and
counted once, wherever it runs. Executors: a local process pool with a progress bar (the
default), ``"inline"``, any ``concurrent.futures.Executor``, or a ``dask.distributed.Client``
(or its scheduler address) — the results are the same table whichever ran them. The core
never imports Dask; ``pip install 'ctx-lab[dask]'`` brings it (and pyarrow for Parquet).
"""

from ._columns import (
    POLICIES_COLUMNS,
    REPLAY_CALL_COLUMNS,
    REPLAY_SESSION_COLUMNS,
    SWEEP_COLUMNS,
)
from ._corpus import (
    PoliciesOptions,
    ReplayOptions,
    RunOptions,
    SweepOptions,
    policies_corpus,
    replay_corpus,
    run_policies_corpus,
    run_replay,
    run_sweep,
    sweep_corpus,
)
from ._executors import INLINE, scheduler_address
from ._report import CorpusReport

__all__ = [
    "INLINE",
    "POLICIES_COLUMNS",
    "REPLAY_CALL_COLUMNS",
    "REPLAY_SESSION_COLUMNS",
    "SWEEP_COLUMNS",
    "CorpusReport",
    "PoliciesOptions",
    "ReplayOptions",
    "RunOptions",
    "SweepOptions",
    "policies_corpus",
    "replay_corpus",
    "run_policies_corpus",
    "run_replay",
    "run_sweep",
    "scheduler_address",
    "sweep_corpus",
]
