"""``workbench.mcp.inspect``: the notebook view of a connection, carried out by the notebook layer.

The MCP layer does not import the notebook layer (``tests/project/test_layers.py``); this forwarder calls
``workbench.jupyter.inspect`` through ``workbench._entry_points``, which imports it on first use.
"""

from __future__ import annotations

from typing import Any, Optional

from workbench import _entry_points

__all__ = ["inspect"]


def inspect(command: Any = None, *, url: Optional[str] = None, workbench: Any = None, **connect_options: Any) -> Any:
    """Connect to an MCP server and open its tabbed view in the notebook: the same as
    :func:`workbench.jupyter.inspect` (see there; needs ipywidgets)."""
    return _entry_points.mcp_inspect(command, url=url, workbench=workbench, **connect_options)
