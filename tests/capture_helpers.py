"""What the capture tests send and answer: an Anthropic Messages answer in the documented shape
(``anthropic.types.Message``), its text chosen by each test."""

from __future__ import annotations

from typing import Any


def message(text: str = "hello", output_tokens: int = 3) -> dict[str, Any]:
    """An Anthropic Messages response with one text block and its usage."""
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 12, "output_tokens": output_tokens},
    }
