"""The real-session corpus (``tests/fixtures/sessions/corpus.toml``): where each file is, where
it comes from, and what it holds, counted independently of ctx_lab."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MANIFEST = REPO / "tests" / "fixtures" / "sessions" / "corpus.toml"
ROOTS = {
    "shared": REPO.parent / "shared" / "real-data" / "transcripts",
    "fixtures": REPO / "tests" / "fixtures" / "sessions",
    "examples": REPO / "ctx_lab" / "examples" / "recorded",
}


@dataclass(frozen=True)
class Entry:
    """One corpus file and its hand counts."""

    file: str
    root: str
    kind: str
    repository: str
    commit: str
    path: str
    licence: str
    agent: str
    version: str
    provider: str
    models: tuple[str, ...]
    calls: int
    usage: tuple[int, int, int, int]  # input, cache write, cache read, output
    compactions: tuple[tuple[int, str], ...]  # (calls before it, trigger)
    findings: tuple[tuple[str, int], ...] = ()  # check's cache rules, from the usage by hand

    @property
    def location(self) -> Path:
        """Where the file is on this machine."""
        return ROOTS[self.root] / self.file

    @property
    def name(self) -> str:
        """A short, unique name for tables."""
        return self.file if len(self.file) <= 60 else f"…{self.file[-58:]}"

    @property
    def main_claude_session(self) -> bool:
        """A Claude Code session's main file (not a sub-agent's, not a compaction request)."""
        return self.agent == "Claude Code" and "/subagents/" not in self.file


def corpus(manifest: Path = MANIFEST) -> list[Entry]:
    """Every entry of the manifest, in its order."""
    with manifest.open("rb") as handle:
        data = tomllib.load(handle)
    return [
        Entry(
            file=f["file"],
            root=f["root"],
            kind=f["kind"],
            repository=f["repository"],
            commit=f["commit"],
            path=f["path"],
            licence=f["licence"],
            agent=f["agent"],
            version=f["version"],
            provider=f["provider"],
            models=tuple(f["models"]),
            calls=int(f["calls"]),
            usage=tuple(int(x) for x in f["usage"]),  # type: ignore[arg-type]
            compactions=tuple((int(n), str(t)) for n, t in f["compactions"]),
            findings=tuple(sorted((str(k), int(v)) for k, v in f["findings"].items())),
        )
        for f in data["file"]
    ]


def shared_present() -> bool:
    """Whether ``../shared/real-data`` is beside the checkout (developers have it)."""
    return ROOTS["shared"].is_dir()
