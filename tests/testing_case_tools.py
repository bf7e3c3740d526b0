"""Tools used by the workbench.testing tests (importable by module name from case files)."""

from __future__ import annotations

import datetime as dt

from workbench import ToolContext, tool


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
def divide(a: int, b: int) -> float:
    """Divide a by b."""
    return a / b


@tool
def profile(name: str, age: int = 30) -> dict:
    """A profile with a volatile timestamp."""
    return {"name": name, "age": age, "created": dt.datetime.now().isoformat(), "tags": ["new", name.lower()]}


@tool(context=True)
def visits(page: str, tool_context: ToolContext) -> int:
    """Count visits of a page in the invocation state (a fresh context sees 1)."""
    state = tool_context.invocation_state
    state[page] = state.get(page, 0) + 1
    return state[page]


@tool(permission="ask")
def guarded(x: int) -> int:
    """A tool that asks before running."""
    return x * 2
