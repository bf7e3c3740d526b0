"""The in-memory transport: an MCP server object in this process, connected with no subprocess and no port.

``connect(server=obj)`` takes an ``mcp.server.mcpserver.MCPServer`` (FastMCP), a low-level
``mcp.server.Server`` or a workbench server (``workbench.mcp.build_server(registry)``). The SDK's
``InMemoryTransport`` runs the server on the connection's own event loop over a pair of memory
streams (``mcp.shared.memory``); everything else — proxies, notifications, sampling, elicitation,
roots, the protocol record, ``reconnect()`` — is the same as for a stdio or HTTP server.
"""

from __future__ import annotations

from typing import Any

from mcp.client._memory import InMemoryTransport
from mcp.server import Server
from mcp.server.mcpserver import MCPServer

from workbench.mcp._transports import OpenedTransport

__all__ = ["SERVER_CLASSES", "open_in_memory", "server_name"]

#: what ``connect(server=...)`` accepts
SERVER_CLASSES = (MCPServer, Server)

#: connect() arguments that only a process or a URL can use
_NOT_IN_MEMORY = ("command", "url", "token", "env", "cwd", "headers", "transport", "auth")


def server_name(server: Any) -> str:
    """The name a server gives itself (``MCPServer("weather")`` → ``weather``)."""
    name = getattr(server, "name", None)
    return name if isinstance(name, str) and name else type(server).__name__


def open_in_memory(server: Any, **others: Any) -> OpenedTransport:
    """The SDK's in-memory transport to ``server``; ``ValueError`` for connect() arguments it
    cannot use (``others`` are the rest of connect()'s transport arguments)."""
    if not isinstance(server, SERVER_CLASSES):
        raise TypeError(
            f"connect(server=...) takes an MCP server object in this process (an "
            f"mcp.server.mcpserver.MCPServer, an mcp.server.Server or workbench.mcp.build_server(...)), "
            f"not {type(server).__module__}.{type(server).__qualname__}"
        )
    given = [name for name in _NOT_IN_MEMORY if others.get(name) is not None]
    if given:
        raise ValueError(
            f"connect(server=...) connects in memory; {', '.join(f'{n}=' for n in given)} "
            "is for a server process or URL"
        )
    return OpenedTransport(InMemoryTransport(server), f"in-process server {server_name(server)!r}")
