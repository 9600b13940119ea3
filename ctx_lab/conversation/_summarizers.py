"""Summarizers: turn a run of messages into a summary of about ``target_tokens`` tokens.

``ExtractiveSummarizer`` is offline and deterministic (the default). The HTTP summarizers call
any OpenAI-compatible ``/chat/completions`` endpoint or Anthropic's ``/v1/messages`` with the
design's prompt; input longer than the summarizer's input limit is summarized in chunks, then
the chunk summaries are summarized.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from ..errors import SummarizerError
from ..models import default_model
from ..tokens import CounterLike, get_counter
from ._messages import Message

__all__ = [
    "SUMMARY_INSTRUCTIONS",
    "AnthropicSummarizer",
    "ChatCompletionsSummarizer",
    "ExtractiveSummarizer",
    "Summarizer",
    "transcript",
]

SUMMARY_INSTRUCTIONS = """Summarize the conversation below so it can replace the original
messages in a model's context. Requirements:
- Preserve key facts, decisions, and important context.
- Maintain the chronological flow.
- Stay within {target} tokens.
- Use clear, direct language.
- Preserve essential code snippets and file paths.
- Note unresolved questions or pending actions.
- Write a continuous narrative, not bullet points."""

# Input limits of the design's summarization models; others: the model registry's budget.
SUMMARIZER_INPUT_LIMITS = {"claude-3-haiku-20240307": 190_000, "gpt-4o-mini": 120_000}


@runtime_checkable
class Summarizer(Protocol):
    """``summarize(messages, target_tokens) -> str``."""

    def summarize(self, messages: Sequence[Message], target_tokens: int) -> str:
        """A summary of ``messages`` of about ``target_tokens`` tokens."""
        ...


def _line(message: Message) -> str:
    role, content = message.counted_as()
    if message.role == "tool_use":
        return f"assistant called {content.split(chr(10), 1)[0]}"
    if message.role == "tool_result":
        return f"tool result{' (error)' if message.is_error else ''}: {content}"
    return f"{role}: {content}"


def transcript(messages: Sequence[Message]) -> str:
    """The messages as plain text, one turn after another."""
    return "\n\n".join(_line(m) for m in messages)


_SENTENCE = re.compile(r"(?<=[.!?])\s+")


class _Sentences:
    """A text's sentences (whitespace made single spaces), found one at a time as asked for:
    the sentences of :meth:`ExtractiveSummarizer._sentences`, in order."""

    __slots__ = ("done", "items", "position", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.position = 0
        self.items: list[str] = []
        self.done = False

    def get(self, index: int) -> str | None:
        """The ``index``-th sentence, or None when there are fewer."""
        while len(self.items) <= index and not self.done:
            found = _SENTENCE.search(self.text, self.position)
            if found is None:
                piece, self.done = self.text[self.position :], True
            else:
                piece, self.position = self.text[self.position : found.start()], found.end()
            sentence = " ".join(piece.split())
            if sentence:
                self.items.append(sentence)
        return self.items[index] if index < len(self.items) else None


class ExtractiveSummarizer:
    """Offline and deterministic: the first sentence of each message (role-tagged), then
    further sentences round-robin, while the summary stays within the target."""

    name = "extractive"

    def __init__(self, counter: CounterLike = "cl100k") -> None:
        self.counter = get_counter(counter)

    @staticmethod
    def _sentences(message: Message) -> list[str]:
        return [s.strip() for s in _SENTENCE.split(" ".join(_line(message).split())) if s.strip()]

    def summarize(self, messages: Sequence[Message], target_tokens: int) -> str:
        """Sentences in chronological order, within ``target_tokens``.

        Linear in the input: each candidate sentence is counted once (with the space that joins
        it) and the running total decides; the finished summary is then counted as a whole and,
        should joining have cost more than the parts, trimmed until the real count fits. A
        message's sentences are found only as deep as the summary reaches (a long tool result
        is not split past its first few).
        """
        sources = [_Sentences(_line(m)) for m in messages]
        chosen = [0] * len(sources)
        used = 0
        order: list[int] = []  # which message grew, in order, for trimming
        depth = 0
        while True:
            grew = False
            for i, source in enumerate(sources):
                if chosen[i] != depth:
                    continue
                sentence = source.get(depth)
                if sentence is None:
                    continue
                cost = self.counter.count(" " + sentence)
                if used + cost <= target_tokens:
                    chosen[i] += 1
                    used += cost
                    order.append(i)
                    grew = True
            if not grew:
                break
            depth += 1
        sentences = [source.items for source in sources]
        text = self._render(sentences, chosen)
        while order and self.counter.count(text) > target_tokens:
            chosen[order.pop()] -= 1
            text = self._render(sentences, chosen)
        if not text:  # not even one sentence fits: the start of the first one
            first = next((f for f in (source.get(0) for source in sources) if f), "")
            text = first[: max(target_tokens * 3, 20)]
        return text

    @staticmethod
    def _render(sentences: list[list[str]], chosen: list[int]) -> str:
        return " ".join(
            " ".join(items[:k]) for items, k in zip(sentences, chosen, strict=True) if k
        ).strip()


class _HttpSummarizer:
    name = "http"
    default_base_url = ""
    default_api_key_env = ""
    default_model = ""

    def __init__(
        self,
        model: str | None = None,
        *,
        base_url: str | None = None,
        api_key_env: str | None = None,
        input_limit: int | None = None,
        counter: CounterLike = "cl100k",
        timeout: float = 60.0,
        session: Any = None,
    ) -> None:
        model = model or self.default_model
        if not model:
            raise SummarizerError(f"{type(self).__name__} needs a model name")
        self.model = model
        self.name = model
        self.base_url = (base_url or self.default_base_url).rstrip("/")
        self.api_key_env = api_key_env or self.default_api_key_env
        self.counter = get_counter(counter)
        self.timeout = timeout
        self._session = session
        if input_limit is None:
            input_limit = SUMMARIZER_INPUT_LIMITS.get(model)
        if input_limit is None:
            from ..models import get_registry

            input_limit = get_registry().get(model).effective_input_budget()
        self.input_limit = input_limit

    @property
    def session(self) -> Any:
        if self._session is None:
            import requests

            self._session = requests.Session()
        return self._session

    def api_key(self) -> str:
        key = os.environ.get(self.api_key_env, "")
        if not key:
            raise SummarizerError(f"set {self.api_key_env} to the API key for {self.base_url}")
        return key

    def _post(self, url: str, headers: dict[str, str], body: dict[str, Any]) -> Any:
        import requests

        try:
            response = self.session.post(url, json=body, headers=headers, timeout=self.timeout)
        except requests.exceptions.RequestException as exc:
            raise SummarizerError(f"{url}: {exc.__class__.__name__}: {exc}") from None
        if response.status_code >= 400:
            raise SummarizerError(f"{url}: HTTP {response.status_code}: {response.text[:300]}")
        try:
            return response.json()
        except ValueError:
            raise SummarizerError(f"{url}: the answer is not JSON") from None

    def _call(self, text: str, target_tokens: int) -> str:
        raise NotImplementedError

    def summarize(self, messages: Sequence[Message], target_tokens: int) -> str:
        """Summarize, in chunks when the transcript exceeds the input limit."""
        prompt_room = self.input_limit - self.counter.count(SUMMARY_INSTRUCTIONS) - 64
        text = transcript(messages)
        if self.counter.count(text) <= prompt_room:
            return self._checked(self._call(text, target_tokens))
        chunks: list[list[Message]] = [[]]
        size = 0
        for message in messages:
            tokens = self.counter.count(_line(message))
            if chunks[-1] and size + tokens > prompt_room:
                chunks.append([])
                size = 0
            chunks[-1].append(message)
            size += tokens
        per_chunk = max(target_tokens // len(chunks), 64)
        partial = [self._checked(self._call(transcript(c), per_chunk)) for c in chunks]
        combined = [
            Message.assistant(f"Summary of part {i}: {p}") for i, p in enumerate(partial, 1)
        ]
        return self.summarize(combined, target_tokens)

    @staticmethod
    def _checked(text: str) -> str:
        if not isinstance(text, str) or not text.strip():
            raise SummarizerError("the summarizer returned an empty summary")
        return text.strip()


class ChatCompletionsSummarizer(_HttpSummarizer):
    """Any OpenAI-compatible ``POST {base_url}/chat/completions`` endpoint:
    ``ChatCompletionsSummarizer(model, *, base_url, api_key_env="OPENAI_API_KEY", input_limit)``."""

    default_base_url = "https://api.openai.com/v1"
    default_api_key_env = "OPENAI_API_KEY"

    def _call(self, text: str, target_tokens: int) -> str:
        body = {
            "model": self.model,
            "max_tokens": target_tokens,
            "messages": [
                {"role": "system", "content": SUMMARY_INSTRUCTIONS.format(target=target_tokens)},
                {"role": "user", "content": text},
            ],
        }
        headers = {"Authorization": f"Bearer {self.api_key()}"}
        data = self._post(f"{self.base_url}/chat/completions", headers, body)
        try:
            return str(data["choices"][0]["message"]["content"] or "")
        except (KeyError, IndexError, TypeError):
            raise SummarizerError(
                "unexpected chat/completions answer (no choices[0].message)"
            ) from None


class AnthropicSummarizer(_HttpSummarizer):
    """Anthropic's ``POST {base_url}/v1/messages``: ``AnthropicSummarizer(model=
    "claude-haiku-5-5", *, base_url, api_key_env="ANTHROPIC_API_KEY", input_limit)`` (the
    default is ``ctx_lab.models.default_model("summarizer")``, a current model)."""

    default_base_url = "https://api.anthropic.com"
    default_api_key_env = "ANTHROPIC_API_KEY"
    default_model = default_model("summarizer")

    def _call(self, text: str, target_tokens: int) -> str:
        body = {
            "model": self.model,
            "max_tokens": target_tokens,
            "system": SUMMARY_INSTRUCTIONS.format(target=target_tokens),
            "messages": [{"role": "user", "content": text}],
        }
        headers = {"x-api-key": self.api_key(), "anthropic-version": "2023-06-01"}
        data = self._post(f"{self.base_url}/v1/messages", headers, body)
        try:
            return "".join(
                part.get("text", "") for part in data["content"] if part.get("type") == "text"
            )
        except (KeyError, TypeError, AttributeError):
            raise SummarizerError("unexpected messages answer (no content)") from None
