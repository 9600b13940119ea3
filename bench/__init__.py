"""ctx_lab's benchmarks: every engine against its natural baseline, in one process.

``python -m bench`` runs the full workloads and writes ``bench/report.json``; ``--quick`` runs
tiny sizes in seconds (the test suite's smoke test). Workloads are generated deterministically.
"""
