"""The MCP client's connection error, in a module of its own so every client module can raise it."""

from __future__ import annotations

__all__ = ["McpConnectionError", "McpTimeoutError", "OAuthError"]


class McpConnectionError(ConnectionError):
    """Connecting to (or talking to) an MCP server failed."""


class McpTimeoutError(McpConnectionError, TimeoutError):
    """An MCP server did not answer in time: the handshake within ``connect_timeout``, or a liveness
    check. Both a ``ConnectionError`` and a ``TimeoutError``."""


class OAuthError(RuntimeError):
    """The authorization did not complete (refused, timed out, or the callback carried an error)."""
