"""The inspector's **Logs** tab: the server's log messages and notifications, newest first, and its log level."""

from __future__ import annotations

from typing import Any, Callable

import ipywidgets as W

from workbench._html import escape
from workbench._styles import MUTED
from workbench.jupyter._mcp_render import server_logs_html
from workbench.jupyter._mcp_tab import InspectorTab

__all__ = ["LogsTab"]


class LogsTab(InspectorTab):
    """``level_picker``, ``level_button``, ``level_status`` and ``html`` (the entries)."""

    def __init__(self, inspector: Any) -> None:
        from workbench.mcp._features import LOG_LEVELS

        self.level_picker = W.Dropdown(description="Level", options=LOG_LEVELS, value="info")
        self.level_button = W.Button(description="Set level", tooltip="logging/setLevel")
        self.level_button.on_click(lambda _b: self.set_level(self.level_picker.value))
        self.level_status = W.HTML()
        self.html = W.HTML()
        self.html.add_class("workbench-mcp-logs")
        super().__init__(inspector, [W.HBox([self.level_picker, self.level_button, self.level_status]), self.html])
        self._on_traffic = self.live(self.refresh)

    def set_level(self, level: str) -> None:
        """Set the server's log level (the Set level button): ``logging/setLevel`` before protocol
        2026-07-28, a per-call opt-in from it on."""
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        modern = self.connection.protocol_version in MODERN_PROTOCOL_VERSIONS
        if not modern and not self.supports("logging"):
            self.level_status.value = f"<span style='color:{MUTED}'>the server has no logging capability</span>"
            return
        self.connection.set_logging_level(level)
        how = " (sent with each tool call)" if modern else ""
        self.level_status.value = f"<span style='color:{MUTED}'>level: {escape(level)}{how}</span>"

    def refresh(self) -> None:
        entries = sorted(
            [*self.connection.server_logs, *self.connection.notifications], key=lambda entry: entry.time, reverse=True
        )
        self.html.value = server_logs_html(entries)

    def follow(self, connection: Any) -> list[Callable[[], None]]:
        return [
            connection.on_server_log(self._on_traffic),
            connection.on_notification(self._on_traffic),
        ]
