"""Regression tests for the core defects reported in issue #12 (MCP proxies show them to every client)."""

from __future__ import annotations

import asyncio
from enum import Enum
from typing import Literal, Optional

import pytest
from pydantic import BaseModel

from workbench import SequentialExecutor, tool
from workbench.executor import run_sync
from workbench.spec import ToolSpec


@tool
async def failing_async(x: int) -> int:
    """Fail on purpose."""
    raise ValueError("bad x")


def test_a_failing_async_tool_traceback_has_no_unrelated_event_loop_error():
    result = SequentialExecutor().run(
        [{"toolUseId": "1", "name": "failing_async", "input": {"x": 1}}], [failing_async]
    )[0]
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


class Color(Enum):
    red = "red"
    green = "green"
    blue = "blue"


class Box(BaseModel):
    color: Optional[Color] = None
    kind: Literal["a", "b"] = "a"


@tool
def paint(color: Color, shade: Optional[Color] = None, box: Optional[Box] = None) -> str:
    """Paint."""
    return color.value


ALLOWED = 'one of "red", "green", "blue"'


@pytest.mark.parametrize(
    "arguments, expected",
    [
        ({"color": "purple"}, f"color: expected {ALLOWED}, received 'purple'"),
        ({"color": "red", "shade": "purple"}, f"shade: expected {ALLOWED} or null, received 'purple'"),
        ({"color": "red", "box": {"color": "purple"}}, f"box.color: expected {ALLOWED} or null, received 'purple'"),
        ({"color": "red", "box": {"kind": "c"}}, 'box.kind: expected one of "a", "b", received \'c\''),
    ],
    ids=["enum", "optional-enum", "nested-optional-enum", "nested-literal"],
)
@pytest.mark.parametrize("engine", ["function", "schema"])
def test_enum_parameters_behind_a_ref_name_their_allowed_values(arguments, expected, engine):
    spec = (
        paint.spec
        if engine == "function"
        else ToolSpec(name="paint", description="d", parameters=paint.spec.parameters)
    )
    assert "$ref" in str(spec.parameters)
    with pytest.raises(Exception) as info:
        spec.check_inputs(arguments)
    assert expected in str(info.value)
