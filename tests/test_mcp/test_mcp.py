"""MCP serve/connect on the official SDK, with real server processes.

* a stdio server subprocess (``python -m workbench.mcp serve tests.mcp_sample_tools``) reached
  through ``workbench.mcp.connect`` (proxy tools + executors) and through the SDK's own client;
* a streamable-http server subprocess on 127.0.0.1 (free port);
* in-process ``build_server`` checks for the cheaper details.

Every wait is bounded; every process is stopped in ``finally``.
"""

from __future__ import annotations

import asyncio
import base64
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest

from tests import mcp_sample_tools as sample
from workbench.executor import ConcurrentExecutor, SequentialExecutor
from workbench.registry import ToolRegistry

ROOT = Path(__file__).resolve().parents[2]
SERVE = [sys.executable, "-m", "workbench.mcp", "serve", "tests.mcp_sample_tools"]
WAIT = 30.0  # upper bound of any single wait on a server process


def _local_registry() -> ToolRegistry:
    registry = ToolRegistry()
    registry.process_tools([sample])
    return registry


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - someone else's process reused the id
        return False
    try:  # a zombie child of ours counts as gone
        done, _ = os.waitpid(pid, os.WNOHANG)
        return done == 0
    except ChildProcessError:
        return True


def _wait_gone(pid: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return not _alive(pid)


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _use(name: str, tool_input: dict, use_id: str | None = None) -> dict:
    return {"toolUseId": use_id or f"t-{name}-{time.monotonic_ns()}", "name": name, "input": tool_input}


# -- fixtures ------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def stdio(tmp_path_factory):
    """A stdio server subprocess, connected: (connection, registry, server log path, server pid)."""
    from workbench.mcp import connect

    log_path = tmp_path_factory.mktemp("mcp") / "server-runs.sqlite"
    registry = ToolRegistry()
    conn = connect(command=[*SERVE, "--log", str(log_path)], registry=registry, cwd=str(ROOT), connect_timeout=WAIT)
    pid = None
    try:
        pid = SequentialExecutor().call(registry, "server_pid").value
        assert isinstance(pid, int) and pid != os.getpid()
        yield conn, registry, log_path, pid
    finally:
        conn.disconnect()
        if pid is not None and not _wait_gone(pid, 10.0):
            _kill(pid)


@pytest.fixture(scope="module")
def http_url():
    """A streamable-http server subprocess on 127.0.0.1 (port 0: the OS picks a free one)."""
    from tests.mcp_servers import http_server

    with http_server([*SERVE, "--transport", "streamable-http", "--host", "127.0.0.1", "--port", "0"]) as url:
        assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")
        yield url


# -- packaging -------------------------------------------------------------------------------------------
def test_import_workbench_does_not_import_mcp():
    code = (
        "import sys, workbench, workbench.executor, workbench.registry; "
        "bad = sorted(m for m in sys.modules if m == 'mcp' or m.startswith(('mcp.', 'mcp_types'))); "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=str(ROOT), capture_output=True, text=True, timeout=WAIT)
    assert done.returncode == 0, done.stdout + done.stderr
    done = subprocess.run(
        [sys.executable, "-c", "import sys, workbench.mcp; print('mcp' in sys.modules)"],
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        timeout=WAIT,
    )
    assert done.stdout.strip() == "True", done.stderr


# -- stdio: listing ----------------------------------------------------------------------------------------
def test_stdio_registers_every_tool_with_its_schemas(stdio):
    conn, registry, _, _ = stdio
    local = _local_registry()
    assert conn.tools == local.list_tools()
    assert registry.list_tools() == local.list_tools()
    assert conn.server_info is not None and conn.server_info.name == "workbench"
    for name in local.list_tools():
        proxy, original = registry.get_tool(name), local.get_tool(name).spec
        assert proxy.tool_type == "mcp" and proxy.supports_async
        assert proxy.spec.parameters == original.parameters, name
        assert proxy.spec.returns == original.returns, name  # the {"result": …} wrapper is undone
        assert proxy.spec.description == original.description
    assert registry.get_tool("shout").spec.returns == {}


def test_stdio_output_schemas_on_the_wire(stdio):
    conn = stdio[0]
    tools = {t.name: t for t in conn.list_mcp_tools(timeout=WAIT)}
    assert tools["add"].output_schema == {
        "type": "object",
        "properties": {"result": {"type": "integer"}},
        "required": ["result"],
    }
    assert tools["stats"].output_schema["type"] == "object"
    assert set(tools["stats"].output_schema["properties"]) == {"count", "mean", "label"}
    assert tools["shout"].output_schema is None
    assert tools["greet"].input_schema["properties"]["punctuation"]["enum"] == ["!", "."]


# -- stdio: round trips through the executors -------------------------------------------------------------
def test_stdio_text_json_and_image_round_trip(stdio):
    registry = stdio[1]
    uses = [
        _use("greet", {"name": "Ada"}),
        _use("add", {"a": 2, "b": 40}),
        _use("stats", {"values": [1, 2, 6]}),
        _use("pair", {"x": 4}),
        _use("shout", {"text": "hey"}),
        _use("red_square", {}),
    ]
    greet, add, stats, pair, shout, image = ConcurrentExecutor().run(uses, registry)
    for result in (greet, add, stats, pair, shout, image):
        assert result.status == "success", result.error
        assert "returns_mismatch" not in result.metadata
    assert greet.value == "Hello, Ada!" and greet.content == [{"text": "Hello, Ada!"}]
    assert add.value == 42 and {"json": 42} in add.content
    assert stats.value == {"count": 3, "mean": 3.0, "label": "values"} and {"json": stats.value} in stats.content
    assert pair.value == [4, 8] and {"json": [4, 8]} in pair.content  # wrapped on the wire, unwrapped here
    assert shout.value == "HEY"
    assert image.value == sample.RED_PNG
    assert image.content == [
        {"image": {"format": "png", "source": {"bytes": base64.b64encode(sample.RED_PNG).decode()}}}
    ]


def test_stdio_call_from_a_running_event_loop_and_directly(stdio):
    registry = stdio[1]

    async def main():
        return await ConcurrentExecutor().execute(
            [_use("add", {"a": 1, "b": 1}), _use("greet", {"name": "loop"})], registry
        )

    results = asyncio.run(asyncio.wait_for(main(), WAIT))
    assert [r.value for r in results] == [2, "Hello, loop!"]
    assert registry.get_tool("add")(20, 22) == 42  # sync call of the proxy
    assert asyncio.run(asyncio.wait_for(registry.get_tool("add").acall(a=5, b=5), WAIT)) == 10
    assert registry.call("greet", {"name": "seq", "punctuation": "."}).value == "Hello, seq."


def test_stdio_invalid_input_is_rejected_locally(stdio):
    result = SequentialExecutor().call(stdio[1], "add", {"a": "x"})
    assert result.status == "error" and result.metadata["error_type"] == "ToolInputError"
    assert "b" in result.error and "a" in result.error


def test_stdio_error_result(stdio):
    result = SequentialExecutor().call(stdio[1], "fail", {"message": "kaboom"})
    assert result.status == "error"
    assert result.metadata["error_type"] == "ValueError"  # the server-side error type
    assert result.error == "ValueError: kaboom"
    from workbench.mcp import McpToolError

    with pytest.raises(McpToolError, match="kaboom"):
        stdio[1].get_tool("fail")("kaboom")


def test_stdio_server_side_timeout(stdio):
    started = time.monotonic()
    result = ConcurrentExecutor().call(stdio[1], "slow", {"seconds": 5})
    assert result.status == "error"
    assert result.metadata["error_type"] == "TimeoutError"
    assert "timed out after 0.5 s" in result.error
    assert time.monotonic() - started < 4.0


def test_stdio_client_side_timeout_cancels_and_the_connection_survives(stdio):
    registry = stdio[1]
    started = time.monotonic()
    result = ConcurrentExecutor(timeout=0.2).call(registry, "slow", {"seconds": 0.45})
    assert result.status == "error" and result.metadata["error_type"] == "TimeoutError"
    assert "0.2 s" in result.error and time.monotonic() - started < 3.0
    assert SequentialExecutor().call(registry, "add", {"a": 3, "b": 4}).value == 7


@pytest.mark.parametrize("tool_name, steps, prefix", [("countdown", 4, "step"), ("sync_countdown", 3, "sync")])
def test_stdio_progress_reaches_executor_listeners(stdio, tool_name, steps, prefix):
    executor = ConcurrentExecutor()
    events = []
    executor.on_event(lambda event: events.append(event) if event.kind == "progress" else None)
    use = _use(tool_name, {"steps": steps})
    result = executor.run([use], stdio[1])[0]
    assert result.status == "success", result.error
    assert [round(e.progress, 6) for e in events] == [round(i / steps, 6) for i in range(1, steps + 1)]
    assert all(e.tool_use_id == use["toolUseId"] for e in events)
    assert events[0].message.startswith(prefix) and events[-1].message.endswith(str(steps))
    assert events[0].result.status == "in_progress"


def test_stdio_permission_is_enforced_by_the_server(stdio):
    result = SequentialExecutor().call(stdio[1], "guarded", {"x": 1})
    assert result.status == "error" and result.metadata["error_type"] == "PermissionDenied"
    assert "approval" in result.error


def test_stdio_calls_land_in_the_server_execution_log(stdio):
    from workbench.log import ExecutionLog

    registry, log_path = stdio[1], stdio[2]
    SequentialExecutor().call(registry, "add", {"a": 1000, "b": 1})
    SequentialExecutor().call(registry, "fail", {"message": "logged failure"})
    assert log_path.exists()
    log = ExecutionLog(str(log_path))
    try:
        rows = log.rows()
    finally:
        getattr(log, "close", lambda: None)()
    adds = [r for r in rows if r["tool_name"] == "add" and r["input"] == {"a": 1000, "b": 1}]
    assert adds and adds[-1]["status"] == "success" and {"json": 1001} in adds[-1]["output"]
    fails = [r for r in rows if r["tool_name"] == "fail" and r["input"] == {"message": "logged failure"}]
    assert fails and fails[-1]["status"] == "error" and fails[-1]["error_type"] == "ValueError"


def test_stdio_raw_call_tool(stdio):
    raw = stdio[0].call_tool("add", {"a": 1, "b": 2})
    assert raw.structured_content == {"result": 3} and not raw.is_error


# -- the SDK's own client against our server (legacy handshake era) ------------------------------------
def test_sdk_client_round_trip_over_stdio_legacy_protocol():
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=SERVE[0], args=SERVE[1:], cwd=str(ROOT))
    seen: dict = {}

    async def main() -> None:
        with open(os.devnull, "w") as devnull:
            async with Client(stdio_client(params, errlog=devnull), mode="legacy") as client:
                seen["version"] = client.protocol_version
                listed = {t.name: t for t in (await client.list_tools()).tools}
                seen["add_schema"] = listed["add"].output_schema
                seen["add"] = await client.call_tool("add", {"a": 20, "b": 22})
                seen["pair"] = await client.call_tool("pair", {"x": 1})
                seen["image"] = await client.call_tool("red_square", {})
                seen["fail"] = await client.call_tool("fail", {"message": "nope"})
                seen["slow"] = await client.call_tool("slow", {"seconds": 3})
                progress = []

                async def on_progress(value, total, message):
                    progress.append((value, total, message))

                seen["countdown"] = await client.call_tool("countdown", {"steps": 2}, progress_callback=on_progress)
                seen["progress"] = progress

    async def bounded() -> None:
        with anyio.fail_after(WAIT):
            await main()

    anyio.run(bounded)
    assert seen["version"] < "2026"  # the 2025 handshake era: structured content must be an object
    assert seen["add_schema"]["properties"]["result"] == {"type": "integer"}
    add = seen["add"]
    assert not add.is_error and add.structured_content == {"result": 42} and add.content[0].text == "42"
    assert seen["pair"].structured_content == {"result": [1, 2]}
    image = seen["image"]
    assert image.content[0].type == "image" and image.content[0].mime_type == "image/png"
    assert base64.b64decode(image.content[0].data) == sample.RED_PNG
    fail = seen["fail"]
    assert fail.is_error and fail.content[0].text == "ValueError: nope"
    assert seen["slow"].is_error and "timed out" in seen["slow"].content[0].text
    assert seen["countdown"].structured_content == {"result": "done after 2 steps"}
    assert seen["progress"] == [(0.5, 1.0, "step 1/2"), (1.0, 1.0, "step 2/2")]


# -- connection lifecycle ------------------------------------------------------------------------------------
def test_disconnect_unregisters_the_proxies_and_stops_the_server():
    from workbench.mcp import connect

    registry = ToolRegistry()
    registry.process_tools([sample.add])  # a local tool that must survive
    pid = None
    try:
        with connect(command=SERVE, registry=registry, cwd=str(ROOT), prefix="srv.", connect_timeout=WAIT) as conn:
            assert conn.tools[0] == "srv_add" and all(n.startswith("srv_") for n in conn.tools)
            assert registry.get_tool("srv_add").remote_name == "add"
            pid = SequentialExecutor().call(registry, "srv_server_pid").value
            assert _alive(pid)
            assert "serving 12 tools over stdio" in conn.stderr
        assert conn.closed and conn.tools == []
        assert not conn._thread.is_alive(), "the connection thread outlived disconnect()"
        assert registry.list_tools() == ["add"]
        assert _wait_gone(pid, 10.0), "the server process outlived disconnect()"
        result = SequentialExecutor().call(registry, "srv_add", {"a": 1, "b": 2})
        assert result.status == "error" and result.metadata["error_type"] == "ToolNotFoundError"
        conn.disconnect()  # idempotent
    finally:
        if pid is not None:
            _kill(pid)


def test_a_crashed_server_gives_error_results_not_hangs():
    from workbench.mcp import connect

    registry = ToolRegistry()
    pid = None
    conn = connect(command=SERVE, registry=registry, cwd=str(ROOT), connect_timeout=WAIT)
    try:
        pid = SequentialExecutor().call(registry, "server_pid").value
        _kill(pid)
        assert _wait_gone(pid, 10.0)
        result = ConcurrentExecutor(timeout=WAIT).call(registry, "add", {"a": 1, "b": 2})
        assert result.status == "error" and result.metadata["error_type"] != "TimeoutError", result.error
    finally:
        conn.disconnect()
        if pid is not None:
            _kill(pid)
    assert len(registry) == 0


def test_connect_failure_reports_the_server_stderr():
    from workbench.mcp import McpConnectionError, connect

    registry = ToolRegistry()
    started = time.monotonic()
    with pytest.raises(McpConnectionError) as info:
        connect(
            command=[sys.executable, "-m", "workbench.mcp", "serve", "no_such_module_for_mcp"],
            registry=registry,
            cwd=str(ROOT),
            connect_timeout=WAIT,
        )
    assert "no_such_module_for_mcp" in str(info.value)
    assert len(registry) == 0
    assert time.monotonic() - started < WAIT


# -- streamable HTTP ---------------------------------------------------------------------------------------
def test_streamable_http_round_trip(http_url):
    from workbench.mcp import connect

    registry = ToolRegistry()
    with connect(url=http_url, registry=registry, connect_timeout=WAIT) as conn:
        assert conn.tools == _local_registry().list_tools()
        executor = ConcurrentExecutor()
        progress = []
        executor.on_event(lambda e: progress.append(round(e.progress, 6)) if e.kind == "progress" else None)
        add, image, fail, slow, countdown = executor.run(
            [
                _use("add", {"a": 1, "b": 2}),
                _use("red_square", {}),
                _use("fail", {"message": "over http"}),
                _use("slow", {"seconds": 5}),
                _use("countdown", {"steps": 2}),
            ],
            registry,
        )
        assert add.value == 3 and {"json": 3} in add.content
        assert image.value == sample.RED_PNG and image.content[0]["image"]["format"] == "png"
        assert fail.status == "error" and fail.error == "ValueError: over http"
        assert slow.status == "error" and slow.metadata["error_type"] == "TimeoutError"
        assert countdown.value == "done after 2 steps"
        assert progress == [0.5, 1.0]
    assert len(registry) == 0


def test_name_clash_raises_and_registers_nothing(http_url):
    from workbench.mcp import connect

    registry = ToolRegistry()
    registry.process_tools([sample.greet])
    with pytest.raises(ValueError, match="prefix"):
        connect(url=http_url, registry=registry, connect_timeout=WAIT)
    assert registry.list_tools() == ["greet"] and registry.get_tool("greet") is sample.greet
    with connect(url=http_url, registry=registry, replace=True, connect_timeout=WAIT) as conn:
        assert registry.get_tool("greet") is conn.proxies["greet"]
        assert registry.call("greet", {"name": "http"}).value == "Hello, http!"
    assert "greet" not in registry


def test_refresh_and_default_registry(http_url, fresh_default_registry):
    from workbench.mcp import connect

    with connect(http_url, prefix="r_", connect_timeout=WAIT) as conn:  # a URL as the first argument
        assert "r_add" in fresh_default_registry
        fresh_default_registry.unregister("r_add")
        assert conn.refresh(timeout=WAIT) == conn.tools and "r_add" in fresh_default_registry
    assert len(fresh_default_registry) == 0


# -- in-process server details ---------------------------------------------------------------------------------
def _in_process(server, body):
    from mcp.client import Client

    async def main():
        with anyio.fail_after(WAIT):
            async with Client(server) as client:
                return await body(client)

    return anyio.run(main)


def test_build_server_unknown_tool_is_a_protocol_error():
    from mcp.shared.exceptions import MCPError

    from workbench.mcp import build_server

    async def body(client):
        with pytest.raises(MCPError, match="Unknown tool 'nope'.*add"):
            await client.call_tool("nope", {})
        return True

    assert _in_process(build_server(_local_registry()), body)


def test_build_server_uses_the_given_executor_approver_and_log():
    from workbench.log import ExecutionLog
    from workbench.mcp import build_server

    log = ExecutionLog()
    approvals = []
    executor = ConcurrentExecutor(approver=lambda use, tool: approvals.append(use["name"]) or True)
    server = build_server([sample.guarded, sample.add], executor=executor, log=log, name="mine")

    async def body(client):
        assert client.server_info.name == "mine"
        return await client.call_tool("guarded", {"x": 7}), await client.call_tool("add", {"a": "bad"})

    guarded, bad = _in_process(server, body)
    assert guarded.structured_content == {"result": 7} and approvals == ["guarded"]
    assert bad.is_error and "ToolInputError" in str(bad.meta) and "a" in bad.content[0].text
    assert [(r["tool_name"], r["status"]) for r in log.rows()] == [("guarded", "success"), ("add", "error")]
    assert server.workbench.executor is executor


def test_cli_rejects_a_module_without_tools(capsys):
    from workbench.mcp.__main__ import main

    assert main(["serve", "no_such_module_for_mcp"]) == 2
    assert "no_such_module_for_mcp" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["serve", "tests.mcp_sample_tools", "--transport", "carrier-pigeon"])


def test_connect_and_serve_argument_errors():
    from workbench.mcp import connect, serve

    with pytest.raises(ValueError, match="exactly one"):
        connect(registry=ToolRegistry())
    with pytest.raises(ValueError, match="exactly one"):
        connect(["python"], url="http://127.0.0.1:1/mcp", registry=ToolRegistry())
    with pytest.raises(ValueError, match="transport"):
        anyio.run(
            lambda: __import__("workbench.mcp", fromlist=["serve_async"]).serve_async(
                _local_registry(), "smoke-signals"
            )
        )

    async def inside_a_loop():
        with pytest.raises(RuntimeError, match="serve_async"):
            serve(_local_registry())

    asyncio.run(inside_a_loop())


def test_a_proxy_kept_after_disconnect_fails_fast(http_url):
    from workbench.mcp import McpConnectionError, connect

    registry = ToolRegistry()
    with connect(url=http_url, registry=registry, connect_timeout=WAIT):
        proxy = registry.get_tool("add")
        assert proxy(1, 2) == 3
    with pytest.raises(McpConnectionError, match="closed"):
        proxy(1, 2)
    result = ConcurrentExecutor(timeout=WAIT).run([_use("add", {"a": 1, "b": 2})], ToolRegistry([proxy]))[0]
    assert result.status == "error" and "closed" in result.error
