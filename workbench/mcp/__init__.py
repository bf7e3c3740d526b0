"""MCP for the workbench, on the official ``mcp`` Python SDK (``pip install "tool-workbench[mcp]"``).

Serve a registry::

    from workbench.mcp import serve
    serve(registry)                                   # stdio
    serve(registry, "streamable-http", port=8000)     # http://127.0.0.1:8000/mcp

or from a shell: ``python -m workbench.mcp serve my.tools [--transport streamable-http --port 8000]
[--log runs.sqlite]``. Every call goes through a workbench executor (permissions, validation,
timeouts; progress becomes MCP progress notifications) and lands in the execution log.

Over HTTP the server checks the Host and Origin headers on every bind (``allowed_hosts=`` /
``allowed_origins=`` extend the lists) and wants ``Authorization: Bearer <token>`` when it has a
token (``token=``, ``$WORKBENCH_MCP_TOKEN``); bound beyond loopback (``host="0.0.0.0"``) it always
has one — generated and printed to stderr if none is given.

Resources and prompts are declared beside the tools of a module and served with them::

    from workbench.mcp import prompt, resource

    @resource("memo://{id}", mime_type="application/json", complete={"id": ["1", "2"]})
    def memo(id: str) -> dict: ...

    @prompt
    def review(code: str) -> str: ...          # memo.updated("memo://1") tells subscribed clients

Connect to a server; its tools become proxy tools of a registry, so forms, ``%tool_call``, the
executors and the log work on them like on local tools::

    from workbench.mcp import connect
    with connect(command=["python", "-m", "some.server"]) as conn:   # or connect(url="http://…/mcp")
        print(conn.tools)
    connect(url="http://server:8000/mcp", token="...")               # a server with a token

or name the server with a transport object (the keywords above build one)::

    from workbench.mcp import HttpTransport, StdioTransport
    connect(StdioTransport(["python", "-m", "some.server"], env={"API_KEY": "..."}))
    connect(HttpTransport("http://server:8000/mcp", token="..."), prefix="remote_")
"""

from __future__ import annotations

try:
    import mcp as _mcp  # noqa: F401
except ImportError as _exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        'workbench.mcp needs the official MCP SDK: pip install "tool-workbench[mcp]" (mcp>=2.3,<3)'
    ) from _exc

from workbench.mcp._auth import OAuth, OAuthError
from workbench.mcp._client import McpConnection, McpConnectionError, McpProxyTool, McpTimeoutError, connect
from workbench.mcp._convert import (
    McpToolError,
    call_tool_result_to_value,
    mcp_tool_dict,
    output_schema_of,
    result_to_call_tool_result,
    spec_to_mcp_tool,
)
from workbench.mcp._grants import identity_assertion
from workbench.mcp._inspect import inspect
from workbench.mcp._record import Notification, ProtocolMessage, ServerLog
from workbench.mcp._security import TOKEN_ENV
from workbench.mcp._served import Prompt, Resource, prompt, resource
from workbench.mcp._server import TRANSPORTS, build_server, serve, serve_async
from workbench.mcp._tasks import McpTaskError
from workbench.mcp._transport_objects import HttpTransport, InProcessTransport, McpTransport, StdioTransport

__all__ = [
    "HttpTransport",
    "InProcessTransport",
    "McpTransport",
    "Notification",
    "OAuth",
    "OAuthError",
    "Prompt",
    "Resource",
    "ProtocolMessage",
    "ServerLog",
    "StdioTransport",
    "McpConnection",
    "McpConnectionError",
    "McpProxyTool",
    "McpTimeoutError",
    "McpTaskError",
    "McpToolError",
    "TOKEN_ENV",
    "TRANSPORTS",
    "build_server",
    "call_tool_result_to_value",
    "connect",
    "identity_assertion",
    "inspect",
    "mcp_tool_dict",
    "output_schema_of",
    "prompt",
    "resource",
    "result_to_call_tool_result",
    "serve",
    "serve_async",
    "spec_to_mcp_tool",
]
