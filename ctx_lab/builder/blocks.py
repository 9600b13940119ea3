"""Content blocks: what goes into a built prompt, with a compression policy and a priority."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath

from ..errors import UsageError

__all__ = [
    "CODE_EXTENSIONS",
    "DATA_EXTENSIONS",
    "DEFAULT_PRIORITIES",
    "DEGRADATION",
    "POLICIES",
    "SOURCES",
    "ContentBlock",
    "default_policy",
    "default_priority",
    "file_kind",
]

POLICIES = ("exact", "structural", "summarizable", "reference")
SOURCES = ("task", "memory", "file")
# One step of degradation from each policy (exact never degrades; reference is the floor).
DEGRADATION = {"structural": "summarizable", "summarizable": "reference"}

CODE_EXTENSIONS = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
}
DATA_EXTENSIONS = {".json": "json", ".yaml": "yaml", ".yml": "yaml", ".toml": "toml", ".ini": "ini"}
DOC_EXTENSIONS = {".md", ".markdown", ".rst", ".txt"}
DEFAULT_PRIORITIES = {"task": 100, "memory": 80, "code": 60, "data": 60, "doc": 40, "other": 40}


def file_kind(path: str) -> str:
    """``code``, ``data``, ``doc`` or ``other`` by extension (other grammars count as code)."""
    suffix = PurePath(path).suffix.lower()
    if suffix in CODE_EXTENSIONS:
        return "code"
    if suffix in DATA_EXTENSIONS:
        return "data"
    if suffix in DOC_EXTENSIONS:
        return "doc"
    from .code_skeleton import extra_grammar

    return "code" if extra_grammar(suffix) is not None else "other"


def default_policy(source: str, path: str = "", binary: bool = False) -> str:
    """The task is exact; code and data files structural; text summarizable; binary reference."""
    if source == "task":
        return "exact"
    if binary:
        return "reference"
    if source == "file" and file_kind(path) in ("code", "data"):
        return "structural"
    return "summarizable"


def default_priority(source: str, path: str = "", priorities: dict[str, int] | None = None) -> int:
    """task 100, memory 80, code and data files 60, documentation and the rest 40."""
    table = {**DEFAULT_PRIORITIES, **(priorities or {})}
    if source in ("task", "memory"):
        return table[source]
    return table[file_kind(path)]


@dataclass(frozen=True)
class ContentBlock:
    """One piece of prompt content: ``id`` like ``task``, ``memory:<path>``, ``file:<path>``."""

    id: str
    source: str
    path: str
    text: str
    policy: str
    priority: int
    binary: bool = False

    def __post_init__(self) -> None:
        if self.source not in SOURCES:
            raise UsageError(f"source must be one of {', '.join(SOURCES)}; got {self.source!r}")
        if self.policy not in POLICIES:
            raise UsageError(f"policy must be one of {', '.join(POLICIES)}; got {self.policy!r}")

    @classmethod
    def for_file(
        cls,
        path: str,
        text: str,
        *,
        policy: str | None = None,
        priority: int | None = None,
        binary: bool = False,
        priorities: dict[str, int] | None = None,
    ) -> ContentBlock:
        """A file block with the default policy and priority for its kind."""
        return cls(
            f"file:{path}",
            "file",
            path,
            text,
            policy or default_policy("file", path, binary),
            default_priority("file", path, priorities) if priority is None else priority,
            binary,
        )

    @classmethod
    def for_task(cls, text: str, priority: int | None = None) -> ContentBlock:
        """The task block: exact, priority 100."""
        return cls("task", "task", "", text, "exact", 100 if priority is None else priority)

    @classmethod
    def for_memory(
        cls, path: str, text: str, *, priority: int | None = None, policy: str | None = None
    ) -> ContentBlock:
        """A memory block (summarizable by default, priority 80)."""
        return cls(
            f"memory:{path}",
            "memory",
            path,
            text,
            policy or "summarizable",
            DEFAULT_PRIORITIES["memory"] if priority is None else priority,
        )
