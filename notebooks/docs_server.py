"""A small MCP server with more than tools — resources, a resource template, a prompt and log
messages — for tutorial 5. Written with the official SDK's ``MCPServer``; run it with
``python docs_server.py`` (stdio)."""

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("docs", instructions="Documentation of the tutorial's tools. Read docs://guide first.")

TOPICS = {
    "slugify": "slugify(title, separator='-') turns a title into a URL slug.",
    "convert_temperature": "convert_temperature(value, to) converts Fahrenheit to celsius or kelvin.",
}


@server.resource("docs://guide", mime_type="text/markdown")
def guide() -> str:
    """How to use the tutorial's tools."""
    return "# Guide\n\nCall `slugify` for slugs and `convert_temperature` for temperatures."


@server.resource("docs://topics/{name}", mime_type="text/plain")
def topic(name: str) -> str:
    """One tool's documentation."""
    return TOPICS.get(name, f"no topic {name!r}")


@server.prompt()
def explain(tool_name: str, audience: str = "a new user") -> str:
    """Ask a model to explain one of the tools."""
    return f"Explain the tool {tool_name} to {audience}, with one example call."


@server.tool()
async def check_docs(ctx: Context) -> str:
    """Check that every tool has a topic, reporting as log messages."""
    for name in TOPICS:
        await ctx.info(f"topic {name}: ok")
    return f"{len(TOPICS)} topics"


if __name__ == "__main__":
    server.run()
