"""Chat messages: system, user, assistant, tool_use and tool_result."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..errors import UsageError
from ..validate import savable_text

__all__ = ["ROLES", "Message"]

ROLES = ("system", "user", "assistant", "tool_use", "tool_result")


@dataclass(frozen=True, slots=True)
class Message:
    """One message. Tool calls carry ``call_id``, ``name`` and ``arguments``; tool results
    carry ``call_id`` and ``is_error``."""

    role: str
    content: str = ""
    call_id: str | None = None
    name: str | None = None
    arguments: Any = None
    is_error: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.role, str) or self.role not in ROLES:
            raise UsageError(f"role must be one of {', '.join(ROLES)}; got {self.role!r}")
        savable_text(self.content, "content")
        for name in ("call_id", "name"):
            value = getattr(self, name)
            if value is not None:
                savable_text(value, name)
        if not isinstance(self.is_error, bool):
            raise UsageError(f"is_error must be true or false, got {self.is_error!r}")
        if self.arguments is not None:
            try:
                json.dumps(self.arguments, ensure_ascii=False).encode("utf-8")
            except (TypeError, ValueError, UnicodeEncodeError) as exc:
                raise UsageError(f"tool arguments must be JSON-serializable text ({exc})") from None
        if self.role in ("tool_use", "tool_result") and not self.call_id:
            raise UsageError(f"a {self.role} message needs a call_id")
        if self.role == "tool_use" and not self.name:
            raise UsageError("a tool_use message needs the tool's name")

    @classmethod
    def system(cls, text: str) -> Message:
        """A system message."""
        return cls("system", text)

    @classmethod
    def user(cls, text: str) -> Message:
        """A user message."""
        return cls("user", text)

    @classmethod
    def assistant(cls, text: str) -> Message:
        """An assistant message."""
        return cls("assistant", text)

    @classmethod
    def tool_use(cls, call_id: str, name: str, arguments: Any = None) -> Message:
        """The assistant calling a tool."""
        return cls("tool_use", "", call_id, name, {} if arguments is None else arguments)

    @classmethod
    def tool_result(cls, call_id: str, content: str, is_error: bool = False) -> Message:
        """A tool's answer to ``call_id``."""
        return cls("tool_result", content, call_id, is_error=is_error)

    def counted_as(self) -> tuple[str, str]:
        """``(role, content)`` as the token count sees them: tool_use counts as assistant with
        ``name + "\\n" + compact JSON of the arguments``; tool_result counts as user."""
        if self.role == "tool_use":
            args = json.dumps(
                self.arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False
            )
            return "assistant", f"{self.name}\n{args}"
        if self.role == "tool_result":
            return "user", self.content
        return self.role, self.content

    def to_dict(self) -> dict[str, Any]:
        """JSON form (tool fields only when set)."""
        data: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.call_id is not None:
            data["call_id"] = self.call_id
        if self.role == "tool_use":
            data["name"] = self.name
            data["arguments"] = self.arguments
        if self.role == "tool_result":
            data["is_error"] = self.is_error
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Message:
        """Inverse of :meth:`to_dict`."""
        if not isinstance(data, dict):
            raise UsageError(f"a message must be an object, got {type(data).__name__}")
        return cls(
            role=data["role"],
            content=data.get("content", ""),
            call_id=data.get("call_id"),
            name=data.get("name"),
            arguments=data.get("arguments"),
            is_error=data.get("is_error", False),
        )
