"""Regression tests for the core defects reported in issue #12 (MCP proxies show them to every client)."""

from __future__ import annotations

import asyncio

import pytest

from workbench import SequentialExecutor, tool
from workbench.executor import run_sync


@tool
async def failing_async(x: int) -> int:
    """Fail on purpose."""
    raise ValueError("bad x")


def test_a_failing_async_tool_traceback_has_no_unrelated_event_loop_error():
    result = SequentialExecutor().run([{"toolUseId": "1", "name": "failing_async", "input": {"x": 1}}],
                                      [failing_async])[0]
    assert result.status == "error"
    trace = result.metadata["traceback"]
    assert "ValueError: bad x" in trace
    assert "no running event loop" not in trace
    assert "During handling of the above exception" not in trace


def test_run_sync_raises_without_a_chained_runtime_error():
    with pytest.raises(ValueError) as info:
        run_sync(failing_async.acall(x=1))
    assert info.value.__context__ is None


def test_run_sync_inside_a_running_loop_keeps_the_exception_clean():
    async def main():
        with pytest.raises(ValueError) as info:
            run_sync(failing_async.acall(x=1))
        return info.value

    error = asyncio.run(main())
    assert error.__context__ is None
