"""Summaries of source code: the names and signatures of its definitions with the first line
of their docs — what a reader needs to know a file's surface. Language-aware (the structural
skeleton is the source of truth); never Markdown heuristics on code; no line twice."""

from __future__ import annotations

import re
from pathlib import PurePath

from ..errors import SkeletonError
from ._blocks import CODE_EXTENSIONS
from .skeletons import code_skeleton, python_code_skeleton

__all__ = ["code_summary", "summary_of_skeleton"]

_DECLARATIONS = {
    "python": re.compile(r"^(?:\s{0,4})(?:async\s+def|def|class)\s"),
    "go": re.compile(r"^(?:package|func|type|const|var)\b"),
    "rust": re.compile(
        r"^\s{0,4}(?:pub(?:\([^)]*\))?\s+)?(?:async\s+|unsafe\s+|const\s+|extern\s+\"\w+\"\s+)*"
        r"(?:fn|struct|enum|trait|impl|mod|type|static|union|macro_rules!)\b"
    ),
    "script": re.compile(
        r"^(?:\s{0,4})(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?"
        r"(?:function\*?|class|interface|type|enum|namespace|module)\s+[A-Za-z_$]"
        r"|^\s{2,4}(?:(?:static|async|get|set|public|private|protected|readonly|abstract)\s+)*"
        r"[A-Za-z_$#][\w$]*\s*\("
        r"|^(?:export\s+)?(?:const|let)\s+[A-Za-z_$][\w$]*\s*=\s*(?:async\s*)?(?:\(|function)"
    ),
    # languages skeletoned by their installed grammar without hand-written rules (C, C++,
    # Java, C#, Ruby, PHP, Kotlin, Swift …): type declarations, and every line whose body the
    # skeleton elided (a function's signature)
    "generic": re.compile(
        r"^\s{0,8}(?:(?:public|private|protected|internal|static|final|abstract|sealed|open|"
        r"override|virtual|inline|extern|export|async|suspend|data|partial|unsafe|const|pub|"
        r"template\s*<[^>]*>)\s+)*"
        r"(?:class|struct|interface|enum|record|trait|object|protocol|extension|module|"
        r"namespace|typedef|union|fun|func|function|def|fn)\b"
        r"|^#define\s+\w+"
        r"|^.*\{ … \}\s*$"
    ),
}
_KNOWN_RULES = {"python", "go", "rust", "javascript", "typescript", "tsx", "script"}
# a top-level line that reads like a C-family definition: a name and a parameter list, opening
# a body or ending the line (used where no grammar made a skeleton)
_C_LIKE = re.compile(r"^\s{0,8}[A-Za-z_][\w\s\*&:<>,\[\]]*\b[A-Za-z_]\w*\s*\([^;]*$")
_NOT_A_DECLARATION = frozenset(
    "if for foreach while switch return else do case goto catch try synchronized new throw "
    "assert elif unless until using lock await yield".split()
)
_LICENCE = re.compile(r"copyright|licen[cs]e|spdx|all rights reserved|permission is hereby", re.I)
_DOC_LINE = re.compile(r'^\s*(?:"""|///|//!|/\*\*|/\*!|//(?:\s|$))')
_LANGUAGE_RULES = {"javascript": "script", "typescript": "script", "tsx": "script"}
MAX_LINE = 160


def _rule(language: str) -> re.Pattern[str]:
    if language not in _KNOWN_RULES:
        return _DECLARATIONS["generic"]
    return _DECLARATIONS.get(_LANGUAGE_RULES.get(language, language), _DECLARATIONS["script"])


def _declaration_looking(line: str, pattern: re.Pattern[str]) -> bool:
    """A line of raw text (no skeleton) that declares something."""
    if pattern.match(line):
        return True
    if pattern is not _DECLARATIONS["generic"] or not _C_LIKE.match(line):
        return False
    return line.split("(", 1)[0].split()[0] not in _NOT_A_DECLARATION


def _first_code_line(text: str) -> str:
    """The first line that is neither blank nor inside a leading comment or licence block."""
    in_block = False
    for raw in text.split("\n"):
        line = raw.strip()
        if not line:
            continue
        if in_block:
            in_block = "*/" not in line
            continue
        if line.startswith("/*"):
            in_block = "*/" not in line
            continue
        if line.startswith(("//", "#!", "--", ";")) or (
            line.startswith("#") and not line.startswith(("#include", "#define", "#import"))
        ):
            continue
        if _LICENCE.search(line):
            continue
        return line
    return ""


def _signature(line: str) -> str:
    line = line.rstrip()
    if line.endswith(("{", "(")) and not line.endswith("{ … }"):
        line += " … }" if line.endswith("{") else " … )"
    return line if len(line) <= MAX_LINE else line[: MAX_LINE - 1] + "…"


def _from_skeleton(skeleton: str, pattern: re.Pattern[str]) -> list[str]:
    """Declaration lines, each with the first line of the doc comment run right above it or
    the docstring right under it."""
    lines = skeleton.split("\n")
    out: list[str] = []
    pending: list[str] = []  # a run of doc comment lines waiting for its declaration
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        if pattern.match(line):
            out += pending[:1]
            out.append(_signature(line))
            pending = []
        elif stripped.startswith('"""'):
            if i == 0 or pattern.match(lines[i - 1]):
                out.append(line.rstrip())
            pending = []
        elif stripped.startswith(("//!", "/*!")):
            if not any(kept.lstrip().startswith(("//!", "/*!")) for kept in out):
                out.append(line.rstrip())  # the crate's doc: its first line
        elif stripped.startswith(("//go:build", "// +build")):
            pending = []  # build constraints are not a declaration's doc
        elif _DOC_LINE.match(line):
            pending.append(line.rstrip())
        elif not stripped.startswith(("#[", "@")):  # attributes and decorators sit between
            pending = []
    if not out and pending:
        out = pending[:1]
    return out


def _unique(lines: list[str]) -> list[str]:
    """No line twice — except a member repeated under another top-level definition (two
    classes may both define ``to_dict``)."""
    seen: set[tuple[str, str]] = set()
    out: list[str] = []
    parent = ""
    for line in lines:
        if line and not line[0].isspace():
            parent = line
        key = (parent if line[:1].isspace() else "", line)
        if key not in seen:
            seen.add(key)
            out.append(line)
    return out


def code_summary(path: str, text: str) -> str:
    """Definitions (signature lines) and their docs' first lines; for a file that does not
    parse, the declaration lines found in the text itself. Never empty for non-empty code."""
    suffix = PurePath(path).suffix.lower()
    language = CODE_EXTENSIONS.get(suffix, suffix)
    try:
        skeleton: str | None = (
            python_code_skeleton(text) if language == "python" else code_skeleton(text, language)
        ).text
    except (SkeletonError, RecursionError):
        skeleton = None
    return summary_of_skeleton(path, text, skeleton)


def summary_of_skeleton(path: str, text: str, skeleton: str | None) -> str:
    """:func:`code_summary` from a skeleton the caller already made (``None``: the file has
    none, and the declaration lines are found in the text itself)."""
    suffix = PurePath(path).suffix.lower()
    pattern = _rule(CODE_EXTENSIONS.get(suffix, suffix))
    if skeleton is not None:
        lines = _from_skeleton(skeleton, pattern)
    else:
        lines = [_signature(ln) for ln in text.split("\n") if _declaration_looking(ln, pattern)]
    kept = [line for line in _unique(lines) if not _LICENCE.search(line)]  # never a licence
    if not kept and text.strip():
        first = _first_code_line(text)
        kept = [first[:MAX_LINE]] if first else []
    return "\n".join(kept) + "\n" if kept else ""
