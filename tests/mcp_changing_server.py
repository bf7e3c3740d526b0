"""A workbench MCP server whose tool list changes: ``grow(name)`` registers a new tool ``name``.

``python -m tests.mcp_changing_server stdio`` or ``... streamable-http`` (port 0: the address is printed).
"""

from __future__ import annotations

import sys

from workbench import tool
from workbench.mcp import serve
from workbench.registry import ToolRegistry

registry = ToolRegistry()


@tool
def grow(name: str) -> str:
    """Register a tool called ``name`` (it adds one to ``x``)."""

    def made(x: int) -> int:
        return x + 1

    registry.register_tool(tool(made, name=name, description=f"Made by grow({name!r})."))
    return f"registered {name}"


registry.register_tool(grow)

if __name__ == "__main__":
    serve(registry, sys.argv[1] if len(sys.argv) > 1 else "stdio", "127.0.0.1", 0)
