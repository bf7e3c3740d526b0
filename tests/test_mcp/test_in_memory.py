"""MCP server objects in this process, connected in memory: connect(server=...), from_mcp_server,
ToolRegistry([server])."""

from __future__ import annotations

import anyio
import pytest
from mcp import types
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from tests.form_catalogue import wb  # noqa: F401 - fixture
from workbench import SequentialExecutor, ToolRegistry, tool
from workbench.adapters import from_mcp_server
from workbench.mcp import McpProxyTool, build_server, connect

WAIT = 30


def _weather() -> MCPServer:
    server = MCPServer("weather")

    @server.tool()
    def forecast(city: str, days: int = 1) -> str:
        """The forecast for a city."""
        return f"{city}: sunny for {days} day(s)"

    @server.tool()
    def fail(reason: str) -> str:
        """Always fails."""
        raise ToolError(f"refused: {reason}")

    return server


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def test_connect_server_runs_an_mcp_server_object_in_memory():
    registry = ToolRegistry()
    with connect(server=_weather(), registry=registry, prefix="w_", connect_timeout=WAIT) as connection:
        assert connection.label == "in-process server 'weather'"
        assert sorted(registry.list_tools()) == ["w_fail", "w_forecast"]
        proxy = registry.get_tool("w_forecast")
        assert isinstance(proxy, McpProxyTool)
        assert proxy.spec.parameters["required"] == ["city"]
        assert registry.call("w_forecast", {"city": "Oslo", "days": 2}).value == "Oslo: sunny for 2 day(s)"
        failed = registry.call("w_fail", {"reason": "no"})
        assert failed.status == "error" and "refused: no" in str(failed.content)
    assert registry.list_tools() == []  # disconnect unregisters the proxies


def test_the_workbench_server_and_a_low_level_server_connect_in_memory():
    served = build_server(ToolRegistry([add]))
    connection = from_mcp_server(served, registry=(registry := ToolRegistry()), connect_timeout=WAIT)
    try:
        assert registry.call("add", {"a": 2, "b": 3}).value == 5
        assert connection.server_info.name == "workbench"
    finally:
        connection.disconnect()


def test_reconnect_opens_a_new_in_memory_session():
    registry = ToolRegistry()
    connection = connect(server=_weather(), registry=registry, connect_timeout=WAIT)
    fresh = connection.reconnect()
    try:
        assert not connection.connected and fresh.connected
        assert registry.call("forecast", {"city": "Rome"}).value == "Rome: sunny for 1 day(s)"
    finally:
        fresh.disconnect()


def test_the_registry_takes_a_server_object():
    registry = ToolRegistry([_weather(), add])
    assert registry.list_tools() == ["forecast", "fail", "add"]
    assert registry.call("forecast", {"city": "Lima"}).value == "Lima: sunny for 1 day(s)"


@pytest.mark.parametrize(
    "arguments",
    [
        dict(command=["python"]),
        dict(url="http://127.0.0.1:1/mcp"),
        dict(token="t"),
        dict(headers={"X": "1"}),
        dict(env={"A": "1"}),
        dict(transport="sse"),
    ],
)
def test_process_and_url_arguments_are_refused_in_memory(arguments):
    name = next(iter(arguments))
    with pytest.raises(ValueError, match=f"connect\\(server=...\\) connects in memory; {name}="):
        connect(server=_weather(), registry=ToolRegistry(), **arguments)


def test_a_non_server_is_refused_naming_what_is_accepted():
    with pytest.raises(TypeError, match="MCPServer.*not builtins.object"):
        connect(server=object(), registry=ToolRegistry())
    from mcp.server.lowlevel import NotificationOptions

    with pytest.raises(TypeError, match="an object of the MCP SDK but not a server"):
        ToolRegistry([NotificationOptions()])


# -- forms, map and the project's MCP server on an in-process MCP tool ---------------------------------
def test_in_memory_mcp_tool_in_a_form(wb):  # noqa: F811 - the fixture
    from workbench.jupyter import ToolForm

    with connect(server=_weather(), registry=wb.registry, connect_timeout=WAIT):
        form = ToolForm(wb.registry.get_tool("forecast"), wb)
        form.set_values({"city": "Kyiv", "days": 3})
        result = form.run()
    assert result.status == "success", result.content
    assert result.value == "Kyiv: sunny for 3 day(s)"
    assert wb.log.rows()[-1]["tool_name"] == "forecast"


def test_in_memory_mcp_tool_in_map():
    registry = ToolRegistry()
    with connect(server=_weather(), registry=registry, connect_timeout=WAIT):
        frame = SequentialExecutor().map(
            registry.get_tool("forecast"), [{"city": "A"}, {"city": "B", "days": 2}], progress=False
        )
    assert list(frame["status"]) == ["success", "success"]
    assert list(frame["value"]) == ["A: sunny for 1 day(s)", "B: sunny for 2 day(s)"]


def test_in_memory_mcp_tools_served_again_by_the_workbench_server():
    from mcp.client import Client

    registry = ToolRegistry([_weather()])
    server = build_server(registry)

    async def main():
        with anyio.fail_after(WAIT):
            async with Client(server) as client:
                names = sorted(t.name for t in (await client.list_tools()).tools)
                return names, await client.call_tool("forecast", {"city": "Quito"})

    names, called = anyio.run(main)
    assert names == ["fail", "forecast"]
    assert not called.is_error and called.content[0].text == "Quito: sunny for 1 day(s)"


def test_a_server_request_behaves_in_memory_as_over_stdio():
    """Elicitation from an SDK 2.3 MCPServer tool: whatever stdio gives (at protocol 2026-07-28 the
    SDK has no back-channel for it), in memory gives the same."""
    import sys
    from pathlib import Path

    from tests import mcp_asker_server

    def elicitation(params):
        return {"name": "Ada"}

    results = []
    script = str(Path(mcp_asker_server.__file__))
    for how in (dict(command=[sys.executable, script]), dict(server=mcp_asker_server.server)):
        registry = ToolRegistry()
        with connect(registry=registry, elicitation=elicitation, connect_timeout=WAIT, **how) as connection:
            results.append((connection.protocol_version, registry.call("greet", {}).content))
    assert results[0] == results[1]


def test_a_module_scan_takes_neither_servers_nor_tool_dicts():
    import types

    module = types.ModuleType("scanned_tools")
    module.add = add
    module.server = _weather()
    module.OPENAI_TOOL = {
        "type": "function",
        "function": {"name": "f", "description": "", "parameters": {"type": "object", "properties": {}}},
    }
    assert ToolRegistry([module]).list_tools() == ["add"]
    assert ToolRegistry([module.server, module.OPENAI_TOOL]).list_tools() == ["forecast", "fail", "f"]


def test_connect_without_a_target_names_server_too():
    with pytest.raises(
        ValueError, match=r"command=\[...\] \(stdio\), url=.* or server=<an MCP server object> \(in memory\)"
    ):
        connect(registry=ToolRegistry())


# -- connect(server_object) given positionally (issue 26, item 19) ------------------------------------------


@pytest.mark.parametrize("make", [_weather, lambda: build_server(ToolRegistry([add]))], ids=["MCPServer", "Server"])
def test_connect_takes_a_server_object_positionally(make):
    registry = ToolRegistry()
    with connect(make(), registry=registry, connect_timeout=WAIT) as connection:
        assert connection.label.startswith("in-process server")
        assert registry.list_tools()
        again = connection.reconnect(connect_timeout=WAIT)
        try:
            assert again.label == connection.label and registry.list_tools()
        finally:
            again.disconnect()


def test_connect_refuses_something_that_is_no_command_plainly():
    with pytest.raises(ValueError, match="server object given both as the first argument and as server="):
        connect(_weather(), server=_weather(), registry=ToolRegistry())
    with pytest.raises(TypeError, match=r"connect\(\) takes a command line .* not builtins.object"):
        connect(object(), registry=ToolRegistry())
    with pytest.raises(TypeError, match=r"connect\(\) takes a command line .* not builtins.int"):
        connect(3, registry=ToolRegistry())


# -- a proxy's result value is the server's structured content (issue 26, item 18, the MCP half) ------------


def _pictures() -> MCPServer:
    server = MCPServer("pictures")
    image = types.ImageContent(type="image", data="iVBORw0KGgo=", mime_type="image/png")

    @server.tool()
    def chart(title: str) -> types.CallToolResult:
        """A chart: its data as structured content, next to the picture (no output schema)."""
        return types.CallToolResult(
            content=[image, types.TextContent(type="text", text=title)],
            structured_content={"title": title, "points": [1, 2, 3]},
        )

    @server.tool()
    def picture_and_caption(caption: str) -> types.CallToolResult:
        """An image and a caption, no structured content."""
        return types.CallToolResult(content=[image, types.TextContent(type="text", text=caption)])

    return server


def test_a_proxy_result_value_is_the_structured_content_not_a_nested_result():
    registry = ToolRegistry()
    for executor in (SequentialExecutor(), None):
        with connect(server=_pictures(), registry=registry, connect_timeout=WAIT):
            run = (
                registry.call
                if executor is None
                else (lambda name, args: executor.run([{"toolUseId": "u", "name": name, "input": args}], registry)[0])  # noqa: B023 - used in this iteration
            )
            result = run("chart", {"title": "sales"})
            assert result.ok and result.value == {"title": "sales", "points": [1, 2, 3]} == result.json
            assert result.tool_use_id != "?" and [list(block) for block in result.content] == [
                ["image"],
                ["text"],
                ["json"],
            ]
            mixed = run("picture_and_caption", {"caption": "a cat"})
            assert mixed.ok and mixed.value is None and mixed.json is None
            assert [list(block) for block in mixed.content] == [["image"], ["text"]]
