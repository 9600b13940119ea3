"""One file under one compression policy, with its token counts before and after — what
``ctx-lab compress`` shows."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ..display import RichResult, escape
from ..files import decode_text, is_binary, read_bytes
from ..tokens import CounterLike, get_counter
from ..wire import wire
from ._blocks import ContentBlock
from ._compress import apply_policy

__all__ = ["CompressPreview", "preview_compression"]


@dataclass(frozen=True, kw_only=True)
class CompressPreview(RichResult):
    """One file under one policy: the text and its token counts before and after."""

    path: str
    requested: str
    policy: str
    tokens_before: int = field(metadata=wire(minimum=0))
    tokens_after: int = field(metadata=wire(minimum=0))
    text: str
    counter: str
    note: str = ""

    payload_kind = "compress"

    def to_text(self) -> str:
        """A header line with the counts, then the compressed text."""
        saved = 1 - self.tokens_after / self.tokens_before if self.tokens_before else 0.0
        head = (
            f"{self.path}: {self.policy} — {self.tokens_before} → {self.tokens_after} tokens "
            f"({self.counter}, {saved:.0%} saved)"
        )
        if self.note:
            head += f"\nnote: {self.note}"
        return f"{head}\n\n{self.text}"

    def html_body(self) -> str:
        """Counts and the compressed text."""
        return (
            f"<h4 data-ctx-compress>{escape(self.path)}: {escape(self.policy)} — "
            f"{self.tokens_before} → {self.tokens_after} tokens</h4>"
            + (f'<div class="ctx-muted">{escape(self.note)}</div>' if self.note else "")
            + f"<pre>{escape(self.text)}</pre>"
        )


def preview_compression(
    path: str | os.PathLike[str],
    policy: str | None = None,
    counter: CounterLike = "chars/3",
    *,
    label: str | None = None,
) -> CompressPreview:
    """``path`` compressed with ``policy`` (default: the file's default policy)."""
    tokens = get_counter(counter)
    data = read_bytes(path)
    binary = is_binary(data)
    warnings: list[str] = []
    name = label or Path(path).as_posix()
    text = "" if binary else decode_text(data, name, warnings)
    block = ContentBlock.for_file(name, text, policy=policy, binary=binary)
    result = apply_policy(block, block.policy, len(data))
    return CompressPreview(
        path=name,
        requested=block.policy,
        policy=result.policy,
        tokens_before=tokens.count(text) if not binary else 0,
        tokens_after=tokens.count(result.text),
        text=result.text,
        counter=tokens.name,
        note="; ".join([result.note, *warnings]).strip("; "),
    )
