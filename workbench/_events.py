"""Events an executor emits while calls run (start, progress, log, end)."""

from __future__ import annotations

from typing import Any, Callable, Literal, Optional

from workbench.types import ToolResult, ToolUse

__all__ = ["ToolEvent", "EventListener"]

EventKind = Literal["start", "progress", "log", "end"]


class ToolEvent:
    """One thing that happened to one call. ``result`` is an ``in_progress`` ToolResult for
    start/progress/log events (built on first access — events are cheap) and the final
    result for ``end``."""

    __slots__ = ("kind", "tool_use", "index", "progress", "message", "_result", "started_at")

    def __init__(
        self,
        kind: EventKind,
        tool_use: ToolUse,
        index: int,
        progress: Optional[float] = None,
        message: Optional[str] = None,
        result: Optional[ToolResult] = None,
        started_at: Optional[str] = None,
    ) -> None:
        self.kind = kind
        self.tool_use = tool_use
        self.index = index
        self.progress = progress
        self.message = message
        self._result = result
        self.started_at = started_at

    @property
    def tool_name(self) -> str:
        return self.tool_use.get("name", "")

    @property
    def tool_use_id(self) -> str:
        return self.tool_use["toolUseId"]

    @property
    def result(self) -> ToolResult:
        if self._result is None:
            metadata: dict[str, Any] = {"tool_name": self.tool_name}
            if self.message is not None:
                metadata["message"] = self.message
            self._result = ToolResult._fast(
                self.tool_use_id, "in_progress", [], metadata, self.started_at, None, self.progress, None
            )
        return self._result

    def __repr__(self) -> str:
        extra = f", progress={self.progress:.2f}" if self.progress is not None else ""
        return f"ToolEvent({self.kind!r}, {self.tool_name!r}, {self.tool_use_id!r}{extra})"


EventListener = Callable[[ToolEvent], None]
