"""What a server serves, found in what it was given: tools into a registry, ``@resource`` and
``@prompt`` declarations beside them (``python -m workbench.mcp serve module.py``)."""

from __future__ import annotations

import importlib
import types
from typing import Any

from workbench.mcp._served import Served, served_in

__all__ = ["collect"]


def _is_registry(obj: Any) -> bool:
    from workbench.registry import ToolRegistry

    return isinstance(obj, ToolRegistry) or (hasattr(obj, "get_tool") and hasattr(obj, "list_tools"))


def _module_of(item: Any) -> tuple[Any, bool]:
    """``(module, loaded_from_a_file)`` for a module or a module path / ``.py`` file; ``(None, False)``
    for what the registry takes as it is (tools, functions, ``module:function`` refs)."""
    from workbench.registry import is_tool_file, load_tool_file

    if isinstance(item, types.ModuleType):
        return item, False
    if not isinstance(item, str) or ":" in item:
        return None, False
    if is_tool_file(item):
        return load_tool_file(item), True
    try:
        return importlib.import_module(item), False
    except ImportError:
        return None, False  # the registry says what is wrong (with suggestions)


def collect(tools: Any) -> tuple[Any, list[Served]]:
    """A ``ToolRegistry`` and the resources and prompts of ``tools``: a registry (no declarations),
    a module path / ``module:function`` ref / ``.py`` file / module, a declaration, or a list of those."""
    from workbench.registry import ToolRegistry

    if _is_registry(tools):
        return tools, []
    registry, served = ToolRegistry(), []
    for item in list(tools) if isinstance(tools, (list, tuple)) else [tools]:
        if isinstance(item, Served):
            served.append(item)
            continue
        module, from_file = _module_of(item)
        if module is None:
            registry.process_tools([item])
            continue
        found = served_in(module)
        names = registry.process_module(module, dynamic=from_file, required=False)
        if not names and not found:
            raise ValueError(
                f"Module '{module.__name__}' defines no tools, resources or prompts "
                "(decorate functions with @tool, @resource or @prompt)"
            )
        served += found
    return registry, served
