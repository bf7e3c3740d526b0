"""``workbench.jupyter.inspect``: connect to an MCP server and open its tabbed view in the notebook.

The notebook layer sits above the MCP layer: this module uses ``workbench.mcp`` and the notebook's
views; ``workbench.mcp.inspect`` forwards here through ``workbench._entry_points`` (so the MCP layer
never imports the notebook one).
"""

from __future__ import annotations

from typing import Any, Optional

from workbench.jupyter._form import ToolForm
from workbench.jupyter._mcp_inspector import McpInspector
from workbench.jupyter._mcp_requests import ElicitationPrompt, SamplingPrompt
from workbench.jupyter._workbench import get_workbench

__all__ = ["inspect"]


def inspect(
    command: Any = None, *, url: Optional[str] = None, workbench: Any = None, **connect_options: Any
) -> McpInspector:
    """Connect to an MCP server and return an :class:`~workbench.jupyter.McpInspector` of the
    connection: tabs Tools, Resources, Prompts, Logs, Protocol and Server, as MCP Inspector shows
    them. ``command`` and ``connect_options`` go to :func:`workbench.mcp.connect` (a command line, a
    transport object such as ``workbench.mcp.StdioTransport(...)``, ``url=``, ``token=``, ``auth=``,
    ``roots=``…). Without ``sampling=`` / ``elicitation=`` handlers the view answers those requests
    itself: an Approve/Reject prompt with an editable answer, and a form built from the requested
    schema. The server's tools are registered in the kernel's registry (the workbench's, so
    ``%tool_call`` and the log see them) and every call lands in its log.

    ``command`` may also be a live :class:`~workbench.mcp.McpConnection`: the view shows it as it is
    (its own handlers answer the server; no connect options then).

    ``view.connection`` is the connection (``view.connection.disconnect()`` ends it).
    """
    from workbench.mcp import McpConnection, connect

    if workbench is None:
        workbench = get_workbench()
    if isinstance(command, McpConnection):
        given = [f"{name}=" for name, value in (("url", url), *connect_options.items()) if value is not None]
        if given:
            raise ValueError(
                f"inspect(connection) shows a connection already made; {', '.join(given)} are "
                "connect() options: give them to workbench.mcp.connect(...)"
            )
        return McpInspector(command, workbench)
    sampling = connect_options.pop("sampling", None)
    elicitation = connect_options.pop("elicitation", None)
    sampling_prompt = SamplingPrompt() if sampling is None else None
    elicitation_prompt = ElicitationPrompt(workbench, form_class=ToolForm) if elicitation is None else None
    connect_options.setdefault("registry", workbench.registry)
    connect_options.setdefault("log", workbench.log)
    connect_options.setdefault("roots", [])  # the Server tab offers roots, as MCP Inspector does
    connection = connect(
        command,
        url=url,
        sampling=sampling or sampling_prompt,
        elicitation=elicitation or elicitation_prompt,
        **connect_options,
    )
    try:
        view = McpInspector(connection, workbench)
    except BaseException:
        connection.disconnect()
        raise
    # the view shows the prompts that answer the server (the ones the connection already uses)
    if sampling_prompt is not None:
        view.sampling_prompt = sampling_prompt
    if elicitation_prompt is not None:
        view.elicitation_prompt = elicitation_prompt
    view.children = (
        view.header,
        view.reconnect_message,
        view.sampling_prompt.widget,
        view.elicitation_prompt.widget,
        view.tabs,
    )
    return view
