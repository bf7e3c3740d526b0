"""The inspector's **Resources** tab: the server's resources (read, subscribe) and resource templates
(a form of the template's variables)."""

from __future__ import annotations

import re
from typing import Any, Callable, Optional
from urllib.parse import quote

import ipywidgets as W

from workbench._html import escape
from workbench._styles import BANNER_STYLE, MUTED
from workbench.jupyter._mcp_render import contents_html, icons_html
from workbench.jupyter._mcp_tab import InspectorTab, local_name

__all__ = ["ResourcesTab", "expand_uri_template"]

_VARIABLE = re.compile(r"\{([^{}]+)\}")


def expand_uri_template(template: str, values: dict[str, Any]) -> str:
    """RFC 6570 level 1 (``{name}``, percent-encoded), what MCP resource templates use."""
    return _VARIABLE.sub(lambda m: quote(str(values.get(m.group(1).strip(), "")), safe=""), template)


def _template_variables(template: str) -> list[str]:
    return list(dict.fromkeys(name.strip() for name in _VARIABLE.findall(template)))


class ResourcesTab(InspectorTab):
    """``picker``, ``read_button``, ``subscribe_button``, ``updates_html``, ``html`` (what was read),
    ``icons``, ``template_picker``, ``template_box`` and ``template_form``."""

    def __init__(self, inspector: Any) -> None:
        self.picker = W.Select(description="Resource", options=[], rows=8, layout=W.Layout(width="100%"))
        self.read_button = W.Button(description="Read", icon="eye", button_style="primary")
        self.subscribe_button = W.ToggleButton(
            description="Subscribe", icon="bell", tooltip="Follow notifications/resources/updated for this resource"
        )
        self.updates_html = W.HTML()
        self.html = W.HTML()
        self.html.add_class("workbench-mcp-resource")
        self.icons = W.HTML()
        self._resources: dict[str, Any] = {}
        self.template_picker = W.Dropdown(description="Template", options=[])
        self.template_box = W.VBox()
        self.template_form: Any = None
        self._subscriptions: dict[str, Callable[[], None]] = {}
        self._updates: dict[str, int] = {}
        self.read_button.on_click(lambda _b: self.read(self.picker.value))
        self.subscribe_button.observe(lambda change: self._toggle_subscription(change["new"]), names="value")
        self.picker.observe(lambda change: self.sync_subscribe_button(), names="value")
        self.picker.observe(lambda change: self._show_icons(), names="value")
        self.template_picker.observe(lambda change: self._show_template(change["new"]), names="value")
        super().__init__(
            inspector,
            [
                self.picker,
                W.HBox([self.read_button, self.subscribe_button, self.icons]),
                self.updates_html,
                W.HTML("<b>Resource templates</b>"),
                self.template_picker,
                self.template_box,
                self.html,
            ],
        )

    def refresh(self, refresh: bool = False) -> None:
        """Redraw the lists (``refresh=True``: past the connection's cache, from the server)."""
        if not self.supports("resources"):
            self.html.value = f"<i style='color:{MUTED}'>This server has no resources.</i>"
            return
        resources = self.connection.list_resources(refresh=refresh)
        self._resources = {str(r.uri): r for r in resources}
        self.picker.options = [(f"{r.name} — {r.uri}", str(r.uri)) for r in resources]
        templates = self.connection.list_resource_templates(refresh=refresh)
        self.template_picker.options = [(f"{t.name} — {t.uri_template}", t.uri_template) for t in templates]

    def _show_icons(self) -> None:
        resource = self._resources.get(self.picker.value or "")
        self.icons.value = icons_html(getattr(resource, "icons", None), 24, getattr(resource, "name", ""))

    def read(self, uri: Optional[str]) -> Any:
        """Read ``uri`` and show its contents (also what the Read button does)."""
        if not uri:
            return None
        try:
            result = self.connection.read_resource(uri)
        except Exception as exc:  # noqa: BLE001 - shown, not raised into the widget callback
            self.html.value = f"<div style='{BANNER_STYLE}'>{escape(type(exc).__name__)}: {escape(exc)}</div>"
            return None
        self.html.value = contents_html(result)
        return result

    def sync_subscribe_button(self) -> None:
        self.subscribe_button.value = self.picker.value in self._subscriptions

    def forget_subscriptions(self) -> None:
        """The subscriptions of an ended session (after a reconnect)."""
        self._subscriptions = {}
        self.sync_subscribe_button()

    def _toggle_subscription(self, on: bool) -> None:
        uri = self.picker.value
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
        if uri == self.picker.value:
            self.read(uri)

    def _show_updates(self) -> None:
        self.updates_html.value = "".join(
            f"<div style='color:{MUTED}'>subscribed: {escape(uri)} — {self._updates.get(uri, 0)} update(s)</div>"
            for uri in self._subscriptions
        )

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

        holder = tool(
            read_template,
            name=local_name("resource_", template),
            description=f"Read the resource {template}",
            parameters={
                "type": "object",
                "required": variables,
                "properties": {name: {"type": "string", "title": name} for name in variables},
            },
        )
        self.template_form = ToolForm(holder, self.workbench)
        self.template_box.children = (self.template_form,)
