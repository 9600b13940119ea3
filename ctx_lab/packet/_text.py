"""What every ``.context/`` Markdown parser shares: comments (an unclosed one runs to the end
of the file), where a line is, and the patterns of headings, rules and entry headers."""

from __future__ import annotations

import re

__all__ = ["COMMENT", "DIGIT_STAMP", "ENTRY_HEADER", "RULE_LINE", "strip_comments", "where"]

COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
RULE_LINE = re.compile(r"^\s*([-*_])(?:\s*\1){2,}\s*$")
ENTRY_HEADER = re.compile(r"^##\s+\[(?P<stamp>[^\]]*)\]\s*(?P<title>.*?)\s*$")
DIGIT_STAMP = re.compile(r"\d{4}-\d{1,2}-\d{1,2}(?:-\d{6})?")


def where(source: str, line: int) -> str:
    """``source:line`` (or ``line N`` without a source), for warnings."""
    return f"{source}:{line}" if source else f"line {line}"


def strip_comments(text: str) -> str:
    """Remove every ``<!-- … -->`` (an unclosed one runs to the end), keeping line breaks."""
    return COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)
