"""``ctx-lab capture``: a recording reverse proxy for agents' model calls (``pip install
'ctx-lab[capture]'``, aiohttp). Point an agent at it by its base URL — ``ANTHROPIC_BASE_URL``
(Claude Code, the Anthropic SDKs), ``OPENAI_BASE_URL`` ending in ``/v1`` (Codex CLI, the OpenAI
SDKs, LangChain) — and every call lands in a capture file that :mod:`ctx_lab.anatomy` reads.

>>> from ctx_lab.capture import CaptureProxy, Served
>>> from ctx_lab.anatomy import CaptureStore
>>> recorder = CaptureProxy("openai", "https://api.openai.com", CaptureStore("calls.db"))
>>> proxy = Served(recorder.app())                                  # doctest: +SKIP
>>> proxy.url                                                       # doctest: +SKIP
'http://127.0.0.1:41235'
"""

from ._fake import Answer, FakeUpstream, sse_from_response
from ._proxy import HOP_BY_HOP, CaptureProxy
from ._served import Served

__all__ = ["HOP_BY_HOP", "Answer", "CaptureProxy", "FakeUpstream", "Served", "sse_from_response"]
