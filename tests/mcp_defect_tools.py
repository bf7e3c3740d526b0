"""Tools served over MCP by tests/test_mcp/test_server_log_rows_and_error_results.py (issue #12's server-side defects)."""

from __future__ import annotations

import asyncio
from enum import Enum
from typing import Optional

from workbench import ToolContext, tool


class Color(Enum):
    red = "red"
    green = "green"
    blue = "blue"


@tool
def paint(color: Color, shade: Optional[Color] = None) -> str:
    """Paint with one of three colours."""
    return color.value if shade is None else f"{color.value}/{shade.value}"


@tool
def not_an_int() -> int:
    """Declares an int, returns a string (a broken tool)."""
    return "not an int"  # type: ignore[return-value]


@tool
def an_int() -> int:
    """Returns what it declares."""
    return 7


@tool(context=True)
async def slow_progress(seconds: float, tool_context: ToolContext) -> str:
    """Reports progress for ``seconds`` seconds, then answers."""
    steps = max(1, int(seconds / 0.05))
    for i in range(steps):
        tool_context.report_progress((i + 1) / steps, f"step {i + 1}")
        await asyncio.sleep(0.05)
    return "done"
