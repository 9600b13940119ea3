"""Content blocks: what goes into a built prompt, with a compression policy and a priority."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING

from ..errors import UsageError
from ._held import HeldText, held_by, line_count

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
    "generated_marker",
    "reference_reason",
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
# Markup-heavy media: text, but drawing instructions nobody reads in a prompt.
MEDIA_EXTENSIONS = {".svg", ".eps", ".ps", ".ai", ".drawio", ".excalidraw"}
LOCK_FILES = {
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "bun.lock",
    "poetry.lock",
    "pdm.lock",
    "uv.lock",
    "Pipfile.lock",
    "Cargo.lock",
    "Gemfile.lock",
    "composer.lock",
    "go.sum",
    "flake.lock",
    "mix.lock",
    "pubspec.lock",
    "packages.lock.json",
}
MAX_LINE = 1000  # a longer line is minified or generated content, unless it is a comment
# a file is minified when this share of its non-empty lines (and at least MIN_LONG_LINES of
# them, or its only line) are code lines over MAX_LINE: one long comment is hand-written prose
LONG_LINE_SHARE = 0.05
MIN_LONG_LINES = 2
# Generated files say so: the markers tools write (Go's "Code generated … DO NOT EDIT.",
# Facebook's @generated) anywhere in the head, or a banner opening the file.
_GENERATED_MARKER = re.compile(
    r"(?:@generated\b|\bcode generated\b.*\bdo not edit\b|\bgenerated\b.*\bdo not "
    r"(?:edit|modify)\b|\bdo not (?:edit|modify)\b.*\bgenerated\b)",
    re.IGNORECASE,
)
_GENERATED_BANNER = re.compile(
    r"^(?:this (?:file|code) (?:is|was|has been) )?(?:auto(?:matically)?[- ]?)?generated "
    r"(?:by|from|with|using)\b",
    re.IGNORECASE,
)
_COMMENT_START = re.compile(r"^\s*(?://+|/\*+|\*+/?|#+!?|--+|<!--|;+|%+|\"\"\"|\'\'\')\s*")
GENERATED_HEAD_LINES = 10  # where the markers are looked for
BANNER_LINES = 5  # the first non-empty lines, where a banner is
# memory starts where code does: the task boost then ranks both by relevance to the task
DEFAULT_PRIORITIES = {"task": 100, "memory": 60, "code": 60, "data": 60, "doc": 40, "other": 40}


def file_kind(path: str) -> str:
    """``code``, ``data``, ``doc`` or ``other`` by extension (other grammars count as code)."""
    suffix = PurePath(path).suffix.lower()
    if suffix in CODE_EXTENSIONS:
        return "code"
    if suffix in DATA_EXTENSIONS:
        return "data"
    if suffix in DOC_EXTENSIONS:
        return "doc"
    from .skeletons import extra_grammar

    return "code" if extra_grammar(suffix) is not None else "other"


def reference_reason(path: str, text: str) -> str | None:
    """Why a readable file should go in only as a reference: markup-heavy media (SVG …), a
    lock file, a minified file (by name, or by the share of its code lines over
    :data:`MAX_LINE` characters), or a file that says it is generated
    (:func:`generated_marker`). None for ordinary files."""
    name = PurePath(path).name
    suffix = PurePath(path).suffix.lower()
    if suffix in MEDIA_EXTENSIONS:
        return f"{suffix[1:].upper()} media: referenced, not read into the prompt"
    if name in LOCK_FILES:
        return "lock file: generated, referenced"
    if re.search(r"[.-]min\.(?:js|css|mjs)$", name):
        return "minified file: referenced"
    marked = generated_marker(text)
    if marked is not None:
        return f"declares itself generated ({marked[:60]!r}): referenced"
    long_lines, lines, longest = _long_code_lines(text)
    if long_lines and (
        lines == 1 or (long_lines >= MIN_LONG_LINES and long_lines >= LONG_LINE_SHARE * lines)
    ):
        return (
            f"{long_lines:,} of {lines:,} lines over {MAX_LINE:,} characters (the longest "
            f"{longest:,} characters; comments not counted): minified or generated, referenced"
        )
    return None


def generated_marker(text: str) -> str | None:
    """The line that says the file is generated: a known marker in the first
    :data:`GENERATED_HEAD_LINES` lines or a banner among the first :data:`BANNER_LINES`
    non-empty ones. A comment that merely mentions generated code is not one."""
    head = text[:4096].split("\n")[:GENERATED_HEAD_LINES]
    for line in head:
        if _GENERATED_MARKER.search(line):
            return line.strip()
    for line in [line for line in head if line.strip()][:BANNER_LINES]:
        if _GENERATED_BANNER.match(_COMMENT_START.sub("", line, count=1)):
            return line.strip()
    return None


def _long_code_lines(text: str) -> tuple[int, int, int]:
    """(code lines over MAX_LINE, non-empty lines, the longest code line); comment lines
    are never long code."""
    split = text.split("\n")
    if max(map(len, split), default=0) <= MAX_LINE:  # the usual file: nothing to look at
        return 0, 0, 0
    long_lines = lines = longest = 0
    in_block = False  # inside /* … */ (JSDoc prose lines carry no leading *)
    for line in split:
        if not line.strip():
            continue
        lines += 1
        comment = in_block or _COMMENT_START.match(line) is not None
        opened, closed = line.rfind("/*"), line.rfind("*/")
        if in_block:
            in_block = closed < 0 or opened > closed
        elif opened >= 0 and closed < opened and len(line) <= MAX_LINE:
            in_block = True  # a long line opening a comment is code before it: not trusted
        if len(line) > MAX_LINE and not comment:
            long_lines += 1
            longest = max(longest, len(line))
    return long_lines, lines, longest


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
    """task 100, memory, code and data files 60, documentation and the rest 40."""
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
    # a string, or where a build reads it again (ctx_lab.builder._held): read as a string
    if TYPE_CHECKING:
        text: str
    else:
        text: str = HeldText()  # a descriptor without a default: still a required field
    policy: str
    priority: int
    binary: bool = False
    reason: str = ""  # why the block starts at its policy, when not by default

    def lines(self) -> int:
        """The text's line count (known without reading a held text again)."""
        held = held_by(self)
        return held.lines if held is not None else line_count(self.text)

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
        """A file block with the default policy and priority for its kind; media, lock,
        minified and generated files start as references (:func:`reference_reason`)."""
        reason = "" if policy or binary else (reference_reason(path, text) or "")
        return cls(
            id=f"file:{path}",
            source="file",
            path=path,
            text=text,
            policy=policy or ("reference" if reason else default_policy("file", path, binary)),
            priority=default_priority("file", path, priorities) if priority is None else priority,
            binary=binary,
            reason=reason,
        )

    @classmethod
    def for_task(cls, text: str, priority: int | None = None) -> ContentBlock:
        """The task block: exact, priority 100."""
        return cls(
            id="task",
            source="task",
            path="",
            text=text,
            policy="exact",
            priority=100 if priority is None else priority,
        )

    @classmethod
    def for_memory(
        cls, path: str, text: str, *, priority: int | None = None, policy: str | None = None
    ) -> ContentBlock:
        """A memory block (summarizable by default, priority 60)."""
        return cls(
            id=f"memory:{path}",
            source="memory",
            path=path,
            text=text,
            policy=policy or "summarizable",
            priority=DEFAULT_PRIORITIES["memory"] if priority is None else priority,
        )
