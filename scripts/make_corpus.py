"""Write the synthetic corpus of notebook 07: project ``.context/`` directories and recorded
agent sessions, deterministically (the same arguments write the same bytes).

    python scripts/make_corpus.py DIR [--projects 240] [--sessions 120] [--seed 7]

See :mod:`ctx_lab.examples.corpus` for what the projects and sessions hold.
"""

from __future__ import annotations

import argparse

from ctx_lab.examples.corpus import make_corpus


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("directory", help="where to write projects/ and sessions/")
    parser.add_argument("--projects", type=int, default=240)
    parser.add_argument("--sessions", type=int, default=120)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    made = make_corpus(
        args.directory, projects=args.projects, sessions=args.sessions, seed=args.seed
    )
    print(f"{len(made.projects)} projects, {len(made.sessions)} sessions under {made.root}")


if __name__ == "__main__":
    main()
