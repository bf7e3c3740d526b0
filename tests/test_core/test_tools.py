"""Tool objects: @tool forms, direct calls, BaseTool class forms and their errors."""

from __future__ import annotations

import asyncio
import pickle

import pytest

from tests import sample_tools
from workbench import BaseTool, DecoratedFunctionTool, SequentialExecutor, ToolRegistry, ToolSpec, tool


def test_decorator_with_and_without_parentheses_keeps_function_callable():
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    bare = tool(add)
    called = tool()(add)
    for t in (bare, called):
        assert isinstance(t, DecoratedFunctionTool) and isinstance(t, BaseTool)
        assert t(1, 2) == 3 and t(a=1, b=2) == 3
        assert t.__name__ == "add" and t.__doc__ == "Add." and t.__wrapped__ is add


def test_async_tool_direct_call_returns_coroutine():
    @tool
    async def f(x: int) -> int:
        """F."""
        return x + 1

    coro = f(1)
    assert asyncio.iscoroutine(coro)
    assert asyncio.run(coro) == 2
    assert f.supports_async and asyncio.run(f.acall(x=2)) == 3


def test_async_execution_override_and_flags():
    @tool(async_execution=True, long_running=True)
    def f() -> str:
        """F."""
        return "x"

    assert f.supports_async and f.is_long_running
    props = f.get_display_properties()
    assert props["Name"] == "f" and props["Async"] == "True" and props["Long running"] == "True"


def test_marks():
    @tool
    def f():
        """F."""

    assert not f.is_dynamic and not f.is_long_running
    f.mark_dynamic()
    f.mark_long_running()
    f.mark_supports_async()
    assert f.is_dynamic and f.is_long_running and f.supports_async and f.spec.long_running


def test_method_tools_bind_self():
    class Service:
        factor = 3

        @tool
        def scale(self, x: int) -> int:
            """Scale."""
            return self.factor * x

    assert Service().scale(2) == 6
    assert list(Service.scale.spec.parameters["properties"]) == ["x"]


def test_incomplete_class_is_a_type_error():
    class Nothing(BaseTool):
        pass

    with pytest.raises(TypeError, match="Nothing is not a complete tool"):
        Nothing()


def test_module_level_tools_pickle_by_reference():
    again = pickle.loads(pickle.dumps(sample_tools.calculate))
    assert again is sample_tools.calculate


def test_async_class_tool_runs_on_the_loop():
    class Fetch(BaseTool):
        name = "fetch"
        description = "Fetch."
        parameters = []

        async def execute(self, **kwargs):
            await asyncio.sleep(0)
            return {"ok": True}

    t = Fetch()
    assert t.supports_async
    assert SequentialExecutor().call(ToolRegistry([t]), "fetch", {}).json == {"ok": True}


def test_tool_reprs_are_readable_and_escaped():
    @tool(description="<b>bold</b>")
    def f(x: int) -> int:
        return x

    assert (
        repr(f) == "<tool 'f'(x: int) -> int>\n  <b>bold</b>\n  x: integer, required"
    )  # plain text: nothing to escape
    assert "&lt;b&gt;" in f._repr_html_() and "<b>bold" not in f._repr_html_()


def test_tool_spec_for_spec_only_tools():
    registry = ToolRegistry()
    registry.register_spec(ToolSpec(name="x", description="d"))
    with pytest.raises(RuntimeError, match="has no implementation"):
        registry.get_tool("x")()
