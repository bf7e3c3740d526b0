"""A transcript's fields rebuilt from the plain dicts ``ExecutionLog.run`` gives (the log stores no objects)."""

from __future__ import annotations

from typing import Any, Optional, cast

from workbench.agent._steps import ModelStep, ToolStep, turn_from_dict
from workbench.models import ModelTurn
from workbench.types import ToolResult, ToolUse


def transcript_fields(record: dict[str, Any]) -> dict[str, Any]:
    """The ``Transcript`` fields of one logged run: its prompt, each model turn followed by the
    results of its calls (in the order the model made them), and how it ended."""
    prompt = list(record.get("prompt") or [])
    messages = [dict(m) for m in prompt]
    steps: list = []
    calls_by_turn: dict[int, list[dict]] = {}
    for row in record.get("calls") or []:
        calls_by_turn.setdefault(row.get("turn") or 0, []).append(row)
    for data in record.get("turns") or []:
        turn = turn_from_dict(data)
        index = int(data.get("turn") or 0)
        steps.append(ModelStep(turn, index, data.get("error"), data.get("error_kind"), data.get("started_at")))
        if data.get("error") is not None:
            break
        messages.append({"role": "assistant", "content": turn.text, "tool_calls": [dict(c) for c in turn.tool_calls]})
        rows = calls_by_turn.get(index, [])
        if not turn.tool_calls and not rows:
            continue
        tool_steps = [_tool_step(row, turn, index) for row in _in_call_order(rows, turn)]
        steps.extend(tool_steps)
        messages.append({"role": "tool", "results": [s.result.to_dict() for s in tool_steps]})
    return {
        "run_id": record["run_id"],
        "model": record.get("model") or "",
        "messages": messages,
        "steps": steps,
        "stopped_because": record.get("stopped_because"),
        "error": record.get("error"),
        "duration_ms": float(record.get("duration_ms") or 0.0),
        "started_at": record.get("started_at"),
        "prompt": prompt,
        "tools": list(record.get("tools") or []),
        "settings": dict(record.get("settings") or {}),
    }


def _in_call_order(rows: list[dict], turn: ModelTurn) -> list[dict]:
    """The rows of a turn in the order of the model's calls (the executor logs them as they finish)."""
    order: dict[Any, int] = {call.get("toolUseId"): i for i, call in enumerate(turn.tool_calls)}
    return sorted(rows, key=lambda row: (order.get(row.get("tool_use_id"), len(order)), row.get("id") or 0))


def _tool_step(row: dict, turn: ModelTurn, index: int) -> ToolStep:
    tool_use: ToolUse = {
        "toolUseId": row.get("tool_use_id") or "",
        "name": row.get("tool_name") or "",
        "input": {} if row.get("input") is None else row["input"],
    }
    result = ToolResult(
        toolUseId=tool_use["toolUseId"],
        status=row.get("status") or "error",
        content=found if isinstance(found := row.get("output"), list) else [],
        metadata=found if isinstance(found := row.get("metadata"), dict) else {},
        started_at=row.get("started_at"),
        completed_at=row.get("completed_at"),
    )
    original: Optional[ToolUse] = next(
        (cast(ToolUse, dict(c)) for c in turn.tool_calls if c.get("toolUseId") == tool_use["toolUseId"]), None
    )
    if original is not None and original.get("name") == tool_use["name"] and original.get("input") == tool_use["input"]:
        original = None
    return ToolStep(tool_use, result, index, original)
