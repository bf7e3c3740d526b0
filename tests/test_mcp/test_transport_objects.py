"""``connect(transport)``: transport objects (stdio, HTTP, in process) name the server in one value.

Against real servers: the project's own server as a subprocess over stdio and over streamable HTTP
(uvicorn, port 0), and a server object in this process. The older keywords still build the same
objects; a transport's repr never shows a credential.
"""

from __future__ import annotations

import os
import re
import sys

import pytest

from tests.mcp_servers import ROOT, WAIT, serve_command, server_process
from workbench.executor import SequentialExecutor
from workbench.mcp import HttpTransport, InProcessTransport, McpConnectionError, McpTransport, StdioTransport, connect
from workbench.mcp import inspect as mcp_inspect
from workbench.registry import ToolRegistry

TOKEN = "tok-4f9a1c2e7b"


def test_a_stdio_transport_object_connects_and_reconnects():
    registry = ToolRegistry()
    target = StdioTransport(
        sys.executable,
        ["-m", "workbench.mcp", "serve", "tests.mcp_sample_tools"],
        env={"WORKBENCH_TEST_MARK": "1"},
        cwd=str(ROOT),
    )
    assert isinstance(target, McpTransport) and target.argv == serve_command("tests.mcp_sample_tools")
    conn = connect(target, registry=registry, prefix="s_", connect_timeout=WAIT)
    try:
        assert conn.transport is target and "s_add" in conn.tools
        assert SequentialExecutor().call(registry, "s_add", {"a": 2, "b": 3}).text == "5"
        assert conn.config()["command"] == sys.executable and conn.config()["env"] == {
            "WORKBENCH_TEST_MARK": "${WORKBENCH_TEST_MARK}"
        }
        fresh = conn.reconnect(connect_timeout=WAIT)  # the same transport object, the same settings
    finally:
        conn.disconnect()
    try:
        assert fresh.transport is target and fresh.prefix == "s_" and fresh.connected
        assert SequentialExecutor().call(registry, "s_add", {"a": 4, "b": 5}).text == "9"
    finally:
        fresh.disconnect()


def test_an_http_transport_object_sends_its_token(tmp_path):
    argv = [
        *serve_command("tests.mcp_sample_tools"),
        "--transport",
        "streamable-http",
        "--port",
        "0",
        "--token",
        TOKEN,
        "--log",
        str(tmp_path / "server.sqlite"),
    ]
    env = {k: v for k, v in os.environ.items() if k != "WORKBENCH_MCP_TOKEN"}
    with server_process(argv, lambda line: "serving" in line and "http://" in line, env=env) as seen:
        port = re.search(r"http://\S+:(\d+)/mcp", seen[-1]).group(1)
        url = f"http://127.0.0.1:{port}/mcp"
        registry = ToolRegistry()
        with connect(transport=HttpTransport(url, token=TOKEN), registry=registry, connect_timeout=WAIT) as conn:
            assert conn.connected and isinstance(conn.transport, HttpTransport)
            assert SequentialExecutor().call(registry, "add", {"a": 1, "b": 1}).text == "2"
            assert conn.config()["headers"] == {"Authorization": "Bearer ${MCP_TOKEN}"}
        with pytest.raises(McpConnectionError, match="HTTP 401"):  # the token is what let it in
            connect(HttpTransport(url), registry=ToolRegistry(), connect_timeout=WAIT)


def test_an_in_process_transport_object():
    from tests.mcp_sample_tools import add
    from workbench.mcp import build_server

    served = ToolRegistry([add])
    registry = ToolRegistry()
    with connect(InProcessTransport(build_server(served)), registry=registry, connect_timeout=WAIT) as conn:
        assert conn.tools == ["add"] and SequentialExecutor().call(registry, "add", {"a": 3, "b": 4}).text == "7"


def test_the_keywords_build_the_same_transport_objects():
    registry = ToolRegistry()
    with connect(
        command=serve_command("tests.mcp_sample_tools"), cwd=str(ROOT), registry=registry, connect_timeout=WAIT
    ) as conn:
        assert conn.transport == StdioTransport(serve_command("tests.mcp_sample_tools"), cwd=str(ROOT))
    from workbench.mcp._transport_objects import transport_of

    assert transport_of(url="http://h/mcp", token="t", transport="sse") == HttpTransport(
        "http://h/mcp", token="t", kind="sse"
    )
    assert transport_of("http://h/mcp") == HttpTransport("http://h/mcp")
    assert transport_of("python -m pkg", env={"A": "1"}) == StdioTransport(["python", "-m", "pkg"], env={"A": "1"})


def test_a_transport_with_keywords_of_its_own_kind_is_refused():
    target = StdioTransport(["python", "-m", "pkg"])
    with pytest.raises(
        ValueError,
        match=r"connect\(\) got the transport StdioTransport\('python -m pkg'\) "
        r"and also env=, cwd=: give those to the transport object",
    ):
        connect(target, env={"A": "1"}, cwd="/tmp")
    with pytest.raises(ValueError, match="and also command="):
        connect(["python"], transport=target)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: StdioTransport([]), r"StdioTransport\(command=\.\.\.\) needs a program to run"),
        (lambda: StdioTransport(42), r"StdioTransport\(command=\.\.\.\): expected a program .* not int"),
        (lambda: HttpTransport("ftp://h/mcp"), r"HttpTransport\(url=\.\.\.\): expected an http:// or https:// URL"),
        (lambda: HttpTransport("http://h/mcp", kind="websocket"), r"transport='websocket'.*expected one of"),
        (
            lambda: HttpTransport("http://h/mcp", token="t", headers={"authorization": "Bearer t"}),
            "pass the token once",
        ),
        (lambda: InProcessTransport(object()), r"takes an MCP server object in this process"),
    ],
)
def test_bad_transport_arguments_are_named(make, message):
    with pytest.raises((ValueError, TypeError), match=message):
        make()


def test_a_transport_repr_never_shows_a_credential():
    """The attack: a transport object printed in a notebook cell (saved with it) or a log line."""
    secret_url = "https://user:pw-9d8e@host/mcp?api_key=key-77aa&region=eu"
    shown = repr(
        HttpTransport(
            secret_url, headers={"X-Api-Key": "hdr-5b5b", "Authorization": "Basic b64-c3c3", "X-Trace": "visible"}
        )
    )
    shown += repr(HttpTransport("https://host/mcp", token=TOKEN))
    shown += repr(StdioTransport(["server", "--api-key", "arg-1e1e", "--token=arg-2f2f"], env={"PLAIN": "env-3a3a"}))
    for secret in ("pw-9d8e", "key-77aa", "hdr-5b5b", "b64-c3c3", TOKEN, "arg-1e1e", "arg-2f2f", "env-3a3a"):
        assert secret not in shown
    assert "visible" in shown and "region=eu" in shown and "PLAIN" in shown


def test_the_notebook_inspects_a_transport_or_a_live_connection():
    from tests.mcp_sample_tools import add
    from workbench.jupyter import inspect
    from workbench.jupyter._workbench import Workbench
    from workbench.mcp import build_server

    view = inspect(
        StdioTransport(serve_command("tests.mcp_sample_tools"), cwd=str(ROOT)),
        workbench=Workbench(),
        connect_timeout=WAIT,
    )
    try:
        assert isinstance(view.connection.transport, StdioTransport) and "add" in view.tool_picker.options
    finally:
        view.connection.disconnect()
    with connect(
        InProcessTransport(build_server(ToolRegistry([add]))),
        registry=ToolRegistry(),
        prefix="mem_",
        connect_timeout=WAIT,
    ) as conn:
        view = mcp_inspect(conn, workbench=Workbench())  # workbench.mcp.inspect forwards to the notebook's
        assert view.connection is conn and "mem_add" in view.tool_picker.options
        with pytest.raises(ValueError, match=r"inspect\(connection\) shows a connection already made; prefix= "):
            inspect(conn, prefix="x_")
