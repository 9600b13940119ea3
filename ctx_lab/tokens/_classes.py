"""Content classes of text, for calibrations that scale a counter by what it counts (bytes/4
undercounts prose and JSON for Claude more than code): ``cjk`` (a fifth of the characters
Chinese, Japanese or Korean), ``json`` (a tool call's arguments, or text that opens as JSON),
``code`` (three or more lines, at least 30 % of them shaped like code, a diff or a numbered
file listing) or ``prose``. Only the first :data:`SCAN` characters are looked at; linear
regular expressions."""

from __future__ import annotations

import re

__all__ = ["CLASSES", "text_class"]

CLASSES = ("prose", "code", "json", "cjk")
SCAN = 4000
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_CODE = re.compile(
    r"^\s{0,40}(?:def |class |import |from |function |const |let |var |return |if |for |while |"
    r"#include|public |private |[{}]|@@|[-+] |\d{1,6}→)",
    re.M,
)


def text_class(text: str, tool_call: bool = False) -> str:
    """The class of ``text`` (see the module docstring); ``tool_call``: a tool call's
    arguments, which are JSON."""
    head = text[:SCAN]
    if len(_CJK.findall(head)) > 0.2 * max(len(head), 1):
        return "cjk"
    if tool_call or head.lstrip()[:1] in ("{", "["):
        return "json"
    lines = head.count("\n") + 1
    if lines >= 3 and len(_CODE.findall(head)) >= 0.3 * lines:
        return "code"
    return "prose"
