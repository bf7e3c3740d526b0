"""An MCP server with a resource that changes, on the SDK's ``MCPServer`` (both protocol eras): read
``memo://note``; the ``touch`` tool changes it and announces the update — on ``subscriptions/listen``
streams (2026-07-28) and, for ``resources/subscribe`` sessions (earlier eras), as
``notifications/resources/updated``. Run as ``python tests/mcp_resource_server.py``."""

from __future__ import annotations

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("resource-test-server")
state = {"version": 0}


@server.resource("memo://note", name="note", mime_type="text/plain")
def note() -> str:
    """A note whose text changes on each ``touch``."""
    return f"note version {state['version']}"


@server.tool()
async def touch(ctx: Context) -> int:
    """Change ``memo://note`` and announce it; returns its new version."""
    state["version"] += 1
    await ctx.notify_resource_updated("memo://note")
    return state["version"]


if __name__ == "__main__":
    server.run()
