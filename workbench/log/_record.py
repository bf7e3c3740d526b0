"""A finished call as the parameters of its ``calls`` row: validation and the derived columns."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from workbench.log._rows import _dumps, _latency
from workbench.types import ToolResult, ToolUse, utc_now_iso

__all__ = ["call_params"]


def call_params(
    result: ToolResult | Mapping[str, Any],
    tool_use: Optional[ToolUse | Mapping[str, Any]],
    input: Optional[dict[str, Any]],
    run_id: Optional[str] = None,
    turn: Optional[int] = None,
) -> tuple[Any, ...]:
    """The INSERT parameters (``LOG_COLUMNS[1:]`` order) for one result; validates it."""
    if not isinstance(result, ToolResult):
        if isinstance(result, Mapping):
            result = ToolResult.model_validate(result)
        else:
            raise TypeError(f"ExecutionLog.append expects a ToolResult, got {type(result).__name__}")
    status = result.status
    if status == "in_progress":
        raise ValueError(
            "ExecutionLog only records final results: got an in_progress ToolResult "
            f"(toolUseId={result.tool_use_id!r}); append it once the call has ended"
        )
    metadata = result.metadata
    tool_name = metadata.get("tool_name")
    if tool_use is not None:
        if tool_name is None:
            tool_name = tool_use.get("name")
        if input is None:
            input = tool_use.get("input")
    if status == "error":
        error = metadata.get("error")
        if error is None:
            error = result.text or None
        elif not isinstance(error, str):
            error = str(error)
        error_type = metadata.get("error_type")
        if error_type is not None and not isinstance(error_type, str):
            error_type = str(error_type)
    else:
        error = error_type = None
    started_at = result.started_at
    completed_at = result.completed_at or utc_now_iso()
    latency = metadata.get("latency_ms")
    if type(latency) is not float:
        latency = _latency(latency, started_at, completed_at)
    return (
        None if tool_name is None else str(tool_name),
        result.tool_use_id,
        None if input is None else _dumps(input),
        _dumps(result.content),
        status,
        error,
        error_type,
        started_at,
        completed_at,
        latency,
        _dumps(metadata),
        run_id,
        turn,
    )
