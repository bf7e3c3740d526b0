"""A protocol 2026-07-28 MCP server (the official SDK's ``MCPServer``, stdio) for the client tests of
that era's features:

* multi-round-trip requests — tools whose parameters are filled by resolvers that ask the client
  (``Elicit``, ``Sample``, ``ListRoots``): the server answers ``tools/call`` with an
  ``input_required`` result and the client retries with the answers;
* cache hints — every list result carries ``ttlMs`` (``$TTL_MS``, default 60000) and ``cacheScope``;
  ``add_note`` adds a resource and announces the change on ``subscriptions/listen``;
* icons on a tool, a resource, a prompt and the server.

Run: ``python tests/mcp_modern_server.py``.
"""

from __future__ import annotations

import os
from typing import Annotated

from mcp.server.caching import CacheHint
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, ListRoots, Resolve, Sample
from mcp.server.mcpserver.resources import TextResource
from mcp_types import CreateMessageResult, Icon, ListRootsResult, SamplingMessage, TextContent
from pydantic import BaseModel

TTL_MS = int(os.environ.get("TTL_MS", "60000"))
PIXEL = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5"
    "ErkJggg=="
)
HINT = CacheHint(ttl_ms=TTL_MS, scope="private")

server = MCPServer(
    "modern-test-server",
    icons=[Icon(src=PIXEL, mime_type="image/png")],
    cache_hints={
        "tools/list": HINT,
        "resources/list": HINT,
        "resources/templates/list": HINT,
        "prompts/list": CacheHint(ttl_ms=TTL_MS, scope="public"),
    },
)


class Name(BaseModel):
    name: str


def ask_name() -> Elicit[Name]:
    return Elicit("What is your name?", Name)


def ask_model() -> Sample:
    return Sample([SamplingMessage(role="user", content=TextContent(type="text", text="Write a haiku"))], max_tokens=20)


def ask_roots() -> ListRoots:
    return ListRoots()


@server.tool(icons=[Icon(src=PIXEL, mime_type="image/png"), Icon(src="javascript:alert(1)")])
def greet(who: Annotated[Name, Resolve(ask_name)]) -> str:
    """Greet the user, asking their name."""
    return f"Hello, {who.name}!"


@server.tool()
def haiku(poem: Annotated[CreateMessageResult, Resolve(ask_model)]) -> str:
    """Ask the client's model for a haiku."""
    return f"model said: {poem.content.text}"


@server.tool()
def count_roots(roots: Annotated[ListRootsResult, Resolve(ask_roots)]) -> str:
    """Count the client's roots."""
    return f"{len(roots.roots)} roots: " + ", ".join(str(root.uri) for root in roots.roots)


@server.tool()
def both(who: Annotated[Name, Resolve(ask_name)], poem: Annotated[CreateMessageResult, Resolve(ask_model)]) -> str:
    """Ask the user and the model in one round."""
    return f"{who.name} / {poem.content.text}"


@server.resource("notes://first", mime_type="text/plain", icons=[Icon(src=PIXEL, mime_type="image/png")])
def first() -> str:
    """The first note."""
    return "first"


@server.prompt(icons=[Icon(src="https://example.com/prompt.png", mime_type="image/png")])
def poem(topic: str) -> str:
    """A poem prompt."""
    return f"Write a poem about {topic}"


@server.tool()
async def add_note(name: str, ctx: Context) -> str:
    """Add a note resource and announce that the resource list changed."""
    server.add_resource(TextResource(uri=f"notes://{name}", name=name, text=name, mime_type="text/plain"))
    await ctx.notify_resources_changed()
    return f"added notes://{name}"


if __name__ == "__main__":
    server.run()
