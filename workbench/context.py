"""``ToolContext``: what a running tool can see and report (its ``context`` parameter, hidden from the schema)."""

from __future__ import annotations

import math
import threading
from typing import Any, Callable, Optional

from workbench.types import ToolUse

__all__ = ["ToolContext"]

ProgressCallback = Callable[[float, Optional[str]], None]


class ToolContext:
    """Framework-provided data for one tool call.

    Declare a parameter annotated ``ToolContext`` (or use ``@tool(context=True)``)
    and the executor passes one in; it never appears in the tool's schema.
    """

    __slots__ = ("tool_use", "invocation_state", "metadata", "tool_config", "logs", "_on_progress", "_on_log", "_cancel_event")

    def __init__(
        self,
        tool_use: ToolUse,
        invocation_state: Optional[dict[str, Any]] = None,
        *,
        metadata: Optional[dict[str, Any]] = None,
        tool_config: Optional[dict[str, Any]] = None,
        on_progress: Optional[ProgressCallback] = None,
        on_log: Optional[Callable[[str], None]] = None,
        cancel_event: Optional[threading.Event] = None,
    ) -> None:
        self.tool_use = tool_use
        self.invocation_state = {} if invocation_state is None else invocation_state
        self.metadata = {} if metadata is None else metadata
        self.tool_config = {} if tool_config is None else tool_config
        self.logs: list[str] = []
        self._on_progress = on_progress
        self._on_log = on_log
        self._cancel_event = cancel_event

    # -- reporting ---------------------------------------------------------------------
    def report_progress(self, progress: float, message: Optional[str] = None) -> None:
        """Report progress between 0 and 1 (clamped); listeners get an ``in_progress`` result."""
        try:
            value = float(progress)
        except (TypeError, ValueError):
            raise ValueError(f"report_progress expects a number between 0 and 1, got {progress!r}") from None
        if math.isnan(value):
            raise ValueError("report_progress expects a number between 0 and 1, got NaN")
        value = 0.0 if value < 0.0 else 1.0 if value > 1.0 else value
        if self._on_progress is not None:
            self._on_progress(value, message)

    def log(self, message: str) -> None:
        """Record a log line for this call (kept in ``logs`` and forwarded to listeners)."""
        text = str(message)
        self.logs.append(text)
        if self._on_log is not None:
            self._on_log(text)

    @property
    def cancelled(self) -> bool:
        """True once the call has been cancelled or timed out; long-running sync tools should poll it."""
        return self._cancel_event is not None and self._cancel_event.is_set()

    # -- metadata (locus names) ------------------------------------------------------------
    @property
    def invocation_metadata(self) -> dict[str, Any]:
        return self.metadata

    def get_metadata(self, key: str, default: Any = None) -> Any:
        """A value from ``metadata``."""
        return self.metadata.get(key, default)

    def get_config(self, key: str, default: Any = None) -> Any:
        """A value from ``tool_config``."""
        return self.tool_config.get(key, default)

    @property
    def tool_use_id(self) -> str:
        return self.tool_use["toolUseId"]

    def __repr__(self) -> str:
        return f"ToolContext(tool_use={self.tool_use!r})"
