"""A tool's permission holds at every entry point that looks like a tool call (issue 14).

``invoke``, ``execute`` and ``acall`` refuse an ``always_deny`` tool, and an ``ask_user`` one (a direct
call has nobody to ask: executors with an approver do), for every tool form: ``@tool`` functions (sync
and async), Allos classes, neurosurfer classes, Spark classes, spec-only tools and MCP proxies (a real
server subprocess). Calling the tool itself (``tool(...)``) stays the bare function, and
executors still apply the permission with their approver.
"""

from __future__ import annotations

import asyncio
import inspect
import sys
from pathlib import Path

import pytest

from workbench import (
    BaseTool,
    ConcurrentExecutor,
    Permission,
    SequentialExecutor,
    SpecOnlyTool,
    ToolParam,
    ToolParameter,
    ToolRegistry,
    ToolResponse,
    ToolSpec,
    tool,
)
from workbench.tools import ToolPermissionError

ROOT = Path(__file__).resolve().parents[2]
SERVE = [sys.executable, "-m", "workbench.mcp", "serve", "tests.mcp_sample_tools"]
PERMISSIONS = [Permission.ALWAYS_DENY, Permission.ASK_USER]
ENTRY_POINTS = ["invoke", "execute", "acall"]


# -- one tool of every form, whose body records that it ran --------------------------------------------
def function_tool(permission, ran):
    @tool(name="fn_tool", permission=permission)
    def fn_tool(x: int) -> int:
        """Doubles x."""
        ran.append(x)
        return x * 2

    return fn_tool


def async_function_tool(permission, ran):
    @tool(name="async_fn_tool", permission=permission)
    async def async_fn_tool(x: int) -> int:
        """Doubles x, asynchronously."""
        await asyncio.sleep(0)
        ran.append(x)
        return x * 2

    return async_fn_tool


def allos_tool(permission, ran):
    class AllosTool(BaseTool):
        name = "allos_tool"
        description = "Doubles x (Allos form)."
        parameters = [ToolParameter("x", "integer", "a number")]

        def execute(self, **kwargs):
            ran.append(kwargs["x"])
            return {"doubled": kwargs["x"] * 2}

    AllosTool.permission = permission
    return AllosTool()


def neurosurfer_tool(permission, ran):
    class NeuroTool(BaseTool):
        spec = ToolSpec(
            name="neuro_tool",
            description="Doubles x (neurosurfer form).",
            inputs=[ToolParam("x", "integer", "a number")],
            permission=permission,
        )

        def __call__(self, x):
            ran.append(x)
            return ToolResponse(observation=x * 2)

    return NeuroTool()


def spark_tool(permission, ran):
    class SparkTool(BaseTool):
        @property
        def tool_spec(self):
            return {
                "name": "spark_tool",
                "description": "Doubles x (Spark form).",
                "permission": permission.value,
                "inputSchema": {
                    "json": {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}
                },
            }

        def __call__(self, x):
            ran.append(x)
            return x * 2

    return SparkTool()


def spec_only_tool(permission, ran):
    return SpecOnlyTool(
        ToolSpec(
            name="spec_tool",
            description="Known by its spec only.",
            permission=permission,
            parameters={"type": "object", "properties": {"x": {"type": "integer"}}},
        )
    )


FORMS = {
    "function": function_tool,
    "async function": async_function_tool,
    "Allos": allos_tool,
    "neurosurfer": neurosurfer_tool,
    "Spark": spark_tool,
    "spec-only": spec_only_tool,
}
HAS_EXECUTE = {"function", "async function", "Allos"}  # the others inherit BaseTool.execute (not implemented)


def call_entry_point(item, entry_point, x=3):
    """Call ``item`` through one entry point, from sync code; returns the value."""
    if entry_point == "invoke":
        value = item.invoke({"x": x})
    elif entry_point == "execute":
        value = item.execute(x=x)
    else:
        value = item.acall(x=x)
    if inspect.isawaitable(value):
        value = asyncio.run(_await(value))
    return value


async def _await(awaitable):
    return await awaitable


# -- the tests ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("permission", PERMISSIONS, ids=lambda p: p.value)
@pytest.mark.parametrize("entry_point", ENTRY_POINTS)
@pytest.mark.parametrize("form", list(FORMS))
def test_every_entry_point_of_every_form_refuses_a_tool_that_may_not_run(form, entry_point, permission):
    ran: list = []
    item = FORMS[form](permission, ran)
    with pytest.raises(ToolPermissionError) as raised:
        call_entry_point(item, entry_point)
    assert ran == []  # the body never ran
    error = raised.value
    assert isinstance(error, PermissionError)
    assert error.tool_name == item.tool_name and error.permission is permission
    assert f"Tool '{item.tool_name}'" in str(error) and permission.value in str(error)
    if permission is Permission.ASK_USER:
        assert "executor with an approver" in str(error)


@pytest.mark.parametrize("entry_point", ENTRY_POINTS)
@pytest.mark.parametrize("form", [f for f in FORMS if f != "spec-only"])
def test_every_entry_point_still_runs_an_allowed_tool(form, entry_point):
    ran: list = []
    item = FORMS[form](Permission.ALWAYS_ALLOW, ran)
    if entry_point == "execute" and form not in HAS_EXECUTE:
        with pytest.raises(NotImplementedError):
            call_entry_point(item, entry_point)
        return
    value = call_entry_point(item, entry_point)
    assert ran == [3]
    assert value in (6, {"doubled": 6}, ToolResponse(observation=6))


@pytest.mark.parametrize("form", [f for f in FORMS if f != "spec-only"])
def test_calling_the_tool_itself_stays_the_bare_function(form):
    ran: list = []
    item = FORMS[form](Permission.ALWAYS_DENY, ran)
    value = item(x=4)
    if inspect.isawaitable(value):
        value = asyncio.run(_await(value))
    assert ran == [4]


@pytest.mark.parametrize("executor_cls", [SequentialExecutor, ConcurrentExecutor])
@pytest.mark.parametrize("form", [f for f in FORMS if f != "spec-only"])
def test_executors_still_apply_the_permission_with_their_approver(form, executor_cls):
    asked: list = []

    def approver(tool_use, item):
        asked.append(tool_use["input"]["x"])
        return tool_use["input"]["x"] > 0

    ran: list = []
    denied = ToolRegistry([FORMS[form](Permission.ALWAYS_DENY, ran)])
    [result] = executor_cls(approver=approver).run(
        [{"toolUseId": "d", "name": denied.list_tools()[0], "input": {"x": 1}}], denied
    )
    assert (result.status, result.metadata["error_type"]) == ("error", "PermissionDenied") and ran == [] and asked == []

    asking = ToolRegistry([FORMS[form](Permission.ASK_USER, ran)])
    name = asking.list_tools()[0]
    results = executor_cls(approver=approver).run(
        [{"toolUseId": "yes", "name": name, "input": {"x": 5}}, {"toolUseId": "no", "name": name, "input": {"x": -5}}],
        asking,
    )
    assert results[0].status == "success", results[0].error
    assert results[1].metadata["error_type"] == "PermissionDenied"
    assert ran == [5] and sorted(asked) == [-5, 5]


def test_an_invoke_override_is_checked_and_may_call_super():
    ran: list = []

    class Logged(BaseTool):
        spec = ToolSpec(
            name="logged",
            description="Adds one, logging calls.",
            inputs=[ToolParam("x", "integer")],
            permission=Permission.ALWAYS_DENY,
        )

        def __call__(self, x):
            ran.append(x)
            return x + 1

        def invoke(self, arguments, context=None):  # an override in the old style, calling the base
            ran.append("override")
            return super().invoke(arguments, context)

    item = Logged()
    with pytest.raises(ToolPermissionError):
        item.invoke({"x": 1})
    assert ran == []
    item.spec.permission = Permission.ALWAYS_ALLOW
    assert item.invoke({"x": 1}) == 2 and ran == ["override", 1]
    [result] = SequentialExecutor().run([{"toolUseId": "l", "name": "logged", "input": {"x": 2}}], [item])
    assert result.value == 3 and ran == ["override", 1, "override", 2]  # executors run the override too


# -- MCP proxy tools, against a real server subprocess ----------------------------------------------------
@pytest.fixture(scope="module")
def mcp_server(tmp_path_factory):
    """A stdio server subprocess with an execution log: (registry of proxies, server log path)."""
    from workbench.mcp import connect

    log_path = tmp_path_factory.mktemp("perm-mcp") / "server.sqlite"
    registry = ToolRegistry()
    conn = connect(command=[*SERVE, "--log", str(log_path)], registry=registry, cwd=str(ROOT), connect_timeout=30.0)
    try:
        yield registry, log_path
    finally:
        conn.disconnect()


def _server_calls(log_path, tool_name):
    from workbench.log import ExecutionLog

    if not log_path.exists():
        return []
    log = ExecutionLog(str(log_path))
    try:
        return [row["input"] for row in log.rows() if row["tool_name"] == tool_name]
    finally:
        log.close()


@pytest.mark.parametrize("permission", PERMISSIONS, ids=lambda p: p.value)
@pytest.mark.parametrize("entry_point", ["invoke", "acall"])
def test_mcp_proxy_entry_points_refuse_a_tool_that_may_not_run(mcp_server, entry_point, permission):
    registry, log_path = mcp_server
    proxy = registry.get_tool("add")
    assert type(proxy).__name__ == "McpProxyTool"
    marker = {"a": 7000 + PERMISSIONS.index(permission), "b": len(entry_point)}
    proxy.spec.permission = permission
    try:
        with pytest.raises(ToolPermissionError, match="Tool 'add'"):
            value = proxy.invoke(marker) if entry_point == "invoke" else proxy.acall(**marker)
            asyncio.run(_await(value))
        # the refusal is local: an allowed call afterwards reaches the server, the refused one never did
        proxy.spec.permission = Permission.ALWAYS_ALLOW
        assert SequentialExecutor().call(registry, "add", {"a": 1, "b": 2}).value == 3
        calls = _server_calls(log_path, "add")
        assert {"a": 1, "b": 2} in calls and marker not in calls
    finally:
        proxy.spec.permission = Permission.ALWAYS_ALLOW
