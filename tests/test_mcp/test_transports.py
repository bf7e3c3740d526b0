"""``connect(url=..., transport=..., headers=...)`` against real HTTP servers: the SSE transport of
older servers (server-everything's ``sse``, the SDK's MCPServer) and custom headers."""

from __future__ import annotations

import sys

import pytest

from tests.mcp_servers import ROOT, WAIT, everything_http, free_port, http_server
from workbench.executor import SequentialExecutor
from workbench.registry import ToolRegistry

PATHS = {"sse": "/sse", "streamable-http": "/mcp"}


def test_sse_transport_reaches_server_everything():
    from workbench.mcp import connect

    registry = ToolRegistry()
    with everything_http("sse") as url:
        with connect(url=url, transport="sse", registry=registry, connect_timeout=WAIT) as conn:
            assert conn.connected and conn.protocol_version
            assert SequentialExecutor().call(registry, "echo", {"message": "over sse"}).text == "Echo: over sse"
            assert conn.list_resources() and conn.list_prompts()
            assert any(m.method == "tools/call" for m in conn.messages)


@pytest.mark.parametrize("transport", ["sse", "streamable-http"])
def test_custom_headers_and_the_token_reach_the_server(transport):
    from workbench.mcp import connect

    port = free_port()
    argv = [sys.executable, str(ROOT / "tests" / "header_echo_server.py"), transport, str(port)]
    with http_server(argv, marker="Uvicorn running") as base:
        url = base.rstrip("/") + PATHS[transport]
        registry = ToolRegistry()
        with connect(
            url=url,
            transport=transport,
            registry=registry,
            headers={"X-Workbench-Test": "yes"},
            token="s3cret",
            connect_timeout=WAIT,
        ):
            call = SequentialExecutor().call
            assert call(registry, "header", {"name": "x-workbench-test"}).text == "yes"
            assert call(registry, "header", {"name": "authorization"}).text == "Bearer s3cret"


def test_an_unknown_transport_is_a_clear_error():
    from workbench.mcp import connect

    with pytest.raises(ValueError, match=r"transport='websocket'.*expected one of \['sse', 'streamable-http'\]"):
        connect(url="http://127.0.0.1:9/mcp", transport="websocket")
    with pytest.raises(ValueError, match="talks stdio"):
        connect(command=["true"], transport="sse")
