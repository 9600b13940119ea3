"""What images and documents cost, by each provider's documented rule — never counted as text.

- Anthropic images: ``width × height / 750`` tokens after the image is scaled to at most 1,568
  px on its long edge and about 1.15 megapixels (Anthropic's vision guide); an image whose size
  cannot be read (a URL) is taken at the documented maximum, about 1,600 tokens.
- OpenAI images: ``detail: low`` costs 85; otherwise the image is scaled to fit 2,048 × 2,048,
  then its short side to 768, and costs 85 + 170 per 512 px tile (OpenAI's vision guide); an
  unknown size is taken as 1,024 × 1,024 (765 tokens).
- Gemini images (the ``tokens`` guide, ai.google.dev/gemini-api/docs/tokens, for Gemini 2.0):
  both sides at most 384 px cost 258; larger images are cut into 768 × 768 tiles of 258 each;
  an unknown size is taken as 1,024 × 1,024 (1,032 tokens). Later Gemini models set the cost by
  ``media_resolution`` instead, which a recording does not keep: the 2.0 rule stands in.
- PDFs: each page is read as text and as an image — Anthropic documents 1,500–3,000 tokens a
  page; the middle, 2,250, is used per page counted in the file (``/Type /Page``), 2,250 when
  the file is not in the request. Every such figure is an estimate and says so.
"""

from __future__ import annotations

import base64
import math
import re
import struct
from collections.abc import Mapping
from typing import Any

__all__ = [
    "image_provider",
    "image_size",
    "image_tokens",
    "pdf_tokens",
    "sized_image_tokens",
    "source_size",
]

ANTHROPIC_LONG_EDGE = 1568
ANTHROPIC_PIXELS = 1_150_000
ANTHROPIC_MAX = 1600
OPENAI_LOW = 85
OPENAI_TILE = 170
GEMINI_SMALL = 384
GEMINI_TILE_PX = 768
GEMINI_TILE = 258
PDF_PAGE = 2250
_HEAD = 65_536  # base64 characters decoded to find an image's size
_PAGE = re.compile(rb"/Type\s*/Page(?!s)")
_DATA_URL = re.compile(r"^data:[^;,]*;base64,(?P<data>.*)$", re.S)


def image_size(data: bytes) -> tuple[int, int] | None:
    """``(width, height)`` from the head of a PNG, GIF, JPEG or WebP file, else None."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        return struct.unpack(">II", data[16:24])
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        return struct.unpack("<HH", data[6:10])
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        kind = data[12:16]
        if kind == b"VP8X" and len(data) >= 30:
            width = int.from_bytes(data[24:27], "little") + 1
            height = int.from_bytes(data[27:30], "little") + 1
            return width, height
        if kind == b"VP8 " and len(data) >= 30:
            width, height = struct.unpack("<HH", data[26:30])
            return width & 0x3FFF, height & 0x3FFF
        if kind == b"VP8L" and len(data) >= 25:
            bits = int.from_bytes(data[21:25], "little")
            return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
        return None
    if data[:2] == b"\xff\xd8":
        i = 2
        while i + 9 < len(data):
            if data[i] != 0xFF:
                i += 1
                continue
            marker = data[i + 1]
            if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
                i += 2
                continue
            length = int.from_bytes(data[i + 2 : i + 4], "big")
            if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE):
                height, width = struct.unpack(">HH", data[i + 5 : i + 9])
                return width, height
            i += 2 + length
    return None


def _decoded_head(text: str) -> bytes:
    head = text[:_HEAD]
    head = head[: len(head) - len(head) % 4]
    try:
        return base64.b64decode(head, validate=False)
    except ValueError:
        return b""


def _anthropic(width: int, height: int) -> int:
    scale = min(1.0, ANTHROPIC_LONG_EDGE / max(width, height, 1))
    scale = min(scale, math.sqrt(ANTHROPIC_PIXELS / max(width * height, 1)))
    w, h = max(int(width * scale), 1), max(int(height * scale), 1)
    return max(math.ceil(w * h / 750), 1)


def _openai(width: int, height: int) -> int:
    scale = min(1.0, 2048 / max(width, height, 1))
    w, h = width * scale, height * scale
    short = min(w, h)
    if short > 768:
        w, h = w * 768 / short, h * 768 / short
    tiles = math.ceil(w / 512) * math.ceil(h / 512)
    return OPENAI_LOW + OPENAI_TILE * tiles


def _gemini(width: int, height: int) -> int:
    if width <= GEMINI_SMALL and height <= GEMINI_SMALL:
        return GEMINI_TILE
    return math.ceil(width / GEMINI_TILE_PX) * math.ceil(height / GEMINI_TILE_PX) * GEMINI_TILE


def image_provider(model: str) -> str:
    """Whose image rule a model follows: ``anthropic`` (Claude), ``google`` (Gemini, Gemma),
    else ``openai`` (GPT, the o-series, and models served behind OpenAI-shaped APIs)."""
    name = model.lower().rsplit("/", 1)[-1]
    if name.startswith("claude"):
        return "anthropic"
    if name.startswith(("gemini", "gemma")):
        return "google"
    return "openai"


def sized_image_tokens(
    provider: str, size: tuple[int, int] | None, detail: str = "auto"
) -> tuple[int, str]:
    """``(tokens, how)`` of one image of ``size`` px (None: unknown) by ``provider``'s rule."""
    if provider == "anthropic":
        if size is None:
            return ANTHROPIC_MAX, "image of unknown size: Anthropic's documented maximum (≈1,600)"
        return _anthropic(*size), f"{size[0]}×{size[1]} px: w × h / 750 (Anthropic)"
    if provider == "google":
        if size is None:
            return _gemini(1024, 1024), "image of unknown size: taken as 1,024 × 1,024 (Gemini)"
        return _gemini(*size), f"{size[0]}×{size[1]} px: 258 per 768 px tile (Gemini)"
    if detail == "low":
        return OPENAI_LOW, "detail low: 85 (OpenAI)"
    if size is None:
        return _openai(1024, 1024), "image of unknown size: taken as 1,024 × 1,024 (OpenAI tiles)"
    return _openai(*size), f"{size[0]}×{size[1]} px: 85 + 170 per 512 px tile (OpenAI)"


def source_size(source: Any) -> tuple[int, int] | None:
    """The pixel size of an image from its Anthropic ``source`` object (base64) or an OpenAI
    ``image_url`` (a ``data:`` URL), read from the first bytes; None when it cannot be read."""
    data = ""
    if isinstance(source, Mapping):
        if source.get("type") == "base64" or "base64" in source:
            data = str(source.get("data") or source.get("base64") or "")
    elif isinstance(source, str):
        found = _DATA_URL.match(source)
        data = found["data"] if found else ""
    return image_size(_decoded_head(data)) if data else None


def image_tokens(provider: str, source: Any, detail: str = "auto") -> tuple[int, str]:
    """``(tokens, how)`` of one image: ``source`` is an Anthropic ``source`` object or an
    OpenAI ``image_url`` (a URL or a ``data:`` URL)."""
    return sized_image_tokens(provider, source_size(source), detail)


def pdf_tokens(provider: str, block: Mapping[str, Any]) -> tuple[int, str]:
    """``(tokens, how)`` of a document: a PDF at the documented per-page range's middle."""
    source = block.get("source", block.get("file", block))
    data = ""
    if isinstance(source, Mapping):
        if source.get("type") == "text":
            text = str(source.get("data", ""))
            return max(len(text) // 4, 1), "a text document: bytes/4 estimate"
        data = str(source.get("data") or source.get("file_data") or "")
        found = _DATA_URL.match(data)
        data = found["data"] if found else data
    if not data:
        return PDF_PAGE, "a PDF not in the request: one page at 2,250 (1,500–3,000 a page)"
    try:
        raw = base64.b64decode(data[:8_000_000], validate=False)
    except ValueError:
        raw = b""
    pages = max(len(_PAGE.findall(raw)), 1)
    return pages * PDF_PAGE, f"{pages} page(s) at 2,250 (1,500–3,000 a page, {provider})"
