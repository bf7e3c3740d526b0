"""Conveniences a lower layer offers and a higher layer carries out.

The modules import strictly downward — types → spec → formats → tools → registry → executor → log
→ the applications (mcp, testing, dask, evals, adapters) → the notebook (jupyter) — and
``tests/project/test_layers.py`` checks it. A few public conveniences live on a lower-layer object but need a higher layer's work:

==========================  ==============================  ===============================
entry point                 offered by                      carried out by
==========================  ==============================  ===============================
``provider_format``         ``ToolSpec.to_provider_format`` ``workbench.formats``
``register_class_tool``     ``@tool`` on a ``BaseTool``     the default ``ToolRegistry``
                            subclass
``call_one``                ``ToolRegistry.call``           a ``SequentialExecutor``
``cases_from_log``          ``ExecutionLog.to_cases``       ``workbench.testing``
``notebook_progress``       ``executor.map`` in a kernel    ``workbench.jupyter``
``transcript_view``         ``Transcript`` in a kernel      ``workbench.jupyter``
``adapt_foreign``           ``ToolRegistry`` taking another ``workbench.adapters``
                            framework's tool
``derive``                  ``BaseTool.with_description``   ``workbench.transforms``
``mcp_inspect``             ``workbench.mcp.inspect``       ``workbench.jupyter``
==========================  ==============================  ===============================

The lower layer calls the slot below; the package (``workbench/__init__``, above every layer and
imported before any of its modules) fills each slot with a function that imports the higher layer
on first use, so importing a low layer never pulls in a high one.
"""

from __future__ import annotations

from typing import Any, Callable


def _unfilled(name: str) -> Callable[..., Any]:
    def missing(*_args: Any, **_kwargs: Any) -> Any:  # only reachable if workbench/__init__ was bypassed
        raise RuntimeError(f"workbench: the {name} entry point was not installed (import the workbench package)")

    return missing


provider_format: Callable[..., dict] = _unfilled("provider_format")
"""``provider_format(spec, provider, **options)`` → the spec in a provider's tool format."""

register_class_tool: Callable[[Any], None] = _unfilled("register_class_tool")
"""``register_class_tool(instance)`` → register a ``BaseTool`` instance in the default registry."""

call_one: Callable[..., Any] = _unfilled("call_one")
"""``call_one(registry, tool_use, **executor_options)`` → the ``ToolResult`` of one synchronous call."""

cases_from_log: Callable[..., list] = _unfilled("cases_from_log")
"""``cases_from_log(log, **filters)`` → the logged calls as ``workbench.testing.ToolCase``s."""

notebook_progress: Callable[[int, int, str], Any] = _unfilled("notebook_progress")
"""``notebook_progress(total, done, name)`` → a batch progress widget (raises ``ImportError`` without ipywidgets)."""

transcript_view: Callable[..., Any] = _unfilled("transcript_view")
"""``transcript_view(transcript=None, prompt=None)`` → the notebook view of an agent transcript, or an empty one
that ``add_step`` fills live (raises ``ImportError`` without ipywidgets)."""
adapt_foreign: Callable[[Any], list] = _unfilled("adapt_foreign")
"""``adapt_foreign(obj)`` → the workbench tools of another framework's tool (or toolkit) ``obj``."""

derive: Callable[..., Any] = _unfilled("derive")
"""``derive(tool, name=, description=, args=)`` → a ``DerivedTool`` forwarding to ``tool`` (``workbench.transforms``)."""
mcp_inspect: Callable[..., Any] = _unfilled("mcp_inspect")
"""``mcp_inspect(command=None, *, url=None, workbench=None, **connect_options)`` → the notebook view of an MCP
connection (``workbench.jupyter.inspect``; raises ``ImportError`` without ipywidgets)."""
