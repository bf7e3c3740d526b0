"""``McpInspector``: one MCP connection in tabs — Tools, Resources, Prompts, Tasks, Logs, Protocol,
Server — as MCP Inspector shows it, inside the notebook (made by :func:`workbench.jupyter.inspect`).

This module is the shell: a title with **Reconnect**, the server's waiting requests (sampling,
elicitation) above the tabs, and the tabs themselves, one class each (``_mcp_tab_*.py``). Each tab
reads the shell's current ``connection``, so a reconnect swaps the session under all of them.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Optional

import ipywidgets as W

from workbench._html import escape
from workbench._styles import BANNER_STYLE, MUTED
from workbench.jupyter._clickable import ViewStylesheet
from workbench.jupyter._mcp_requests import ElicitationPrompt, SamplingPrompt
from workbench.jupyter._mcp_tab import InspectorTab
from workbench.jupyter._mcp_tab_logs import LogsTab
from workbench.jupyter._mcp_tab_prompts import PromptsTab
from workbench.jupyter._mcp_tab_protocol import ProtocolTab
from workbench.jupyter._mcp_tab_resources import ResourcesTab, expand_uri_template
from workbench.jupyter._mcp_tab_server import ServerTab
from workbench.jupyter._mcp_tab_tasks import TasksTab
from workbench.jupyter._mcp_tab_tools import ToolsTab

__all__ = ["McpInspector", "TABS", "expand_uri_template"]

#: (title, tab class, attribute of the inspector holding it), in the tab strip's order
_TAB_CLASSES: tuple[tuple[str, Callable[[Any], InspectorTab], str], ...] = (
    ("Tools", ToolsTab, "tools_tab"),
    ("Resources", ResourcesTab, "resources_tab"),
    ("Prompts", PromptsTab, "prompts_tab"),
    ("Tasks", TasksTab, "tasks_tab"),
    ("Logs", LogsTab, "logs_tab"),
    ("Protocol", ProtocolTab, "protocol_tab"),
    ("Server", ServerTab, "server_tab"),
)
TABS = tuple(title for title, _cls, _attribute in _TAB_CLASSES)

#: the inspector's long-standing attribute names (code and tests use them) → (tab, the tab's attribute)
_ALIASES: dict[str, tuple[str, str]] = {
    "tool_picker": ("tools_tab", "picker"),
    "tool_search": ("tools_tab", "search"),
    "tool_forms": ("tools_tab", "forms"),
    "tool_box": ("tools_tab", "box"),
    "tool_icons": ("tools_tab", "icons"),
    "removed_banner": ("tools_tab", "removed_banner"),
    "skipped_html": ("tools_tab", "skipped_html"),
    "resource_picker": ("resources_tab", "picker"),
    "read_button": ("resources_tab", "read_button"),
    "subscribe_button": ("resources_tab", "subscribe_button"),
    "updates_html": ("resources_tab", "updates_html"),
    "resource_html": ("resources_tab", "html"),
    "resource_icons": ("resources_tab", "icons"),
    "template_picker": ("resources_tab", "template_picker"),
    "template_box": ("resources_tab", "template_box"),
    "template_form": ("resources_tab", "template_form"),
    "prompt_picker": ("prompts_tab", "picker"),
    "prompt_box": ("prompts_tab", "box"),
    "prompt_form": ("prompts_tab", "form"),
    "prompt_html": ("prompts_tab", "html"),
    "prompt_icons": ("prompts_tab", "icons"),
    "tasks_html": ("tasks_tab", "html"),
    "task_picker": ("tasks_tab", "picker"),
    "cancel_task_button": ("tasks_tab", "cancel_button"),
    "refresh_tasks_button": ("tasks_tab", "refresh_button"),
    "task_status": ("tasks_tab", "status"),
    "level_picker": ("logs_tab", "level_picker"),
    "level_button": ("logs_tab", "level_button"),
    "level_status": ("logs_tab", "level_status"),
    "logs_html": ("logs_tab", "html"),
    "protocol_list": ("protocol_tab", "entries"),
    "protocol_text": ("protocol_tab", "text"),
    "server_html": ("server_tab", "html"),
    "roots_text": ("server_tab", "roots_text"),
    "roots_button": ("server_tab", "roots_button"),
    "config_html": ("server_tab", "config_html"),
    "copy_entry_button": ("server_tab", "copy_entry_button"),
    "copy_file_button": ("server_tab", "copy_file_button"),
}


class McpInspector(W.VBox):
    """The tabbed view of one :class:`~workbench.mcp.McpConnection`.

    The tabs: ``tools_tab``, ``resources_tab``, ``prompts_tab``, ``tasks_tab``, ``logs_tab``,
    ``protocol_tab``, ``server_tab`` (see each class for its widgets). Their widgets also answer to
    the names this view always had (for code and tests): ``tool_picker``, ``tool_forms``,
    ``resource_picker``, ``read_button``, ``subscribe_button``, ``resource_html``, ``template_picker``,
    ``template_form``, ``prompt_picker``, ``prompt_form``, ``prompt_html``, ``tool_icons``,
    ``resource_icons``, ``prompt_icons``, ``tasks_html``, ``task_picker``, ``cancel_task_button``,
    ``level_picker``, ``logs_html``, ``protocol_list`` (``protocol_text``), ``server_html``,
    ``roots_text``, ``copy_entry_button`` / ``copy_file_button`` (the config export). The shell's own:
    ``connection``, ``tabs``, ``sampling_prompt``, ``elicitation_prompt``, ``header`` (the title and
    ``reconnect_button``, shown once the connection ended; ``reconnect()`` in code), ``reconnect_message``.
    """

    tools_tab: ToolsTab
    resources_tab: ResourcesTab
    prompts_tab: PromptsTab
    tasks_tab: TasksTab
    logs_tab: LogsTab
    protocol_tab: ProtocolTab
    server_tab: ServerTab

    def __init__(self, connection: Any, workbench: Any = None) -> None:
        if workbench is None:
            from workbench.jupyter._workbench import get_workbench

            workbench = get_workbench()
        self.connection = connection
        self.workbench = workbench
        self.sampling_prompt = SamplingPrompt()
        from workbench.jupyter._form import ToolForm

        self.elicitation_prompt = ElicitationPrompt(workbench, form_class=ToolForm)
        self.title = W.HTML()
        self.reconnect_button = W.Button(
            description="Reconnect",
            icon="plug",
            button_style="primary",
            tooltip="Start the MCP server again and show its new session here",
            layout=W.Layout(display="none", flex="0 0 auto"),
        )
        self.reconnect_button.add_class("workbench-mcp-reconnect")
        self.reconnect_button.on_click(lambda _b: self._click_reconnect())
        self.reconnect_message = W.HTML()
        self._unsubscribe: list[Callable[[], None]] = []

        pages = []
        for _title, cls, attribute in _TAB_CLASSES:
            page = cls(self)
            setattr(self, attribute, page)
            pages.append(page)
        self._pages: tuple[InspectorTab, ...] = tuple(pages)
        self.tools_tab.refresh()
        self.resources_tab.refresh()
        self.prompts_tab.refresh()
        self.tasks_tab.render()
        self.logs_tab.refresh()
        self.protocol_tab.refresh()
        self.server_tab.refresh()
        self.server_tab.show_config()
        self.tabs = W.Tab(children=pages, titles=TABS)
        self.tabs.add_class("workbench-mcp-tabs")
        # the button never shrinks under a long server label: the row wraps instead
        self.header = W.HBox(
            [self.title, self.reconnect_button], layout=W.Layout(align_items="center", flex_flow="row wrap")
        )
        super().__init__(
            [
                self.header,
                self.reconnect_message,
                self.sampling_prompt.widget,
                self.elicitation_prompt.widget,
                self.tabs,
                ViewStylesheet(),  # its own rules: a server with no tools shows no form, which loads them too
            ]
        )
        self.add_class("workbench-mcp-inspector")
        self._show_title()
        self._follow()

    def __getattr__(self, name: str) -> Any:
        alias = _ALIASES.get(name)
        if alias is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        tab, attribute = alias
        return getattr(getattr(self, tab), attribute)

    # -- what the tabs do, under the names this view always had ----------------------------------------
    def read(self, uri: Optional[str]) -> Any:
        """Read resource ``uri`` and show its contents (the Resources tab's Read button)."""
        return self.resources_tab.read(uri)

    def set_level(self, level: str) -> None:
        """Set the server's log level (the Logs tab's Set level button)."""
        self.logs_tab.set_level(level)

    def set_roots(self, text: str) -> None:
        """Offer the roots listed in ``text`` (one per line) and notify the server (the Server tab)."""
        self.server_tab.set_roots(text)

    def refresh_tasks(self) -> None:
        """Re-list the server's tasks and redraw the Tasks tab."""
        self.tasks_tab.refresh()

    def cancel_task(self, task_id: Optional[str]) -> None:
        """Send ``tasks/cancel`` for ``task_id`` (the Tasks tab's Cancel task button)."""
        self.tasks_tab.cancel(task_id)

    def _refresh_resources(self, refresh: bool = False) -> None:
        self.resources_tab.refresh(refresh=refresh)

    # -- following the connection ---------------------------------------------------------------------------
    def _show_title(self) -> None:
        info = self.connection.server_info
        name = getattr(info, "title", None) or getattr(info, "name", None) or self.connection.label
        connected = self.connection.connected
        state = "" if connected else " — <b>disconnected</b>"
        self.title.value = f"<b>MCP server</b> {escape(name)} <span style='color:{MUTED}'>{escape(self.connection.label)}</span>{state}"
        self.reconnect_button.layout.display = "none" if connected else None

    def _follow(self) -> None:
        connection = self.connection
        for page in self._pages:
            self._unsubscribe += page.follow(connection)
        self._unsubscribe += [connection.on_change(self._changed), connection.on_disconnect(self._disconnected)]

    def _changed(self, kind: str) -> None:
        """A list changed (called on the connection's thread, whose blocking calls would deadlock
        there): refresh that tab from a worker thread."""
        refresh = {
            "tools": self.tools_tab.refresh,
            "resources": self.resources_tab.refresh,
            "prompts": self.prompts_tab.refresh,
        }.get(kind)
        if refresh is None:
            return

        def run() -> None:
            try:
                refresh()
            except Exception:  # noqa: BLE001 - e.g. the connection closed meanwhile
                pass

        threading.Thread(target=run, name="workbench-mcp-refresh", daemon=True).start()

    def _disconnected(self) -> None:
        for page in self._pages:
            page.settle()
        self._show_title()
        self.server_tab.refresh()

    def reconnect(self, connect_timeout: Optional[float] = 30.0) -> Any:
        """Connect to the server again (``connection.reconnect()``: same command or URL, options and
        handlers) and show the new session in every tab; returns the new connection (what the
        **Reconnect** button of a disconnected view does). Resource subscriptions of the old session end."""
        fresh = self.connection.reconnect(connect_timeout=connect_timeout)
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe = []
        self.connection = fresh
        self.tools_tab.forget_forms()  # the forms of the old proxies stay disconnected: new ones for the new proxies
        self.resources_tab.forget_subscriptions()
        self.refresh()
        self.server_tab.show_config()
        self._show_title()
        self._follow()
        return fresh

    def _click_reconnect(self) -> None:
        """The button: reconnect on a worker thread (the kernel stays responsive while the server
        starts), then the live view, or the reason — never raise."""
        self.reconnect_button.disabled = True
        self.reconnect_button.description = "Reconnecting…"
        self.reconnect_message.value = ""

        def work() -> None:
            try:
                self.reconnect()
            except Exception as exc:  # noqa: BLE001 - a button must not raise into the kernel
                self.reconnect_message.value = (
                    f"<div style='{BANNER_STYLE}'><b>Reconnect failed</b>: "
                    f"{escape(type(exc).__name__)}: {escape(exc)}</div>"
                )
            finally:
                self.reconnect_button.disabled = False
                self.reconnect_button.description = "Reconnect"

        threading.Thread(target=work, name="workbench-mcp-reconnect", daemon=True).start()

    def refresh(self) -> None:
        """Re-read everything from the server (past the cache hints) and redraw every tab."""
        self.tools_tab.refresh()
        self.resources_tab.refresh(refresh=True)
        self.prompts_tab.refresh(refresh=True)
        for page in (self.tasks_tab, self.logs_tab, self.protocol_tab, self.server_tab):
            page.refresh()

    def close(self) -> None:
        """Stop following the connection and close the widgets (the connection stays open)."""
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe = []
        super().close()
