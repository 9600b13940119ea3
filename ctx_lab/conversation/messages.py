"""Chat messages: system, user, assistant, tool_use and tool_result."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..errors import UsageError

__all__ = ["ROLES", "Message"]

ROLES = ("system", "user", "assistant", "tool_use", "tool_result")


@dataclass(frozen=True)
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
        if self.role not in ROLES:
            raise UsageError(f"role must be one of {', '.join(ROLES)}; got {self.role!r}")
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
        return cls(
            data["role"],
            data.get("content", ""),
            data.get("call_id"),
            data.get("name"),
            data.get("arguments"),
            bool(data.get("is_error", False)),
        )
