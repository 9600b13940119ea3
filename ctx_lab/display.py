"""Rich display for result objects: a versioned ctx-lab MIME payload, escaped HTML and plain text.

Every result object derives from :class:`RichResult`. In a notebook it shows itself through
``_repr_mimebundle_`` with three representations:

* ``application/vnd.ctx-lab.<kind>+json`` — ``to_dict()`` plus ``"version"``, for the lab renderers;
* ``text/html`` — self-contained, with every piece of user content HTML-escaped;
* ``text/plain`` — the same text the CLI prints.

This module is pure: it imports nothing from Jupyter.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar

from .errors import CtxLabError, from_os_error, http_status
from .files import hide_root

__all__ = [
    "MIME_PREFIX",
    "PAYLOAD_VERSION",
    "TITLE_MARKUP",
    "RichResult",
    "csv_cell",
    "csv_text",
    "error_payload",
    "escape",
    "first_of",
    "html_table",
    "meter_html",
    "mime_type",
    "plain_title",
    "terminal_safe",
    "text_table",
    "warnings_html",
    "xml_safe",
]

# C0 controls but tab and newline, DEL and the C1 controls: a session's content may hold an
# escape sequence (ESC [ … or the one-character CSI, U+009B) that a terminal would obey
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# what XML 1.0 does not allow in a document at all (its Char production)
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def terminal_safe(text: str, fmt: str = "text") -> str:
    """``text`` with every control character shown, never obeyed: ``\\x1b`` in text, a
    ``\\u009b`` escape inside JSON (which already escapes the C0 ones)."""
    if fmt in ("json", "jsonl", "otlp", "sarif"):
        return _CONTROLS.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return _CONTROLS.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def xml_safe(text: str) -> str:
    """``text`` with the characters XML 1.0 forbids shown as ``\\xNN`` (a name holding
    U+0001 would otherwise make the document unreadable)."""
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


PAYLOAD_VERSION = 1
MIME_PREFIX = "application/vnd.ctx-lab."


def mime_type(kind: str) -> str:
    """The MIME type of a payload kind, e.g. ``application/vnd.ctx-lab.packet+json``."""
    return f"{MIME_PREFIX}{kind}+json"


def escape(value: object) -> str:
    """HTML-escape any value's text (quotes included), as ``html.escape(text, quote=True)``
    does — without importing its 2,000 named entities into every command's start."""
    text = "" if value is None else str(value)
    return text.translate(_ESCAPES)


_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;"})


_STYLE = (
    "<style>"
    ".ctx-lab{font-family:var(--jp-ui-font-family,system-ui,sans-serif);font-size:13px;"
    "color:var(--jp-ui-font-color1,inherit);}"
    ".ctx-lab table{border-collapse:collapse;margin:4px 0;}"
    ".ctx-lab th,.ctx-lab td{padding:2px 8px;border-bottom:1px solid "
    "var(--jp-border-color2,#ddd);text-align:left;vertical-align:top;}"
    ".ctx-lab td.num,.ctx-lab th.num{text-align:right;font-variant-numeric:tabular-nums;}"
    ".ctx-lab .ctx-muted{color:var(--jp-ui-font-color2,#666);}"
    ".ctx-lab .ctx-warn{color:var(--jp-warn-color1,#b26a00);}"
    ".ctx-lab .ctx-bad{color:var(--jp-error-color1,#c62828);}"
    ".ctx-lab .ctx-ok{color:var(--jp-success-color1,#2e7d32);}"
    ".ctx-lab h4{margin:4px 0;font-size:14px;}"
    "</style>"
)


# Markdown's emphasis and code marks, which a title shown as text leaves out (the lab's
# renderers take the same pattern from generated.ts)
TITLE_MARKUP = r"\*\*|__|`"
_TITLE_MARKUP = re.compile(TITLE_MARKUP)
# a cell that starts with an ISO date (2026-06-02…) is never broken at its hyphens
_DATE_CELL = re.compile(r"^\d{4}-\d{2}-\d{2}")


def first_of(names: Sequence[str], shown: int = 3) -> str:
    """``names`` for a one-line warning: the first ``shown``, then how many more
    (``a, b, c and 1,234 more``)."""
    more = len(names) - shown
    return ", ".join(names[:shown]) + (f" and {more:,} more" if more > 0 else "")


def plain_title(title: str) -> str:
    """A title as text, without Markdown emphasis and code marks (``**Money**`` → ``Money``)."""
    return _TITLE_MARKUP.sub("", title)


def _cell(value: object) -> str:
    numeric = isinstance(value, int | float) and not isinstance(value, bool)
    if numeric:
        css = ' class="num"'
    elif isinstance(value, str) and _DATE_CELL.match(value):
        css = ' style="white-space:nowrap"'
    else:
        css = ""
    return f"<td{css}>{escape(value)}</td>"


def html_table(
    headers: Sequence[str], rows: Iterable[Sequence[object]], *, numeric: Iterable[int] = ()
) -> str:
    """An HTML table with escaped headers and cells; numbers align right."""
    numeric_columns = set(numeric)
    head = "".join(
        f"<th{' class=num' if i in numeric_columns else ''}>{escape(h)}</th>"
        for i, h in enumerate(headers)
    )
    body = "".join("<tr>" + "".join(_cell(v) for v in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def meter_html(used: float, limit: float, level: str, *, width: int = 240, height: int = 8) -> str:
    """A horizontal meter ``used``/``limit`` coloured by ``level`` (a payload's ``severity``)."""
    from .severity import SEVERITY_COLORS

    share = min(used / limit, 1.0) if limit > 0 else 1.0
    color = SEVERITY_COLORS.get(level, SEVERITY_COLORS["bad"])
    radius = height // 2
    return (
        f'<div data-ctx-meter="{escape(level)}" style="width:{width}px;height:{height}px;'
        f'background:var(--jp-layout-color3,#e5e7eb);border-radius:{radius}px">'
        f'<div style="width:{share * 100:.1f}%;height:{height}px;background:{color};'
        f'border-radius:{radius}px"></div></div>'
    )


def error_payload(exc: BaseException, root: object = None) -> dict[str, Any]:
    """The one error payload every client gets for a failure — REST's body (``{"error": …}``),
    MCP's structured content and error text: the error's type, its message with the server's
    root written relative to itself, and the HTTP status REST answers with."""
    if isinstance(exc, OSError) and not isinstance(exc, CtxLabError):
        exc = from_os_error(exc)
    status = http_status(exc) if isinstance(exc, CtxLabError) else 500
    message = hide_root(str(exc), None if root is None else str(root))
    return {"type": type(exc).__name__, "message": message, "status": status}


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> object:
    """A cell as a spreadsheet may open it safely: text that a spreadsheet would run as a
    formula (starting with ``= + - @``, a tab or a carriage return) gets a leading ``'``;
    numbers stay numbers, None an empty cell."""
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def csv_text(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """Every CSV ctx-lab writes: a header row and the rows, each cell through
    :func:`csv_cell`."""
    import csv
    import io

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(headers)
    for row in rows:
        writer.writerow([csv_cell(v) for v in row])
    return out.getvalue()


def text_table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A plain-text table: columns padded to width, numbers right-aligned."""
    cells = [[("" if v is None else str(v)) for v in row] for row in rows]
    raw_rows = [list(headers), *cells]
    widths = [max(len(r[i]) for r in raw_rows) for i in range(len(headers))]
    numeric = [
        bool(cells) and all(_looks_numeric(r[i]) for r in cells if r[i])
        for i in range(len(headers))
    ]

    def line(row: Sequence[str]) -> str:
        parts = [
            cell.rjust(widths[i]) if numeric[i] else cell.ljust(widths[i])
            for i, cell in enumerate(row)
        ]
        return "  ".join(parts).rstrip()

    return "\n".join(line(r) for r in raw_rows)


def _looks_numeric(text: str) -> bool:
    try:
        float(text.replace(",", ""))
    except ValueError:
        return False
    return True


def warnings_html(warnings: Sequence[str], open_up_to: int = 3) -> str:
    """Warnings as "N warnings" that expands to the list (open when there are at most
    ``open_up_to``); nothing when there are none."""
    if not warnings:
        return ""
    items = "".join(
        f'<div class="ctx-warn" data-ctx-warning>warning: {escape(w)}</div>' for w in warnings
    )
    label = f"{len(warnings)} warning{'' if len(warnings) == 1 else 's'}"
    opened = " open" if len(warnings) <= open_up_to else ""
    return (
        f'<details data-ctx-warnings="{len(warnings)}"{opened}><summary class="ctx-warn">'
        f"{label}</summary>{items}</details>"
    )


class RichResult:
    """Base of every result object: a payload kind, a dict form and three representations.

    Subclasses define ``payload_kind``, :meth:`to_dict`, :meth:`to_text` and :meth:`html_body`.
    :meth:`json_data` is what ``--format json`` prints (``to_dict()`` unless overridden).
    """

    payload_kind: ClassVar[str] = "result"
    warnings: Sequence[str] = ()
    exit_code: int = 0  # what the CLI exits with after printing (e.g. history --check)

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready dict shared by the CLI, the REST API and the lab renderers: by
        default the dataclass's declaration put on the wire (:func:`ctx_lab.wire.to_wire`)."""
        from .wire import to_wire

        if not dataclasses.is_dataclass(self):
            raise NotImplementedError(f"{type(self).__name__} does not define to_dict")
        return to_wire(self)

    to_dict.__wire_generic__ = True  # type: ignore[attr-defined]  # the declaration's own

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Any:
        """The result again from its :meth:`to_dict` (derived keys are ignored): by default
        from the dataclass's declaration (:func:`ctx_lab.wire.from_wire`)."""
        from .wire import from_wire

        if not dataclasses.is_dataclass(cls):
            raise TypeError(f"{cls.__name__} does not define from_dict")
        return from_wire(cls, data)

    from_dict.__func__.__wire_generic__ = True  # type: ignore[attr-defined]  # ctx_lab.wire decodes in place

    @classmethod
    def declares_wire(cls) -> bool:
        """Whether the JSON form is the declaration's (:mod:`ctx_lab.wire`), not hand-written."""
        return cls.to_dict is RichResult.to_dict and dataclasses.is_dataclass(cls)

    @classmethod
    def payload_schema(cls) -> dict[str, Any]:
        """The JSON Schema of the MIME payload: made from the declaration, or (for a result
        whose ``to_dict`` is hand-written) ``schemas/<kind>.json``."""
        if cls.declares_wire():
            from .wire import json_schema

            return json_schema(cls, cls.payload_kind, PAYLOAD_VERSION)
        from .schemas import load_schema

        return load_schema(cls.payload_kind)

    def to_text(self) -> str:
        """The plain-text form the CLI prints."""
        raise NotImplementedError

    def html_body(self) -> str:
        """The HTML inside the result's container; every user string must go through escape()."""
        return f"<pre>{escape(self.to_text())}</pre>"

    def json_data(self) -> Any:
        """What ``--format json`` prints."""
        return self.to_dict()

    def to_json(self, indent: int | None = 2) -> str:
        """``json_data()`` as JSON text with a trailing newline."""
        return json.dumps(self.json_data(), indent=indent, ensure_ascii=False) + "\n"

    def render(self, fmt: str = "text") -> str:
        """Render for the CLI in ``fmt`` (``text`` or ``json``; subclasses add more)."""
        if fmt == "json":
            return self.to_json()
        text = self.to_text()
        return text if text.endswith("\n") else text + "\n"

    def file_output(self, path: str, fmt: str = "text") -> str | bytes:
        """What ``-o path`` writes: :meth:`render` in ``fmt`` (results with binary forms,
        such as Parquet tables, choose by the file's suffix)."""
        return self.render(fmt)

    def payload(self) -> dict[str, Any]:
        """The versioned MIME payload: ``to_dict()`` plus ``version``."""
        return {**self.to_dict(), "version": PAYLOAD_VERSION}

    def to_html(self) -> str:
        """Self-contained HTML: scoped styles, a container tagged with the kind, the body."""
        warnings = warnings_html(self.warnings)
        kind = escape(self.payload_kind)
        return (
            f'<div class="ctx-lab ctx-lab-{kind}" data-ctx-kind="{kind}">'
            f"{_STYLE}{self.html_body()}{warnings}</div>"
        )

    def _repr_mimebundle_(
        self, include: Iterable[str] | None = None, exclude: Iterable[str] | None = None
    ) -> dict[str, Any]:
        bundle: dict[str, Any] = {
            mime_type(self.payload_kind): self.payload(),
            "text/html": self.to_html(),
            "text/plain": terminal_safe(self.to_text()),
        }
        if include is not None:
            wanted = set(include)
            bundle = {k: v for k, v in bundle.items() if k in wanted}
        if exclude is not None:
            unwanted = set(exclude)
            bundle = {k: v for k, v in bundle.items() if k not in unwanted}
        return bundle
