"""Tool Workbench: build, inspect and test the tools that LLM agents call.

The core (specs, tools, registry, executors, log, formats) imports neither
ipywidgets, IPython nor pandas; the notebook layer lives in
``workbench.jupyter`` and is loaded by ``%load_ext workbench``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what the lazy names below resolve to, for type checkers and editors
    from workbench._errors import ToolInputError, ToolNotFoundError, ToolSpecError
    from workbench._events import ToolEvent
    from workbench.agent import Transcript, arun_agent, run_agent
    from workbench.content import Audio, EmbeddedResource, ResourceLink
    from workbench.context import ToolContext
    from workbench.executor import ConcurrentExecutor, SequentialExecutor, ToolExecutor
    from workbench.log import ExecutionLog
    from workbench.registry import ToolRegistry, default_registry
    from workbench.spec import ToolParam, ToolParameter, ToolReturn, ToolSpec, update_tool_runtime_metadata
    from workbench.tools import (
        BaseTool,
        DecoratedFunctionTool,
        NoImplementationError,
        SpecOnlyTool,
        ToolPermissionError,
        ToolResponse,
        tool,
    )
    from workbench.transforms import Arg, DerivedTool, derive
    from workbench.types import (
        Permission,
        ToolChoice,
        ToolPermission,
        ToolResult,
        ToolUse,
        make_tool_use,
        new_tool_use_id,
    )

from workbench import _entry_points
from workbench._version import __version__  # noqa: F401 - the package version, re-exported

__all__ = [
    "BaseTool",
    "ConcurrentExecutor",
    "DecoratedFunctionTool",
    "ExecutionLog",
    "NoImplementationError",
    "Permission",
    "SequentialExecutor",
    "SpecOnlyTool",
    "ToolChoice",
    "ToolContext",
    "ToolEvent",
    "ToolExecutor",
    "ToolInputError",
    "ToolNotFoundError",
    "ToolParam",
    "ToolParameter",
    "ToolPermission",
    "ToolPermissionError",
    "ToolRegistry",
    "ToolResponse",
    "ToolResult",
    "ToolReturn",
    "ToolSpec",
    "ToolSpecError",
    "ToolUse",
    "default_registry",
    "format_tool_results",
    "get_workbench",
    "make_tool_use",
    "new_tool_use_id",
    "parse_tool_calls",
    "to_provider_format",
    "tool",
    "ui",
    "update_tool_runtime_metadata",
    "run_agent",
    "arun_agent",
    "Transcript",
    "playground",
    "Audio",
    "EmbeddedResource",
    "ResourceLink",
    "Arg",
    "DerivedTool",
    "derive",
]

# Every public name is imported on first use (PEP 562): ``import workbench`` costs next to nothing,
# and a program pays for what it touches (``from workbench import tool`` loads the specs and
# pydantic; executors load asyncio; the log sqlite3; providers, the notebook layer… when used).
_LAZY = {
    **{name: ("workbench._errors", name) for name in ("ToolInputError", "ToolNotFoundError", "ToolSpecError")},
    "ToolEvent": ("workbench._events", "ToolEvent"),
    "ToolContext": ("workbench.context", "ToolContext"),
    **{name: ("workbench.content", name) for name in ("Audio", "EmbeddedResource", "ResourceLink")},
    **{name: ("workbench.executor", name) for name in ("ConcurrentExecutor", "SequentialExecutor", "ToolExecutor")},
    **{name: ("workbench.registry", name) for name in ("ToolRegistry", "default_registry")},
    **{
        name: ("workbench.spec", name)
        for name in ("ToolParam", "ToolParameter", "ToolReturn", "ToolSpec", "update_tool_runtime_metadata")
    },
    **{
        name: ("workbench.tools", name)
        for name in (
            "BaseTool",
            "DecoratedFunctionTool",
            "NoImplementationError",
            "SpecOnlyTool",
            "ToolPermissionError",
            "ToolResponse",
            "tool",
        )
    },
    **{
        name: ("workbench.types", name)
        for name in (
            "Permission",
            "ToolChoice",
            "ToolPermission",
            "ToolResult",
            "ToolUse",
            "make_tool_use",
            "new_tool_use_id",
        )
    },
    "ExecutionLog": ("workbench.log", "ExecutionLog"),
    **{name: ("workbench.transforms", name) for name in ("Arg", "DerivedTool", "derive")},
    "to_provider_format": ("workbench.formats", "to_provider_format"),
    "parse_tool_calls": ("workbench.formats", "parse_tool_calls"),
    "format_tool_results": ("workbench.formats", "format_tool_results"),
    "get_workbench": ("workbench.jupyter", "get_workbench"),
    "ui": ("workbench.jupyter", "ui"),
    "playground": ("workbench.jupyter", "playground"),
    "summarize": ("workbench.summary", "summarize"),
    "DaskExecutor": ("workbench.dask", "DaskExecutor"),
    **{name: ("workbench.agent", name) for name in ("run_agent", "arun_agent", "Transcript")},
}


def __getattr__(name: str) -> Any:
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module 'workbench' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(target[0]), target[1])
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


# -- the entry points lower layers offer and higher layers carry out (see workbench._entry_points) --
def _provider_format(spec: Any, provider: str, **options: Any) -> dict:
    from workbench.formats import to_provider_format as _format

    return _format(spec, provider, **options)


def _register_class_tool(instance: Any) -> None:
    from workbench.registry import default_registry as _default

    _default().register_tool(instance, replace=True)


def _call_one(registry: Any, tool_use: Any, **options: Any) -> Any:
    from workbench.executor import SequentialExecutor as _Sequential

    return _Sequential(**options).run([tool_use], registry)[0]


def _cases_from_log(log: Any, **filters: Any) -> list:
    from workbench.testing._cases import cases_from_log

    return cases_from_log(log, **filters)


def _notebook_progress(total: int, done: int, name: str) -> Any:
    from workbench.jupyter._batch_progress import BatchProgress

    return BatchProgress(total, done, name)


def _transcript_view(transcript: Any = None, **options: Any) -> Any:
    from workbench.jupyter._transcript_view import TranscriptView

    return TranscriptView(transcript, **options)


def _derive(tool: Any, **options: Any) -> Any:
    from workbench.transforms import derive as _derive_tool

    return _derive_tool(tool, **options)


def _adapt_foreign(obj: Any) -> list:
    from workbench.adapters import adapt

    return adapt(obj)


def _mcp_inspect(*args: Any, **options: Any) -> Any:
    from workbench.jupyter._mcp_inspect import inspect as _inspect

    return _inspect(*args, **options)


_entry_points.provider_format = _provider_format
_entry_points.register_class_tool = _register_class_tool
_entry_points.call_one = _call_one
_entry_points.cases_from_log = _cases_from_log
_entry_points.notebook_progress = _notebook_progress
_entry_points.transcript_view = _transcript_view
_entry_points.adapt_foreign = _adapt_foreign
_entry_points.derive = _derive
_entry_points.mcp_inspect = _mcp_inspect


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext workbench``: register the magics and create the kernel's Workbench."""
    from workbench.jupyter import load_ipython_extension as _load

    _load(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    from workbench.jupyter import unload_ipython_extension as _unload

    _unload(ipython)
