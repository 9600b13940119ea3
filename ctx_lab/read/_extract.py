"""Turning fetched bytes into the text stream that pagination walks: HTML → Markdown,
PDF → page texts, text → text."""

from __future__ import annotations

import codecs
import hashlib
import io
import mimetypes
import re
from dataclasses import dataclass
from html import escape as html_escape
from html.parser import HTMLParser
from typing import Any

from ..errors import CorruptDocument, LimitExceeded, UnsupportedContent
from ..files import is_binary, normalize_newlines

__all__ = [
    "EXTRACTOR_VERSION",
    "Document",
    "classify",
    "decode_body",
    "extract_html",
    "extract_pdf",
    "make_document",
]
# Bumped whenever extraction changes what it produces: documents kept on disk by an older
# extractor are then not used (ctx_lab.read._disk_cache).
EXTRACTOR_VERSION = "3"

TEXT_TYPES = (
    "application/json",
    "application/xml",
    "application/javascript",
    "application/x-yaml",
    "application/yaml",
    "application/toml",
    "application/x-sh",
    "application/sql",
)
HTML_TYPES = ("text/html", "application/xhtml+xml")
# When main-content extraction keeps less than this share of the page's text, the page is a
# link list or too small for extraction to make sense: convert the whole body instead.
MIN_EXTRACTED_SHARE = 0.2
# A page whose visible text is mostly link text is a link list: its links are the content.
MAX_LINK_SHARE = 0.6


@dataclass(frozen=True)
class Document:
    """One extracted representation: the text (or, for PDFs, the text of each page)."""

    uri: str
    kind: str
    content_type: str
    text: str = ""
    pages: tuple[str, ...] = ()
    validators: tuple[str, ...] = ()
    cache_id: str = ""

    @property
    def size(self) -> int:
        """Characters held (for the cache's size bound)."""
        return len(self.text) + sum(len(p) for p in self.pages)


def make_document(
    uri: str,
    kind: str,
    content_type: str,
    validators: tuple[str, ...],
    *,
    text: str = "",
    pages: tuple[str, ...] = (),
) -> Document:
    """A document with its short cache id: a hash of uri, kind and validators."""
    digest = hashlib.sha256("\x00".join((uri, kind, *validators)).encode("utf-8", "surrogatepass"))
    return Document(
        uri=uri,
        kind=kind,
        content_type=content_type,
        text=text,
        pages=pages,
        validators=validators,
        cache_id=digest.hexdigest()[:12],
    )


def content_digest(*texts: str) -> str:
    """A validator from the extracted text itself, so a cursor continues only into the very
    same text — whether it came from the cache or was fetched and extracted again."""
    digest = hashlib.sha256()
    for text in texts:
        digest.update(text.encode("utf-8", "surrogatepass"))
        digest.update(b"\x1e")
    return f"text={digest.hexdigest()[:16]}"


def _base_type(content_type: str) -> str:
    return content_type.split(";", 1)[0].strip().lower()


def classify(content_type: str | None, data: bytes, name: str = "") -> tuple[str, str]:
    """``(kind, content_type)`` for the bytes; :class:`UnsupportedContent` for anything else."""
    guessed = mimetypes.guess_type(name)[0] if name else None
    declared = _base_type(content_type or "") or (guessed or "")
    head = data[:1024].lstrip()
    if data.startswith(b"%PDF-") or declared == "application/pdf":
        return "pdf", "application/pdf"
    if declared in HTML_TYPES or (
        not declared and head[:15].lower().startswith((b"<!doctype html", b"<html"))
    ):
        return "html", declared or "text/html"
    if (
        declared.startswith("text/")
        or declared in TEXT_TYPES
        or declared.endswith(("+json", "+xml"))
    ):
        return "text", declared
    if is_binary(data) or (declared and not declared.startswith("text/")):
        kind = declared or "application/octet-stream"
        raise UnsupportedContent(f"read supports text, HTML and PDF; got {kind}")
    return "text", declared or "text/plain"


def _charset(content_type: str | None) -> str | None:
    match = re.search(r"charset=([\w.:-]+)", content_type or "", re.IGNORECASE)
    return match.group(1) if match else None


_META_CHARSET = re.compile(
    rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE
)
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def body_charset(data: bytes, content_type: str | None = None) -> str:
    """The encoding of a body: a byte-order mark, else the ``charset`` of the Content-Type,
    else an HTML ``<meta charset>`` in the first 4 KiB, else UTF-8."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return codec
    declared = _charset(content_type)
    if declared is None:
        meta = _META_CHARSET.search(data[:4096])
        declared = meta.group(1).decode("ascii") if meta else None
    if declared is None:
        return "utf-8"
    try:
        name = codecs.lookup(declared).name
    except LookupError:
        return "utf-8"
    return "utf-8-sig" if name == "utf-8" else name


def decode_body(data: bytes, content_type: str | None = None) -> str:
    """Decode with :func:`body_charset`, bad bytes replaced."""
    return normalize_newlines(data.decode(body_charset(data, content_type), "replace"))


MAX_HTML_DEPTH = 100  # deeper elements are unwrapped (their text kept) before conversion
_INVISIBLE = ("script", "style", "noscript", "template")


def _visible(node: Any) -> int:
    return len(" ".join(node.text_content().split()))


_VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())


class _Flattener(HTMLParser):
    """One linear pass over the markup: drops invisible elements and comments, and leaves out
    the tags (not the text) of elements nested deeper than :data:`MAX_HTML_DEPTH`, so no parser
    or converter after it meets a deep tree."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.stack: list[tuple[str, bool]] = []  # (tag, written)
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag in _VOID:
            if not self.hidden and len(self.stack) < MAX_HTML_DEPTH:
                self.out.append(self.get_starttag_text() or "")
            return
        invisible = tag in _INVISIBLE
        written = not self.hidden and not invisible and len(self.stack) < MAX_HTML_DEPTH
        if written:
            self.out.append(self.get_starttag_text() or f"<{tag}>")
        if invisible:
            self.hidden += 1
        self.stack.append((tag, written))

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID or not any(open_tag == tag for open_tag, _ in self.stack):
            return  # a stray end tag
        while self.stack:
            open_tag, written = self.stack.pop()
            if open_tag in _INVISIBLE:
                self.hidden -= 1
            if written:
                self.out.append(f"</{open_tag}>")
            if open_tag == tag:
                return

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.out.append(html_escape(data, quote=False))


def _without_comments(html: str) -> str:
    """``html`` less its comments, in one pass: an unclosed ``<!--`` runs to the end, as
    browsers read it (Python's parser would search for its end again at every one of them)."""
    out: list[str] = []
    position = 0
    while True:
        start = html.find("<!--", position)
        if start < 0:
            out.append(html[position:])
            break
        out.append(html[position:start])
        end = html.find("-->", start + 2)  # "<!-->" and "<!--->" close at once
        if end < 0:
            break
        position = end + 3
    return "".join(out)


def _flatten(html: str) -> str:
    flattener = _Flattener()
    flattener.feed(_without_comments(html))
    flattener.close()
    return "".join(flattener.out)


def _tree(html: str) -> Any:
    """The page parsed once by lxml (linear time, nesting bounded): invisible elements removed,
    elements nested deeper than :data:`MAX_HTML_DEPTH` unwrapped. None for an empty page."""
    import lxml.etree
    import lxml.html

    try:
        root = lxml.html.document_fromstring(_flatten(html))
    except (lxml.etree.ParserError, ValueError):
        return None
    for node in [n for n in root.iter(*_INVISIBLE)]:
        node.drop_tree()
    for node in [n for n in root.iter(lxml.etree.Comment, lxml.etree.ProcessingInstruction)]:
        node.drop_tree()
    # anchors that are only targets, and links inside code, are their text: kept as links they
    # empty headings (<h3><a name=…>…</a></h3>) and make a synopsis look like a link list
    for node in [
        a
        for a in root.iter("a")
        if a.get("href") is None or any(p.tag in ("pre", "code") for p in a.iterancestors())
    ]:
        node.drop_tag()
    deep = []
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_HTML_DEPTH:
            deep.append(node)
        stack.extend((child, depth + 1) for child in node if isinstance(child.tag, str))
    for node in deep:
        node.drop_tag()
    return root


def extract_html(html: str) -> str:
    """Main content as Markdown (trafilatura); the whole body through markdownify when the
    extraction keeps very little or the page is mostly links (link lists, tiny pages).

    The page is parsed once (lxml: linear, depth-bounded) and cleaned before either converter
    sees it, so neither script floods nor deep nesting cost more than the page's size.
    """
    try:
        import lxml.html
        import trafilatura
        from markdownify import markdownify
    except ImportError as exc:
        raise UnsupportedContent(
            f"reading a web page needs the [reading] extra: pip install 'ctx-lab[reading]' ({exc})"
        ) from None

    root = _tree(html)
    if root is None:
        return ""
    cleaned = lxml.html.tostring(root, encoding="unicode")
    extracted = (
        trafilatura.extract(
            cleaned,
            output_format="markdown",
            include_links=True,
            include_tables=True,
            favor_recall=True,
        )
        or ""
    )
    visible = _visible(root)
    link_text = sum(_visible(a) for a in root.iter("a"))
    link_list = visible > 0 and link_text / visible > MAX_LINK_SHARE
    if not link_list and len(extracted.strip()) >= max(MIN_EXTRACTED_SHARE * visible, 1):
        return normalize_newlines(extracted.strip()) + "\n"
    body = root.find("body")
    fragment = (
        "".join(lxml.html.tostring(child, encoding="unicode") for child in body)
        if body is not None
        else cleaned
    )
    if body is not None and body.text:
        fragment = body.text + fragment
    converted = markdownify(fragment, heading_style="ATX")
    text = re.sub(r"\n{3,}", "\n\n", normalize_newlines(converted)).strip()
    return text + "\n" if text else ""


def extract_pdf(data: bytes, max_pages: int) -> tuple[str, ...]:
    """The text of every page (pypdf). Encrypted or damaged files raise :class:`CorruptDocument`;
    more than ``max_pages`` pages raise :class:`LimitExceeded`."""
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    if not data.startswith(b"%PDF-"):
        raise CorruptDocument("not a PDF: the file does not start with %PDF-")
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise CorruptDocument("the PDF is encrypted; decrypt it first (e.g. qpdf --decrypt)")
        count = len(reader.pages)
        if count > max_pages:
            raise LimitExceeded(f"the PDF has {count} pages; the limit is {max_pages}")
        return tuple(normalize_newlines(page.extract_text() or "") for page in reader.pages)
    except (CorruptDocument, LimitExceeded):
        raise
    except (
        PyPdfError,
        ValueError,
        KeyError,
        TypeError,
        AttributeError,
        IndexError,
        AssertionError,
        RecursionError,
        ZeroDivisionError,
        OverflowError,
        NotImplementedError,
        LookupError,
        UnicodeError,
        EOFError,
    ) as exc:  # pypdf reports damage in all of these ways (an unknown filter: NotImplementedError)
        raise CorruptDocument(f"cannot read the PDF: {type(exc).__name__}: {exc}") from None
