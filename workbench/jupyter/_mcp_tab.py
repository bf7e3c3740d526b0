"""What every tab of the MCP inspector shares: the view it belongs to (whose connection changes on
a reconnect), the capability check, and the names local tools of the inspector take."""

from __future__ import annotations

import re
from typing import Any, Callable

import ipywidgets as W

from workbench.jupyter._throttle import Throttle

__all__ = ["InspectorTab", "local_name", "REFRESH"]

REFRESH = 0.25  # seconds between live refreshes of a tab that follows the connection's traffic


def local_name(prefix: str, text: str) -> str:
    """A tool name (≤ 64 characters of ``[a-zA-Z0-9_-]``) for a form the inspector builds."""
    return (prefix + re.sub(r"[^a-zA-Z0-9_-]", "_", text))[:64]


class InspectorTab(W.VBox):
    """One tab of an :class:`~workbench.jupyter._mcp_inspector.McpInspector`: a box of widgets that reads
    ``inspector.connection`` each time (a reconnect swaps it) and redraws on :meth:`refresh`."""

    def __init__(self, inspector: Any, children: list[Any]) -> None:
        self.inspector = inspector
        self._throttles: list[Throttle] = []
        super().__init__(children)

    def live(self, redraw: Callable[[], Any]) -> Callable[..., None]:
        """A listener for the connection's traffic that calls ``redraw``: at most every ``REFRESH``
        seconds while the session is open, and at once after it has ended. So the view is final when
        ``disconnect()`` returns — a redraw that came later would add widgets to a notebook the user
        has just saved, and JupyterLab would ask to save it again."""
        throttle = Throttle(redraw, REFRESH)
        self._throttles.append(throttle)

        def on_traffic(*_event: Any) -> None:
            throttle()
            if not self.connection.connected:
                throttle.flush()

        return on_traffic

    def settle(self) -> None:
        """Run the redraws the traffic listeners still hold back (the session has ended)."""
        for throttle in self._throttles:
            throttle.flush()

    @property
    def connection(self) -> Any:
        return self.inspector.connection

    @property
    def workbench(self) -> Any:
        return self.inspector.workbench

    def supports(self, capability: str) -> bool:
        """Whether the server declared ``capability`` (``resources``, ``prompts``, ``logging`` …)."""
        caps = self.connection.server_capabilities
        return caps is not None and getattr(caps, capability, None) is not None

    def refresh(self) -> None:
        """Re-read this tab's part of the session from the server and redraw it."""

    def follow(self, connection: Any) -> list[Callable[[], None]]:
        """Subscribe to the live parts of ``connection`` this tab shows; returns the unsubscribers."""
        return []
