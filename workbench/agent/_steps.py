"""The steps of an agent run: a model turn (:class:`ModelStep`) or a tool call and its result (:class:`ToolStep`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Optional, Union

from workbench.models import ModelTurn, Usage
from workbench.types import ToolResult, ToolUse

__all__ = ["ModelStep", "ToolStep", "Step", "step_from_dict", "turn_from_dict"]

_TURN_FIELDS = frozenset(ModelTurn.__dataclass_fields__)


def turn_from_dict(data: dict[str, Any]) -> ModelTurn:
    """A kept turn as it was: ``ModelTurn.from_dict`` of its fields, its ``stop_reason`` as stored
    (a failed turn has none; ``from_dict`` would infer one)."""
    turn = ModelTurn.from_dict({k: v for k, v in data.items() if k in _TURN_FIELDS})
    turn.stop_reason = data.get("stop_reason")
    return turn


@dataclass
class ModelStep:
    """One model turn of a run: ``turn`` (the :class:`~workbench.models.ModelTurn`) is the
    ``index``-th (from 0). A failed turn has ``error`` (the ``ModelError`` message) and
    ``error_kind``; its ``turn`` holds what the model got as far as the failure (the masked request)."""

    turn: ModelTurn
    index: int
    error: Optional[str] = None
    error_kind: Optional[str] = None
    started_at: Optional[str] = None
    kind: ClassVar[str] = "model"

    @property
    def latency_ms(self) -> float:
        return self.turn.latency_ms

    @property
    def usage(self) -> Usage:
        return self.turn.usage

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "model",
            "index": self.index,
            "turn": self.turn.to_dict(),
            "error": self.error,
            "error_kind": self.error_kind,
            "started_at": self.started_at,
        }


@dataclass
class ToolStep:
    """One tool call of a run and its result. ``tool_use`` is the call that ran (or was denied);
    ``original`` is the model's own call when a review edited it (``None`` otherwise);
    ``turn_index`` is the model turn that made the call."""

    tool_use: ToolUse
    result: ToolResult
    turn_index: int
    original: Optional[ToolUse] = None
    kind: ClassVar[str] = "tool"

    @property
    def name(self) -> str:
        return str(self.tool_use.get("name") or "")

    @property
    def ok(self) -> bool:
        return self.result.status == "success"

    @property
    def edited(self) -> bool:
        """Whether a review changed the model's call before it ran."""
        return self.original is not None

    @property
    def latency_ms(self) -> Optional[float]:
        value = self.result.metadata.get("latency_ms")
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "tool",
            "turn_index": self.turn_index,
            "tool_use": dict(self.tool_use),
            "result": self.result.to_dict(),
            "original": None if self.original is None else dict(self.original),
        }


Step = Union[ModelStep, ToolStep]


def step_from_dict(data: dict[str, Any]) -> Step:
    """A step from its :meth:`to_dict` form."""
    if data.get("kind") == "model":
        return ModelStep(
            turn_from_dict(data["turn"]),
            int(data["index"]),
            data.get("error"),
            data.get("error_kind"),
            data.get("started_at"),
        )
    if data.get("kind") == "tool":
        return ToolStep(
            data["tool_use"], ToolResult.model_validate(data["result"]), int(data["turn_index"]), data.get("original")
        )
    raise ValueError(f"a transcript step has kind 'model' or 'tool', got {data.get('kind')!r}")
