"""``anthropic``: Claude's own token count, from the provider's token-counting endpoint through
the official ``anthropic`` SDK (extra ``ctx-lab[anthropic]``; the key from the environment).

A count is the provider's count of one user message holding the text — its message framing
included, exactly what that text costs as a prompt. Results are kept by the text's sha256, so
re-counting the same text (a slider, a re-built prompt) never calls the API twice. Without the
SDK or a key the counter is unavailable with the reason; it never counts anything else.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

from cachetools import LRUCache

from ..errors import CounterUnavailableError

__all__ = ["AnthropicCounter"]

MODEL_VARIABLE = "CTX_LAB_ANTHROPIC_MODEL"
KEY_VARIABLE = "ANTHROPIC_API_KEY"
TIMEOUT_SECONDS = 30.0


class AnthropicCounter:
    """Counts with Anthropic's token-counting endpoint for ``model`` (default: the
    ``CTX_LAB_ANTHROPIC_MODEL`` variable, else :data:`ctx_lab.models.DEFAULT_ANTHROPIC_MODEL`)."""

    exact = True
    verified_by = "Anthropic's own count (its token-counting endpoint)"

    def __init__(
        self,
        model: str | None = None,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        cache_size: int = 65_536,
    ) -> None:
        self._model = model
        self._api_key = api_key
        self._base_url = base_url
        self.name = "anthropic" if model is None else f"anthropic:{model}"
        self._cache: LRUCache[tuple[str, str], int] = LRUCache(maxsize=cache_size)
        self._lock = threading.Lock()
        self._client: Any = None
        self.calls = 0  # requests made (the rest came from the cache)

    @property
    def model(self) -> str:
        """The model whose tokenizer counts."""
        from ..models import DEFAULT_ANTHROPIC_MODEL  # the models table, only when asked

        return self._model or os.environ.get(MODEL_VARIABLE) or DEFAULT_ANTHROPIC_MODEL

    def status(self) -> tuple[bool, str]:
        """Whether it can count here — the SDK installed and a key set — without a request."""
        try:
            import anthropic  # noqa: F401
        except ImportError:
            return False, "the anthropic SDK is not installed: pip install 'ctx-lab[anthropic]'"
        if not (self._api_key or os.environ.get(KEY_VARIABLE)):
            return False, f"no API key: set {KEY_VARIABLE} (counting calls Anthropic's API)"
        return True, ""

    def _api(self) -> Any:
        ok, reason = self.status()
        if not ok:
            raise CounterUnavailableError(self.name, reason)
        if self._client is None:
            import anthropic

            self._client = anthropic.Anthropic(
                api_key=self._api_key or os.environ.get(KEY_VARIABLE),
                base_url=self._base_url,  # None: the SDK's default or ANTHROPIC_BASE_URL
                timeout=TIMEOUT_SECONDS,
                max_retries=1,
            )
        return self._client

    def count(self, text: str) -> int:
        """Anthropic's count of a user message holding ``text`` (cached by its sha256)."""
        import hashlib  # OpenSSL: only for counters that call the API

        key = (self.model, hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest())
        with self._lock:
            found = self._cache.get(key)
        if found is not None:
            return found
        client = self._api()
        import anthropic

        try:
            answer = client.messages.count_tokens(
                model=self.model, messages=[{"role": "user", "content": text or " "}]
            )
        except anthropic.APIStatusError as exc:
            raise CounterUnavailableError(
                self.name, f"Anthropic answered {exc.status_code}: {_message(exc)}"
            ) from None
        except anthropic.APIError as exc:  # connection failures, timeouts
            raise CounterUnavailableError(
                self.name, f"Anthropic's API could not be reached: {exc}"
            ) from None
        tokens = int(answer.input_tokens)
        with self._lock:
            self.calls += 1
            self._cache[key] = tokens
        return tokens

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """Each text's count (one request per text not yet counted)."""
        return [self.count(text) for text in texts]

    def __repr__(self) -> str:
        return f"AnthropicCounter({self.model!r})"


def _message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
    return str(getattr(exc, "message", exc))
