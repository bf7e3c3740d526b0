"""The notebook layer: ``%load_ext workbench`` (magics), forms, the log table and the dashboard.

Importing this package imports ipywidgets, IPython and pandas; ``import workbench`` does not.

* ``get_workbench()`` — the kernel's :class:`Workbench` (registry + executor + log + UI).
* ``ui()`` — the dashboard: a searchable tool list, the selected tool's form (its own instance) and the log.
* :class:`ToolForm` — a tool's JSON Schema as widgets (the table is ``WIDGET_RULES``); ``form.run()``
  returns a :class:`PendingRun` where waiting for an approval click would deadlock a cell.
* ``playground(models)`` — chat with up to three models side by side, the workbench's tools in the loop
  (:class:`Playground`; each call a :class:`ToolCallCard`: its arguments, and the tool's form when it waits).
* ``inspect(command | transport | url=...)`` — an MCP server's connection as MCP Inspector's tabs
  (``workbench.mcp.inspect`` forwards here).
* :class:`LogTable` — the live execution-log table: newest first, paged from SQLite, sortable and
  filterable; click a row for the full call, load it into a form, re-run it or copy it as JSON.
"""

from __future__ import annotations

from typing import Any

from workbench.jupyter._approval import ApprovalPrompt
from workbench.jupyter._dashboard import Dashboard
from workbench.jupyter._field_table import (
    WIDGET_RULES,
    WIDGETS,
    WidgetRule,
    WidgetTable,
    build_field,
    register_widget_rule,
    register_widget_type,
    widget_table,
)
from workbench.jupyter._fields import MISSING, Field
from workbench.jupyter._form import PendingRun, ToolForm
from workbench.jupyter._log_table import LogTable
from workbench.jupyter._mcp_inspect import inspect
from workbench.jupyter._playground import Playground, PlaygroundRun
from workbench.jupyter._playground_card import ToolCallCard
from workbench.jupyter._widget_types import widget_field
from workbench.jupyter._workbench import VIEWS, Workbench, get_workbench, reset_workbench

__all__ = [
    "ApprovalPrompt",
    "Dashboard",
    "Field",
    "LogTable",
    "MISSING",
    "PendingRun",
    "Playground",
    "PlaygroundRun",
    "ToolCallCard",
    "ToolForm",
    "WIDGET_RULES",
    "WIDGETS",
    "WidgetRule",
    "WidgetTable",
    "register_widget_type",
    "widget_field",
    "Workbench",
    "build_field",
    "get_workbench",
    "inspect",
    "load_ipython_extension",
    "register_widget_rule",
    "playground",
    "reset_workbench",
    "ui",
    "unload_ipython_extension",
    "widget_table",
]


VIEWS.update(
    form=ToolForm, log_table=LogTable, dashboard=Dashboard, playground=Playground
)  # the Workbench's view factories


def ui() -> Dashboard:
    """The kernel's dashboard (``get_workbench().ui()``)."""
    return get_workbench().ui()


def playground(models: Any = None, *, tools: Any = None, system: Any = None, log: Any = None) -> Playground:
    """A model playground on the kernel's workbench (``get_workbench().playground(...)``)."""
    return get_workbench().playground(models, tools=tools, system=system, log=log)


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext workbench``: register the magics (once) and create the kernel's Workbench."""
    from workbench.jupyter._magics import load

    load(ipython)
    get_workbench()


def unload_ipython_extension(ipython: Any) -> None:
    """``%unload_ext workbench``: remove the magics (the Workbench and its tools stay)."""
    from workbench.jupyter._magics import unload

    unload(ipython)
