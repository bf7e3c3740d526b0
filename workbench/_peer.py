"""Who a running tool can talk to: the *peer* behind its ``ToolContext`` — the MCP client when the
tool is served, the notebook's forms and models in a notebook, the agent loop's model in a run.

A peer is any object with the methods of :class:`ToolPeer`; it reaches the context through the
call's ``invocation_state`` under :data:`PEER_KEY` (each served request, form run or agent run
builds its own). Where there is none, asking fails with :class:`NobodyToAsk`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Optional, Protocol, Sequence, Union

__all__ = [
    "LOG_LEVELS",
    "PEER_KEY",
    "Elicitation",
    "Sampled",
    "NobodyToAsk",
    "ToolPeer",
    "sampling_messages",
    "elicitation_schema",
]

#: MCP (RFC 5424) log levels, least to most severe
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
#: the ``invocation_state`` key of a call's peer
PEER_KEY = "workbench.peer"


class NobodyToAsk(RuntimeError):
    """A tool asked (``elicit``/``sample``) where nobody can answer: say where it ran and what would."""


@dataclass(frozen=True)
class Elicitation:
    """The user's answer to ``ToolContext.elicit``: ``action`` is ``"accept"`` (with ``content``, the
    form's values), ``"decline"`` or ``"cancel"``."""

    action: str
    content: dict[str, Any] = field(default_factory=dict)

    @property
    def accepted(self) -> bool:
        return self.action == "accept"


@dataclass(frozen=True)
class Sampled:
    """A model's answer to ``ToolContext.sample``: its ``text`` (empty for a non-text answer), the
    ``model`` that wrote it, why it stopped, and the raw ``content`` block."""

    text: str
    model: str = ""
    stop_reason: Optional[str] = None
    content: Any = None


Messages = Union[str, Sequence[dict[str, Any]]]


class ToolPeer(Protocol):
    """What answers a tool's context. ``loop`` is the event loop its coroutines run on (``None``:
    any loop — a sync tool's question then runs on a fresh one)."""

    loop: Optional[asyncio.AbstractEventLoop]

    def log(self, level: str, message: str, tool_name: str) -> None: ...

    async def elicit(self, message: str, schema: dict[str, Any], tool_name: str) -> Elicitation: ...

    async def sample(self, messages: list[dict[str, Any]], options: dict[str, Any], tool_name: str) -> Sampled: ...

    def release_stream(self) -> bool: ...


def sampling_messages(messages: Messages) -> list[dict[str, Any]]:
    """``messages`` as MCP sampling messages: a string is one user text; each dict has ``role``
    (``user``/``assistant``) and ``content`` — a string (text) or an MCP content block."""
    if isinstance(messages, str):
        messages = [{"role": "user", "content": messages}]
    out = []
    for index, message in enumerate(messages):
        if (
            not isinstance(message, dict)
            or message.get("role") not in ("user", "assistant")
            or "content" not in message
        ):
            raise ValueError(
                f"sample(messages): message {index} must be a dict with role 'user' or 'assistant' and "
                f"content (a string or an MCP content block), got {message!r}"
            )
        content = message["content"]
        if isinstance(content, str):
            content = {"type": "text", "text": content}
        elif not isinstance(content, dict) or "type" not in content:
            raise ValueError(
                f"sample(messages): message {index} content must be a string or an MCP content block "
                f"(a dict with 'type'), got {content!r}"
            )
        out.append({"role": message["role"], "content": content})
    if not out:
        raise ValueError("sample(messages): give at least one message")
    return out


def elicitation_schema(schema: Any) -> dict[str, Any]:
    """The requested schema of an elicitation: a JSON Schema object of flat properties, or a pydantic
    model class (its JSON schema)."""
    if isinstance(schema, type) and hasattr(schema, "model_json_schema"):
        schema = schema.model_json_schema()
    if (
        not isinstance(schema, dict)
        or schema.get("type", "object") != "object"
        or not isinstance(schema.get("properties", {}), dict)
    ):
        raise ValueError(
            "elicit(message, schema): schema must be a JSON Schema object ({'type': 'object', "
            f"'properties': {{...}}}}) or a pydantic model class, got {schema!r}"
        )
    return {"type": "object", **schema}
