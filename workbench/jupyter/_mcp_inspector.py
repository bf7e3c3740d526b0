"""``McpInspector``: one MCP connection in tabs — Tools, Resources, Prompts, Logs, Protocol, Server —
as MCP Inspector shows it, inside the notebook (made by :func:`workbench.mcp.inspect`).

Tool, prompt-argument and resource-template forms are ``ToolForm``s (the same schema → widget
table, validation, Run and log rows as any tool); server requests to the client (sampling,
elicitation) appear above the tabs while they wait. Live parts (logs, protocol) follow the
connection's records through throttled refreshes.
"""

from __future__ import annotations

import json
import re
import threading
from typing import Any, Optional
from urllib.parse import quote

import ipywidgets as W

from workbench._html import escape
from workbench._styles import BANNER_STYLE, MUTED
from workbench.jupyter._mcp_render import (
    contents_html,
    icons_html,
    messages_html,
    protocol_entry_html,
    server_html,
    server_logs_html,
    tasks_html,
)
from workbench.jupyter._mcp_requests import ElicitationPrompt, SamplingPrompt
from workbench.jupyter._throttle import Throttle
from workbench.registry import rank_tools

__all__ = ["McpInspector", "TABS", "expand_uri_template"]

TABS = ("Tools", "Resources", "Prompts", "Tasks", "Logs", "Protocol", "Server")
_REFRESH = 0.25  # seconds between live refreshes of the logs and protocol tabs
_PROTOCOL_LIMIT = 400  # messages the Protocol tab shows at most (the connection keeps more)…
_PROTOCOL_KEEP = 250  # …and how many it keeps when it drops the oldest
_VARIABLE = re.compile(r"\{([^{}]+)\}")


def expand_uri_template(template: str, values: dict[str, Any]) -> str:
    """RFC 6570 level 1 (``{name}``, percent-encoded), what MCP resource templates use."""
    return _VARIABLE.sub(lambda m: quote(str(values.get(m.group(1).strip(), "")), safe=""), template)


def _template_variables(template: str) -> list[str]:
    return list(dict.fromkeys(name.strip() for name in _VARIABLE.findall(template)))


def _local_name(prefix: str, text: str) -> str:
    return (prefix + re.sub(r"[^a-zA-Z0-9_-]", "_", text))[:64]


class McpInspector(W.VBox):
    """The tabbed view of one :class:`~workbench.mcp.McpConnection`.

    Attributes worth knowing (for code and tests): ``connection``, ``tabs``, ``tool_picker``,
    ``tool_forms``, ``resource_picker``, ``read_button``, ``subscribe_button``, ``resource_html``,
    ``template_picker``, ``template_form``, ``prompt_picker``, ``prompt_form``, ``prompt_html``,
    ``tool_icons``, ``resource_icons``, ``prompt_icons``, ``tasks_html``, ``task_picker``,
    ``cancel_task_button``, ``level_picker``, ``logs_html``, ``protocol_list`` (``protocol_text``),
    ``server_html``, ``roots_text``, ``copy_entry_button`` / ``copy_file_button`` (the config export),
    ``sampling_prompt``, ``elicitation_prompt``, ``header`` (the title and ``reconnect_button``, shown
    once the connection ended; ``reconnect()`` in code), ``reconnect_message``.
    """

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
        self.reconnect_button = W.Button(description="Reconnect", icon="plug", button_style="primary",
                                         tooltip="Start the MCP server again and show its new session here",
                                         layout=W.Layout(display="none", flex="0 0 auto"))
        self.reconnect_button.add_class("workbench-mcp-reconnect")
        self.reconnect_button.on_click(lambda _b: self._click_reconnect())
        self.reconnect_message = W.HTML()
        self._unsubscribe: list[Any] = []
        self._protocol_lock = threading.Lock()

        self._build_tools()
        self._build_resources()
        self._build_prompts()
        self._build_tasks()
        self._build_logs()
        self._build_protocol()
        self._build_server()
        self.tabs = W.Tab(children=[self.tools_tab, self.resources_tab, self.prompts_tab, self.tasks_tab,
                                    self.logs_tab, self.protocol_tab, self.server_tab], titles=TABS)
        self.tabs.add_class("workbench-mcp-tabs")
        # the button never shrinks under a long server label: the row wraps instead
        self.header = W.HBox([self.title, self.reconnect_button],
                             layout=W.Layout(align_items="center", flex_flow="row wrap"))
        super().__init__([self.header, self.reconnect_message, self.sampling_prompt.widget, self.elicitation_prompt.widget, self.tabs])
        self.add_class("workbench-mcp-inspector")
        self._show_title()
        self._follow()

    # -- tools -----------------------------------------------------------------------------------------
    def _build_tools(self) -> None:
        self.tool_picker = W.Dropdown(description="Tool", options=[])
        # a server may list hundreds of tools: one dropdown (narrowed by the search), a form per tool selected
        self.tool_search = W.Text(placeholder="Search tools…", continuous_update=True)
        self.tool_search.observe(lambda _change: self._refresh_tools(), names="value")
        self.tool_forms: dict[str, Any] = {}
        self.tool_box = W.VBox()
        self.removed_banner = W.HTML(layout=W.Layout(display="none"))
        self.skipped_html = W.HTML()
        self.tool_icons = W.HTML()  # the selected tool's icons (only safe https:/data:image sources)
        self.tool_picker.observe(lambda change: self._show_tool(change["new"]), names="value")
        self.tools_tab = W.VBox([W.HBox([self.tool_search, self.tool_picker, self.tool_icons]), self.removed_banner, self.tool_box,
                                 self.skipped_html])
        self._refresh_tools()

    def _refresh_tools(self) -> None:
        proxies, skipped = self.connection.tool_listing()
        names = sorted(proxies)
        if self.tool_search.value.strip():
            names = rank_tools(self.tool_search.value, [(name, proxies[name].spec.description or "") for name in names])
        current = self.tool_picker.value
        removed = [name for name, form in self.tool_forms.items() if getattr(form.tool, "removed", False)]
        options = names + [name for name in removed if name not in names]
        self.tool_picker.options = options
        if current in options:
            self._show_tool(current)
        elif options:
            self.tool_picker.value = options[0]
        self.skipped_html.value = "".join(
            f"<div style='color:{MUTED}'>not callable: <b>{escape(name)}</b> — {escape(reason)}</div>"
            for name, reason in skipped.items())

    def _show_tool(self, name: Optional[str]) -> None:
        if not name:
            self.tool_box.children = ()
            return
        form = self.tool_forms.get(name)
        proxy = self.connection.proxies.get(name)
        if form is None or (proxy is not None and form.tool is not proxy):
            if proxy is None:
                return
            from workbench.jupyter._form import ToolForm

            form = self.tool_forms[name] = ToolForm(proxy, self.workbench)
            form.on_reconnect = self.reconnect  # the whole view follows the new connection
        self.tool_icons.value = icons_html(getattr(getattr(form.tool, "mcp_tool", None), "icons", None), 24, name)
        removed = bool(getattr(form.tool, "removed", False))
        form.run_button.disabled = removed or form.run_button.disabled
        self.removed_banner.value = (f"<div style='{BANNER_STYLE}'>The server no longer lists <b>{escape(name)}</b>: "
                                     "it was removed.</div>") if removed else ""
        self.removed_banner.layout.display = None if removed else "none"
        self.tool_box.children = (form,)

    # -- resources --------------------------------------------------------------------------------------
    def _build_resources(self) -> None:
        self.resource_picker = W.Select(description="Resource", options=[], rows=8,
                                        layout=W.Layout(width="100%"))
        self.read_button = W.Button(description="Read", icon="eye", button_style="primary")
        self.subscribe_button = W.ToggleButton(description="Subscribe", icon="bell",
                                               tooltip="Follow notifications/resources/updated for this resource")
        self.updates_html = W.HTML()
        self.resource_html = W.HTML()
        self.resource_html.add_class("workbench-mcp-resource")
        self.resource_icons = W.HTML()
        self._resources: dict[str, Any] = {}
        self.template_picker = W.Dropdown(description="Template", options=[])
        self.template_box = W.VBox()
        self.template_form: Any = None
        self._subscriptions: dict[str, Any] = {}
        self._updates: dict[str, int] = {}
        self.read_button.on_click(lambda _b: self.read(self.resource_picker.value))
        self.subscribe_button.observe(lambda change: self._toggle_subscription(change["new"]), names="value")
        self.resource_picker.observe(lambda change: self._sync_subscribe_button(), names="value")
        self.resource_picker.observe(lambda change: self._show_resource_icons(), names="value")
        self.template_picker.observe(lambda change: self._show_template(change["new"]), names="value")
        self.resources_tab = W.VBox([
            self.resource_picker, W.HBox([self.read_button, self.subscribe_button, self.resource_icons]),
            self.updates_html,
            W.HTML("<b>Resource templates</b>"), self.template_picker, self.template_box, self.resource_html])
        self._refresh_resources()

    def _supports(self, capability: str) -> bool:
        caps = self.connection.server_capabilities
        return caps is not None and getattr(caps, capability, None) is not None

    def _refresh_resources(self, refresh: bool = False) -> None:
        if not self._supports("resources"):
            self.resource_html.value = f"<i style='color:{MUTED}'>This server has no resources.</i>"
            return
        resources = self.connection.list_resources(refresh=refresh)
        self._resources = {str(r.uri): r for r in resources}
        self.resource_picker.options = [(f"{r.name} — {r.uri}", str(r.uri)) for r in resources]
        templates = self.connection.list_resource_templates(refresh=refresh)
        self.template_picker.options = [(f"{t.name} — {t.uri_template}", t.uri_template) for t in templates]

    def _show_resource_icons(self) -> None:
        resource = self._resources.get(self.resource_picker.value or "")
        self.resource_icons.value = icons_html(getattr(resource, "icons", None), 24, getattr(resource, "name", ""))

    def read(self, uri: Optional[str]) -> Any:
        """Read ``uri`` and show its contents (also what the Read button does)."""
        if not uri:
            return None
        try:
            result = self.connection.read_resource(uri)
        except Exception as exc:  # noqa: BLE001 - shown, not raised into the widget callback
            self.resource_html.value = f"<div style='{BANNER_STYLE}'>{escape(type(exc).__name__)}: {escape(exc)}</div>"
            return None
        self.resource_html.value = contents_html(result)
        return result

    def _sync_subscribe_button(self) -> None:
        self.subscribe_button.value = self.resource_picker.value in self._subscriptions

    def _toggle_subscription(self, on: bool) -> None:
        uri = self.resource_picker.value
        if not uri:
            return
        if on and uri not in self._subscriptions:
            self._subscriptions[uri] = self.connection.subscribe_resource(uri, self._resource_updated)
        elif not on and uri in self._subscriptions:
            self._subscriptions.pop(uri)()
        self._show_updates()

    def _resource_updated(self, uri: str) -> None:
        self._updates[uri] = self._updates.get(uri, 0) + 1
        self._show_updates()
        if uri == self.resource_picker.value:
            self.read(uri)

    def _show_updates(self) -> None:
        self.updates_html.value = "".join(
            f"<div style='color:{MUTED}'>subscribed: {escape(uri)} — {self._updates.get(uri, 0)} update(s)</div>"
            for uri in self._subscriptions)

    def _show_template(self, template: Optional[str]) -> None:
        if not template:
            self.template_box.children = ()
            return
        from workbench.jupyter._form import ToolForm
        from workbench.tools import tool

        variables = _template_variables(template)

        def read_template(**values: Any) -> Any:
            result = self.read(expand_uri_template(template, values))
            return None if result is None else [c.model_dump(mode="json", exclude_none=True) for c in result.contents]

        holder = tool(read_template, name=_local_name("resource_", template),
                      description=f"Read the resource {template}",
                      parameters={"type": "object", "required": variables,
                                  "properties": {name: {"type": "string", "title": name} for name in variables}})
        self.template_form = ToolForm(holder, self.workbench)
        self.template_box.children = (self.template_form,)

    # -- prompts ------------------------------------------------------------------------------------------
    def _build_prompts(self) -> None:
        self.prompt_picker = W.Dropdown(description="Prompt", options=[])
        self.prompt_box = W.VBox()
        self.prompt_form: Any = None
        self.prompt_html = W.HTML()
        self.prompt_html.add_class("workbench-mcp-prompt")
        self.prompt_icons = W.HTML()
        self._prompts: dict[str, Any] = {}
        self.prompt_picker.observe(lambda change: self._show_prompt(change["new"]), names="value")
        self.prompts_tab = W.VBox([W.HBox([self.prompt_picker, self.prompt_icons]), self.prompt_box, self.prompt_html])
        self._refresh_prompts()

    def _refresh_prompts(self, refresh: bool = False) -> None:
        if not self._supports("prompts"):
            self.prompt_html.value = f"<i style='color:{MUTED}'>This server has no prompts.</i>"
            return
        self._prompts = {p.name: p for p in self.connection.list_prompts(refresh=refresh)}
        current = self.prompt_picker.value
        self.prompt_picker.options = list(self._prompts)
        if current in self._prompts:
            self._show_prompt(current)

    def _show_prompt(self, name: Optional[str]) -> None:
        prompt = self._prompts.get(name or "")
        self.prompt_icons.value = icons_html(getattr(prompt, "icons", None), 24, name or "")
        if prompt is None:
            self.prompt_box.children = ()
            return
        from workbench.jupyter._form import ToolForm
        from workbench.tools import tool

        arguments = list(prompt.arguments or [])

        def get_prompt(**values: Any) -> Any:
            result = self.connection.get_prompt(prompt.name, {k: str(v) for k, v in values.items()})
            self.prompt_html.value = messages_html(result)
            return [m.model_dump(mode="json", exclude_none=True) for m in result.messages]

        holder = tool(get_prompt, name=_local_name("prompt_", prompt.name),
                      description=prompt.description or f"The prompt {prompt.name}",
                      parameters={"type": "object", "required": [a.name for a in arguments if a.required],
                                  "properties": {a.name: {"type": "string", "description": a.description or ""}
                                                 for a in arguments}})
        self.prompt_form = ToolForm(holder, self.workbench)
        self.prompt_box.children = (self.prompt_form,)

    # -- tasks ----------------------------------------------------------------------------------------------
    def _build_tasks(self) -> None:
        self.tasks_html = W.HTML()
        self.tasks_html.add_class("workbench-mcp-tasks")
        self.task_picker = W.Dropdown(description="Task", options=[])
        self.cancel_task_button = W.Button(description="Cancel task", icon="stop", tooltip="tasks/cancel")
        self.refresh_tasks_button = W.Button(description="Refresh", icon="refresh", tooltip="tasks/list")
        self.task_status = W.HTML()
        self.cancel_task_button.on_click(lambda _b: self.cancel_task(self.task_picker.value))
        self.refresh_tasks_button.on_click(lambda _b: self.refresh_tasks())
        self.tasks_tab = W.VBox([W.HBox([self.task_picker, self.cancel_task_button, self.refresh_tasks_button]),
                                 self.task_status, self.tasks_html])
        self._tasks_refresh = Throttle(self._render_tasks, _REFRESH)
        self._render_tasks()

    def _render_tasks(self) -> None:
        from workbench.mcp._tasks import TERMINAL

        tasks = self.connection.tasks
        self.tasks_html.value = tasks_html(tasks, self.connection.task_tool)
        running = [task.task_id for task in tasks if task.status not in TERMINAL]
        self.task_picker.options = running
        self.cancel_task_button.disabled = not running

    def refresh_tasks(self) -> None:
        """Re-list the server's tasks (``tasks/list``, or the ones this connection knows) and redraw."""
        try:
            self.connection.list_tasks()
        except Exception as exc:  # noqa: BLE001 - shown, not raised into the widget callback
            self.task_status.value = f"<div style='{BANNER_STYLE}'>{escape(type(exc).__name__)}: {escape(exc)}</div>"
        self._render_tasks()

    def cancel_task(self, task_id: Optional[str]) -> None:
        """Send ``tasks/cancel`` for ``task_id`` (the Cancel task button) and show its new status."""
        if not task_id:
            return
        try:
            task = self.connection.cancel_task(task_id)
            self.task_status.value = f"<span style='color:{MUTED}'>{escape(task_id)}: {escape(task.status)}</span>"
        except Exception as exc:  # noqa: BLE001
            self.task_status.value = f"<div style='{BANNER_STYLE}'>{escape(type(exc).__name__)}: {escape(exc)}</div>"
        self._render_tasks()

    # -- logs and notifications --------------------------------------------------------------------------
    def _build_logs(self) -> None:
        from workbench.mcp._features import LOG_LEVELS

        self.level_picker = W.Dropdown(description="Level", options=LOG_LEVELS, value="info")
        self.level_button = W.Button(description="Set level", tooltip="logging/setLevel")
        self.level_button.on_click(lambda _b: self.set_level(self.level_picker.value))
        self.level_status = W.HTML()
        self.logs_html = W.HTML()
        self.logs_html.add_class("workbench-mcp-logs")
        self.logs_tab = W.VBox([W.HBox([self.level_picker, self.level_button, self.level_status]), self.logs_html])
        self._logs_refresh = Throttle(self._render_logs, _REFRESH)
        self._render_logs()

    def set_level(self, level: str) -> None:
        """Set the server's log level (the Set level button): ``logging/setLevel`` before protocol
        2026-07-28, a per-call opt-in from it on."""
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        modern = self.connection.protocol_version in MODERN_PROTOCOL_VERSIONS
        if not modern and not self._supports("logging"):
            self.level_status.value = f"<span style='color:{MUTED}'>the server has no logging capability</span>"
            return
        self.connection.set_logging_level(level)
        how = " (sent with each tool call)" if modern else ""
        self.level_status.value = f"<span style='color:{MUTED}'>level: {escape(level)}{how}</span>"

    def _render_logs(self) -> None:
        entries = sorted([*self.connection.server_logs, *self.connection.notifications],
                         key=lambda entry: entry.time, reverse=True)
        self.logs_html.value = server_logs_html(entries)

    # -- protocol --------------------------------------------------------------------------------------------
    def _build_protocol(self) -> None:
        # one HTML widget per message, appended oldest → newest and shown newest first by CSS
        # (column-reverse): the front end re-creates the views after the first changed child, so
        # appending keeps the ones shown as they are — an expanded message stays expanded
        self.protocol_list = W.VBox(layout=W.Layout(flex_flow="column-reverse"))
        self.protocol_list.add_class("workbench-mcp-protocol-list")
        self._shown: set[int] = set()
        self.protocol_tab = W.VBox([W.HTML(f"<span style='color:{MUTED}'>JSON-RPC messages, newest first; "
                                           "click one to expand it.</span>"), self.protocol_list])
        self._protocol_refresh = Throttle(self._render_protocol, _REFRESH)
        self._render_protocol()

    def _render_protocol(self) -> None:
        with self._protocol_lock:
            new = [message for message in reversed(self.connection.messages) if id(message) not in self._shown]
            if not new:
                return
            self._shown.update(id(message) for message in new)
            entries = list(self.protocol_list.children) + [W.HTML(protocol_entry_html(m)) for m in new]
            if len(entries) > _PROTOCOL_LIMIT:  # drop the oldest in one go (that redraws the list)
                for old in entries[:-_PROTOCOL_KEEP]:
                    old.close()
                entries = entries[-_PROTOCOL_KEEP:]
            self.protocol_list.children = tuple(entries)

    @property
    def protocol_text(self) -> str:
        """The Protocol tab's HTML, newest message first (for code and tests)."""
        return "".join(child.value for child in reversed(self.protocol_list.children))

    # -- server ------------------------------------------------------------------------------------------------
    def _build_server(self) -> None:
        self.server_html = W.HTML()
        self.roots_text = W.Textarea(description="Roots", placeholder="one path or file:// URI per line",
                                     layout=W.Layout(width="100%", height="5em"))
        self.roots_button = W.Button(description="Set roots", tooltip="Send notifications/roots/list_changed")
        self.roots_button.on_click(lambda _b: self.set_roots(self.roots_text.value))
        from workbench.jupyter._copy import CopyButton

        # MCP Inspector's "Server Entry" / "Servers File" exports: connection.config(), secrets masked
        self.config_html = W.HTML()
        self.copy_entry_button = CopyButton(label="Server entry",
                                            hint="Copy this server's mcpServers entry (secrets as ${NAME})")
        self.copy_file_button = CopyButton(label="Servers file",
                                           hint="Copy an mcpServers file with this server (secrets as ${NAME})")
        self.server_tab = W.VBox([self.server_html, self.roots_text, self.roots_button,
                                  W.HBox([self.copy_entry_button, self.copy_file_button]), self.config_html])
        self._server_refresh = Throttle(self._render_server, _REFRESH)  # the cache hints follow the traffic
        self.roots_text.value = "\n".join(str(root.uri) for root in self.connection.roots)
        self._render_server()
        self._show_config()

    def _show_config(self) -> None:
        try:
            entry = self.connection.config()
        except (ValueError, AttributeError):  # a connection not made by connect(): nothing to export
            self.copy_entry_button.layout.display = self.copy_file_button.layout.display = "none"
            return
        info = self.connection.server_info
        name = re.sub(r"[^A-Za-z0-9_-]+", "-", getattr(info, "name", None) or "server").strip("-") or "server"
        self.copy_entry_button.text = json.dumps(entry, indent=2)
        self.copy_file_button.text = json.dumps({"mcpServers": {name: entry}}, indent=2)
        self.config_html.value = (f"<details><summary style='color:{MUTED}'>mcpServers entry</summary>"
                                  f"<pre style='white-space:pre-wrap'>{escape(self.copy_entry_button.text)}</pre>"
                                  "</details>")

    def set_roots(self, text: str) -> None:
        """Offer the roots listed in ``text`` (one per line) and notify the server."""
        self.connection.set_roots([line.strip() for line in text.splitlines() if line.strip()])
        self.roots_text.value = "\n".join(str(root.uri) for root in self.connection.roots)

    def _render_server(self) -> None:
        self.server_html.value = server_html(self.connection)

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
        self._unsubscribe += [
            connection.on_server_log(lambda _entry: self._logs_refresh()),
            connection.on_notification(lambda _n: self._logs_refresh()),
            connection.on_message(lambda _m: self._protocol_refresh()),
            connection.on_message(lambda _m: self._server_refresh()),
            connection.on_task(lambda _t: self._tasks_refresh()),
            connection.on_change(self._changed),
            connection.on_disconnect(self._disconnected),
        ]

    def _changed(self, kind: str) -> None:
        """A list changed (called on the connection's thread, whose blocking calls would deadlock
        there): refresh that tab from a worker thread."""
        refresh = {"tools": self._refresh_tools, "resources": self._refresh_resources,
                   "prompts": self._refresh_prompts}.get(kind)
        if refresh is None:
            return

        def run() -> None:
            try:
                refresh()
            except Exception:  # noqa: BLE001 - e.g. the connection closed meanwhile
                pass

        threading.Thread(target=run, name="workbench-mcp-refresh", daemon=True).start()

    def _disconnected(self) -> None:
        self._show_title()
        self._render_server()

    def reconnect(self, connect_timeout: Optional[float] = 30.0) -> Any:
        """Connect to the server again (``connection.reconnect()``: same command or URL, options and
        handlers) and show the new session in every tab; returns the new connection (what the
        **Reconnect** button of a disconnected view does). Resource subscriptions of the old session end."""
        fresh = self.connection.reconnect(connect_timeout=connect_timeout)
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe = []
        self._subscriptions = {}
        self.connection = fresh
        self.tool_forms = {}  # the forms of the old proxies stay disconnected: new ones for the new proxies
        self.refresh()
        self._sync_subscribe_button()
        self._show_config()
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
                self.reconnect_message.value = (f"<div style='{BANNER_STYLE}'><b>Reconnect failed</b>: "
                                                f"{escape(type(exc).__name__)}: {escape(exc)}</div>")
            finally:
                self.reconnect_button.disabled = False
                self.reconnect_button.description = "Reconnect"

        threading.Thread(target=work, name="workbench-mcp-reconnect", daemon=True).start()

    def refresh(self) -> None:
        """Re-read everything from the server (past the cache hints) and redraw every tab."""
        self._refresh_tools()
        self._refresh_resources(refresh=True)
        self._refresh_prompts(refresh=True)
        self.refresh_tasks()
        self._render_logs()
        self._render_protocol()
        self._render_server()

    def close(self) -> None:
        """Stop following the connection and close the widgets (the connection stays open)."""
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe = []
        super().close()
