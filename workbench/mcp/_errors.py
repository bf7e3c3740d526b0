"""The MCP client's connection error, in a module of its own so every client module can raise it."""

from __future__ import annotations

__all__ = ["McpConnectionError"]


class McpConnectionError(ConnectionError):
    """Connecting to (or talking to) an MCP server failed."""
