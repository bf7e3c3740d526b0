"""Tools from anywhere, tools to anywhere: other frameworks' tools in, workbench tools out.

*In* — ``adapt(obj)`` (and ``ToolRegistry(...)``, ``register_tool``, ``process_tools``, which call it
for an object whose class comes from a package in ``workbench.registry.FOREIGN_TOOL_MODULES``) turns
a framework's tool into a workbench tool that shows the schema that framework sends to a model and
is called through the framework's own invocation path.

*Out* — ``to_langchain(tool)``, ``to_openai_agents(tool)``, ``to_pydantic_ai(tool)``,
``to_smolagents(tool)``, ``to_crewai(tool)``, ``to_llamaindex(tool)`` return that framework's own
tool object; called the framework's way, it runs through a workbench executor (``executor=``,
``log=``, ``approver=``).

*Definitions and servers* — ``from_provider_format(d)`` (a provider's tool dict, or a BFCL function
document → a spec-only tool), ``from_mcp_server(server)`` (an MCP server object in this process,
connected in memory) and ``from_openapi(doc, base_url=...)`` (one HTTP tool per operation of an
OpenAPI 3.0/3.1 document). ``ToolRegistry([...])`` takes provider dicts and MCP server objects too.

Each framework is one module here (imported, with its framework, only when used) and one row of
``ADAPTERS``; a new source of tools is a new module and a new row.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from workbench.tools import BaseTool

__all__ = [
    "ADAPTERS",
    "AdaptedTool",
    "Adapter",
    "ForeignToolError",
    "WorkbenchToolError",
    "adapt",
    "as_workbench_tool",
    "from_mcp_server",
    "from_openapi",
    "from_provider_format",
    "to_crewai",
    "to_langchain",
    "to_llamaindex",
    "to_openai_agents",
    "to_pydantic_ai",
    "to_smolagents",
]


class Adapter(NamedTuple):
    """One framework: its module here, the pip extra that installs it, and what it accepts."""

    module: str  # a module with ``adapt(obj) -> list[BaseTool]`` and the ``to_…`` export
    extra: str  # pip install 'tool-workbench[extra]'
    label: str  # the framework's name, for messages
    accepts: str  # the objects ``adapt`` takes, for messages


#: adapter name (the values of ``workbench.registry.FOREIGN_TOOL_MODULES``) → its adapter
ADAPTERS: dict[str, Adapter] = {
    "langchain": Adapter(
        "workbench.adapters.langchain",
        "langchain",
        "LangChain",
        "a langchain_core BaseTool (StructuredTool, @tool functions, BaseTool subclasses) or a "
        "BaseToolkit (its get_tools())",
    ),
    "openai-agents": Adapter(
        "workbench.adapters.openai_agents",
        "openai-agents",
        "the OpenAI Agents SDK",
        "an agents.FunctionTool (@function_tool)",
    ),
    "pydantic-ai": Adapter(
        "workbench.adapters.pydantic_ai",
        "pydantic-ai",
        "pydantic-ai",
        "a pydantic_ai.Tool or a FunctionToolset (its tools)",
    ),
    "smolagents": Adapter(
        "workbench.adapters.smolagents",
        "smolagents",
        "smolagents",
        "a smolagents.Tool (@tool functions, Tool subclasses)",
    ),
    "crewai": Adapter(
        "workbench.adapters.crewai",
        "crewai",
        "CrewAI",
        "a crewai.tools.BaseTool (@tool functions, BaseTool subclasses)",
    ),
    "llamaindex": Adapter(
        "workbench.adapters.llamaindex", "llamaindex", "LlamaIndex", "a llama_index.core.tools.FunctionTool"
    ),
    # not frameworks: tool definitions and servers (from_provider_format, from_mcp_server, from_openapi)
    "provider-format": Adapter(
        "workbench.adapters.tool_formats",
        "",
        "a provider tool format",
        "a provider tool dict (OpenAI chat or Responses, Anthropic, Bedrock, Gemini, MCP) "
        "or a BFCL function document: a spec-only tool",
    ),
    "mcp-server": Adapter(
        "workbench.adapters.mcp_server",
        "mcp",
        "an MCP server in this process",
        "an mcp.server.mcpserver.MCPServer (FastMCP), an mcp.server.Server or "
        "workbench.mcp.build_server(...): connected in memory",
    ),
    "openapi": Adapter(
        "workbench.adapters.openapi", "openapi", "OpenAPI", "an OpenAPI 3.0/3.1 document, through from_openapi(doc)"
    ),
}

#: the ``to_…`` exports → the adapter whose module defines them
EXPORTS: dict[str, str] = {
    "to_langchain": "langchain",
    "to_openai_agents": "openai-agents",
    "to_pydantic_ai": "pydantic-ai",
    "to_smolagents": "smolagents",
    "to_crewai": "crewai",
    "to_llamaindex": "llamaindex",
    "from_provider_format": "provider-format",
    "from_mcp_server": "mcp-server",
    "from_openapi": "openapi",
}


def _module(name: str) -> Any:
    return importlib.import_module(ADAPTERS[name].module)


def adapt(obj: Any) -> list["BaseTool"]:
    """The workbench tools of another framework's tool (one) or toolkit / toolset (each of its tools).

    Raises ``TypeError`` naming what ``obj`` is and what is accepted when no adapter takes it, and
    ``ImportError`` naming the extra to install when its framework's adapter needs a missing package.
    """
    from workbench.registry import foreign_kind

    kind = foreign_kind(obj)
    if kind is None:
        accepted = "; ".join(f"{a.label}: {a.accepts}" for a in ADAPTERS.values())
        raise TypeError(f"{_what(obj)} is not a tool of a framework workbench.adapters converts. Accepted: {accepted}")
    return _module(kind).adapt(obj)


def as_workbench_tool(obj: Any, *, target: str = "an exported tool") -> "BaseTool":
    """One workbench tool from a workbench tool, a function (made a tool with ``@tool``) or another
    framework's tool: what the ``to_…`` exports take."""
    from workbench.registry import ToolRegistry
    from workbench.tools import BaseTool

    if isinstance(obj, BaseTool):
        return obj
    if isinstance(obj, type) and issubclass(obj, BaseTool):
        return obj()
    try:
        return ToolRegistry._as_tool(obj)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"{target} needs one tool (a workbench tool, a function or another framework's tool); {exc}"
        ) from None


def _what(obj: Any) -> str:
    text = repr(obj)
    text = text if len(text) <= 80 else text[:77] + "..."
    kind = obj if isinstance(obj, type) else type(obj)
    return f"{text} (a {'class ' if isinstance(obj, type) else ''}{kind.__module__}.{kind.__qualname__})"


#: the shared classes, from the private module every adapter uses
SHARED = ("AdaptedTool", "ForeignToolError", "WorkbenchToolError")


def __getattr__(name: str) -> Any:
    if name in SHARED:
        return getattr(importlib.import_module("workbench.adapters._common"), name)
    adapter = EXPORTS.get(name)
    if adapter is None:
        raise AttributeError(f"module 'workbench.adapters' has no attribute {name!r}")
    return getattr(_module(adapter), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *EXPORTS, *SHARED})
