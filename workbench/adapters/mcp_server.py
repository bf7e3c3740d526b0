"""An MCP server object in this process, as workbench tools: connected in memory (no subprocess, no port).

``from_mcp_server(server)`` is ``workbench.mcp.connect(server=server)``: an ``McpConnection`` whose
proxy tools are registered (default registry unless ``registry=``). ``ToolRegistry([server])``
goes through :func:`adapt`: the server is connected into a registry of its own and its proxies are
registered too — that registry, not yours, follows the server's tool-list changes.
"""

from __future__ import annotations

from typing import Any

from workbench.adapters._common import require
from workbench.tools import BaseTool

__all__ = ["adapt", "from_mcp_server"]


def from_mcp_server(server: Any, **options: Any) -> Any:
    """Connect ``server`` (an ``MCPServer``/FastMCP, an ``mcp.server.Server`` or
    ``workbench.mcp.build_server(...)``) in memory; ``options`` are ``connect()``'s (``registry=``,
    ``prefix=``, ``timeout=``, ``sampling=``…). Returns the ``McpConnection``."""
    connect = require("workbench.mcp", "mcp", "an MCP server adapter").connect
    return connect(server=server, **options)


def adapt(obj: Any) -> list[BaseTool]:
    """The adapters' table entry: the proxy tools of an MCP server object, connected in memory."""
    from workbench.mcp._memory import SERVER_CLASSES
    from workbench.registry import ToolRegistry

    if not isinstance(obj, SERVER_CLASSES):
        raise TypeError(
            f"{type(obj).__module__}.{type(obj).__qualname__} is an object of the MCP SDK but not a "
            "server: ToolRegistry takes an MCPServer (FastMCP), an mcp.server.Server or "
            "workbench.mcp.build_server(...)"
        )
    connection = from_mcp_server(obj, registry=ToolRegistry())
    listing, _skipped = connection.tool_listing()
    return list(listing.values())
