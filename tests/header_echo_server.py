"""An MCP server (the official SDK's MCPServer) whose tool answers with a request header, to check
what a client sends. usage: python tests/header_echo_server.py <sse|streamable-http> <port>"""

import sys

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("header-echo", log_level="INFO")


@server.tool()
def header(name: str, ctx: Context) -> str:
    """The value of the HTTP request header ``name`` ("" when absent)."""
    request = ctx.request_context.request
    return "" if request is None else request.headers.get(name, "")


if __name__ == "__main__":
    server.run(sys.argv[1], host="127.0.0.1", port=int(sys.argv[2]))
