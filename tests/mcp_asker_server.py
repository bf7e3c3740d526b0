"""An MCPServer whose tool asks the client (elicitation): run over stdio, or imported and connected in memory."""

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel


class Name(BaseModel):
    name: str


server = MCPServer("asker", log_level="WARNING")


@server.tool()
async def greet(ctx: Context) -> str:
    """Asks the client for a name."""
    answer = await ctx.elicit("Who are you?", Name)
    return f"hello {answer.data.name}" if answer.action == "accept" else f"no name ({answer.action})"


if __name__ == "__main__":
    server.run("stdio")
