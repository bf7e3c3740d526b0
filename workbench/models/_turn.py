"""What one model turn returns (:class:`ModelTurn`) and how a failed one is reported (:class:`ModelError`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Optional, cast

from workbench.types import ToolUse


@dataclass
class Usage:
    """Tokens one turn (or a whole run, when summed) consumed."""

    input_tokens: int = 0
    output_tokens: int = 0

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens)

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass
class ModelTurn:
    """One answer of a model: its text, the tools it called, why it stopped, and what it cost.

    ``request`` is what was sent (provider JSON, secrets masked) and ``response`` the provider's
    JSON answer; both are ``None`` for offline models that send nothing. ``model`` is the model's
    id (``"openai:gpt-4.1-mini"``).
    """

    text: str = ""
    tool_calls: list[ToolUse] = field(default_factory=list)
    stop_reason: Optional[str] = None
    usage: Usage = field(default_factory=Usage)
    latency_ms: float = 0.0
    request: Optional[dict[str, Any]] = None
    response: Optional[dict[str, Any]] = None
    model: Optional[str] = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict (``ModelTurn.from_dict`` reads it back)."""
        data = asdict(self)
        data["tool_calls"] = [dict(call) for call in self.tool_calls]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ModelTurn":
        """A turn from :meth:`to_dict`'s dict, or from a short ``{"text": ..., "tool_calls": [...]}``."""
        from workbench.types import make_tool_use

        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        usage = known.pop("usage", None) or {}
        calls: list[ToolUse] = [
            cast(ToolUse, c)
            if isinstance(c, dict) and "toolUseId" in c
            else make_tool_use(c["name"], c.get("input", c.get("arguments", {})), c.get("id"))
            for c in known.pop("tool_calls", None) or []
        ]
        turn = cls(**known, tool_calls=calls, usage=usage if isinstance(usage, Usage) else Usage(**usage))
        if turn.stop_reason is None:
            turn.stop_reason = "tool_use" if calls else "end_turn"
        return turn


def without_surrogates(turn: ModelTurn) -> ModelTurn:
    """``turn`` (changed in place) holding valid Unicode only: the lone UTF-16 surrogates a model may
    send (``"\\ud800"`` is valid JSON) in its text, calls, request or response replaced by U+FFFD
    (see :mod:`workbench._unicode`)."""
    from workbench._unicode import replace_surrogates

    for name in ("text", "tool_calls", "stop_reason", "request", "response", "model"):
        value = getattr(turn, name)
        if value is not None:
            setattr(turn, name, replace_surrogates(value))
    return turn


#: the kinds of provider failure a :class:`ModelError` names
ERROR_KINDS = (
    "authentication",
    "permission",
    "not_found",
    "rate_limit",
    "context_length",
    "bad_request",
    "timeout",
    "connection",
    "server",
    "refusal",
    "bad_response",
    "replay_mismatch",
    "script_exhausted",
    "unknown",
)


class ModelError(RuntimeError):
    """A model call that failed, in words a user can act on.

    ``kind`` is one of :data:`ERROR_KINDS`; ``provider`` and ``model`` name who failed; ``turn`` is
    the failed turn as far as it got (its masked ``request``, and ``latency_ms``), so nothing is lost;
    ``retry_after`` is the provider's hint in seconds for a rate limit. The message never holds a key.
    """

    def __init__(
        self,
        message: str,
        *,
        kind: str = "unknown",
        provider: str = "",
        model: str = "",
        status_code: Optional[int] = None,
        retry_after: Optional[float] = None,
        turn: Optional[ModelTurn] = None,
    ):
        super().__init__(message)
        self.kind = kind if kind in ERROR_KINDS else "unknown"
        self.provider = provider
        self.model = model
        self.status_code = status_code
        self.retry_after = retry_after
        self.turn = turn
