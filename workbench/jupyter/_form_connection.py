"""``FormConnection``: a form whose tool's connection can end (an MCP server's proxy).

It follows the tool (anything whose class has ``on_disconnect(callback)``); once the server is gone it
shows a banner with a **Reconnect** button and disables Run. Reconnecting gives the form the new proxy of
the same name (``form.rebind(tool)``).
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, Callable, Optional

import ipywidgets as W

from workbench._html import escape as _e
from workbench._styles import BANNER_STYLE
from workbench.jupyter._widget_kit import WidgetKit

__all__ = ["FormConnection"]


class FormConnection:
    """The disconnected banner of one form (``box``: ``banner`` and ``button``) and its reconnecting.

    ``on_reconnect``: what the Reconnect button does instead of :meth:`reconnect` (a view owning the
    connection, e.g. the inspect view, reconnects itself and shows new forms).
    """

    def __init__(self, form: Any, kit: Optional[WidgetKit] = None) -> None:
        kit = kit or WidgetKit()
        self._form = weakref.ref(form)  # the tool's callback list must not keep the form alive
        self.disconnected = False
        self.on_reconnect: Optional[Callable[[], Any]] = None
        self._unwatch: Any = None
        self.banner = W.HTML(layout=W.Layout(display="none"), **kit.style(W.HTML))
        self.banner.add_class("workbench-disconnected")
        self.button = W.Button(
            description="Reconnect",
            icon="plug",
            button_style="primary",
            tooltip="Start the tool's MCP server again and run its new tools here",
            **kit.style(W.Button),
        )
        self.button.add_class("workbench-reconnect")
        self.button.on_click(lambda _b: self.click())
        self.box = W.VBox([self.banner, self.button], layout=W.Layout(display="none"))

    def watch(self, tool: Any) -> None:
        """Follow ``tool``'s connection (and no longer the previous tool's)."""
        self.unwatch()
        subscribe = getattr(type(tool), "on_disconnect", None)
        if not callable(subscribe):
            return

        def notify() -> None:
            if self._form() is not None:
                self.show()

        self._unwatch = subscribe(tool, notify)

    def unwatch(self) -> None:
        if self._unwatch is not None:
            self._unwatch()
            self._unwatch = None

    def show(self, problem: str = "") -> None:
        """Show the banner (with ``problem``: why reconnecting failed) and disable the form's Run."""
        form = self._form()
        if form is None:
            return
        connection = getattr(form.tool, "connection", None)
        label = getattr(connection, "label", None) or "its server"
        failed = f"<div style='margin-top:4px'><b>Reconnect failed</b>: {_e(problem)}</div>" if problem else ""
        self.banner.value = (
            f"<div style='{BANNER_STYLE}'><b>disconnected</b>: the MCP server <code>{_e(label)}</code> of this tool "
            "was disconnected, so it cannot run. <b>Reconnect</b> starts it again and runs its new tool here "
            f"(in code: <code>connection.reconnect()</code>).{failed}</div>"
        )
        form.set_runnable(False, "disconnected: the tool's MCP server is gone")  # before the banner shows
        form.add_class("workbench-form-disconnected")
        self.button.disabled = not callable(getattr(connection, "reconnect", None))
        self.button.description = "Reconnect"
        self.banner.layout.display = None
        self.box.layout.display = None
        self.disconnected = True  # last: the flag says the form shows it (the keepalive thread sets it)

    def hide(self) -> None:
        """Connected again: Run back, then no banner (whoever sees the banner gone finds Run enabled)."""
        form = self._form()
        self.disconnected = False
        if form is not None:
            form.set_runnable(True)
            form.remove_class("workbench-form-disconnected")
        self.banner.layout.display = "none"
        self.box.layout.display = "none"

    def reconnect(self, connect_timeout: Optional[float] = 30.0) -> Any:
        """Connect the tool's MCP server again and make the form run the new proxy of the same name."""
        form = self._form()
        if form is None:
            raise RuntimeError("the form of this connection was closed: nothing to reconnect")
        old, name = form.tool, form.spec.name
        connection = getattr(old, "connection", None)
        if connection is None or not callable(getattr(connection, "reconnect", None)):
            raise RuntimeError(f"'{name}' is not a tool of an MCP connection: nothing to reconnect")
        registry = getattr(connection, "registry", None) or form.workbench.registry
        current = registry.get(name)
        if current is not None and current is not old and getattr(current, "connected", False):
            fresh_tool = current
        else:
            fresh = connection.reconnect(connect_timeout=connect_timeout)
            fresh_tool = fresh.proxies.get(name) or registry.get(name)
            if fresh_tool is None:
                raise RuntimeError(
                    f"The MCP server {fresh.label} no longer lists '{name}' "
                    f"(it lists: {', '.join(fresh.tools) or 'nothing'})"
                )
        form.rebind(fresh_tool)
        return fresh_tool

    def click(self) -> None:
        """The button: reconnect on a worker thread (starting a server takes a while; the kernel stays
        responsive), then show the live form, or the reason in the banner — never raise."""
        form = self._form()
        self.button.disabled = True
        self.button.description = "Reconnecting…"
        action = self.on_reconnect or (form.reconnect if form is not None else self.reconnect)

        def work() -> None:
            try:
                action()
            except Exception as exc:  # noqa: BLE001 - a button must not raise into the kernel
                self.show(f"{type(exc).__name__}: {exc}")

        threading.Thread(target=work, name="workbench-reconnect", daemon=True).start()
