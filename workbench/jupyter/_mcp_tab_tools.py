"""The inspector's **Tools** tab: a search, one dropdown of the server's tools and the selected tool's form."""

from __future__ import annotations

from typing import Any, Optional

import ipywidgets as W

from workbench._html import escape
from workbench._styles import BANNER_STYLE, MUTED
from workbench.jupyter._mcp_render import icons_html
from workbench.jupyter._mcp_tab import InspectorTab
from workbench.registry import rank_tools

__all__ = ["ToolsTab"]


class ToolsTab(InspectorTab):
    """``search``, ``picker``, ``forms`` (a ``ToolForm`` per tool shown so far), ``box`` (the shown form),
    ``icons``, ``removed_banner`` and ``skipped_html`` (tools the client cannot call, and why)."""

    def __init__(self, inspector: Any) -> None:
        self.picker = W.Dropdown(description="Tool", options=[])
        # a server may list hundreds of tools: one dropdown (narrowed by the search), a form per tool selected
        self.search = W.Text(placeholder="Search tools…", continuous_update=True)
        self.search.observe(lambda _change: self.refresh(), names="value")
        self.forms: dict[str, Any] = {}
        self.box = W.VBox()
        self.removed_banner = W.HTML(layout=W.Layout(display="none"))
        self.skipped_html = W.HTML()
        self.icons = W.HTML()  # the selected tool's icons (only safe https:/data:image sources)
        self.picker.observe(lambda change: self.show(change["new"]), names="value")
        super().__init__(
            inspector,
            [W.HBox([self.search, self.picker, self.icons]), self.removed_banner, self.box, self.skipped_html],
        )

    def refresh(self) -> None:
        proxies, skipped = self.connection.tool_listing()
        names = sorted(proxies)
        if self.search.value.strip():
            names = rank_tools(self.search.value, [(name, proxies[name].spec.description or "") for name in names])
        current = self.picker.value
        removed = [name for name, form in self.forms.items() if getattr(form.tool, "removed", False)]
        options = names + [name for name in removed if name not in names]
        self.picker.options = options
        if current in options:
            self.show(current)
        elif options:
            self.picker.value = options[0]
        self.skipped_html.value = "".join(
            f"<div style='color:{MUTED}'>not callable: <b>{escape(name)}</b> — {escape(reason)}</div>"
            for name, reason in skipped.items()
        )

    def show(self, name: Optional[str]) -> None:
        """Show tool ``name``'s form (built on first use, rebuilt for a new proxy of the same name)."""
        if not name:
            self.box.children = ()
            return
        form = self.forms.get(name)
        proxy = self.connection.proxies.get(name)
        if form is None or (proxy is not None and form.tool is not proxy):
            if proxy is None:
                return
            from workbench.jupyter._form import ToolForm

            form = self.forms[name] = ToolForm(proxy, self.workbench)
            form.on_reconnect = self.inspector.reconnect  # the whole view follows the new connection
        self.icons.value = icons_html(getattr(getattr(form.tool, "mcp_tool", None), "icons", None), 24, name)
        removed = bool(getattr(form.tool, "removed", False))
        form.run_button.disabled = removed or form.run_button.disabled
        self.removed_banner.value = (
            (f"<div style='{BANNER_STYLE}'>The server no longer lists <b>{escape(name)}</b>: it was removed.</div>")
            if removed
            else ""
        )
        self.removed_banner.layout.display = None if removed else "none"
        self.box.children = (form,)

    def forget_forms(self) -> None:
        """Drop the forms of the old proxies (after a reconnect: they stay disconnected)."""
        self.forms = {}
