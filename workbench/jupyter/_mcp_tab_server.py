"""The inspector's **Server** tab: what the server declared, its cache hints, the client's roots and
the ``mcpServers`` config export (MCP Inspector's "Server Entry" / "Servers File")."""

from __future__ import annotations

import json
import re
from typing import Any, Callable

import ipywidgets as W

from workbench._html import escape
from workbench._styles import MUTED
from workbench.jupyter._mcp_render import server_html
from workbench.jupyter._mcp_tab import InspectorTab

__all__ = ["ServerTab"]


class ServerTab(InspectorTab):
    """``html`` (the server's facts), ``roots_text``, ``roots_button``, ``copy_entry_button``,
    ``copy_file_button`` and ``config_html`` (the entry, folded)."""

    def __init__(self, inspector: Any) -> None:
        from workbench.jupyter._copy import CopyButton

        self.html = W.HTML()
        self.roots_text = W.Textarea(
            description="Roots",
            placeholder="one path or file:// URI per line",
            layout=W.Layout(width="100%", height="5em"),
        )
        self.roots_button = W.Button(description="Set roots", tooltip="Send notifications/roots/list_changed")
        self.roots_button.on_click(lambda _b: self.set_roots(self.roots_text.value))
        # connection.config(), secrets masked
        self.config_html = W.HTML()
        self.copy_entry_button = CopyButton(
            label="Server entry", hint="Copy this server's mcpServers entry (secrets as ${NAME})"
        )
        self.copy_file_button = CopyButton(
            label="Servers file", hint="Copy an mcpServers file with this server (secrets as ${NAME})"
        )
        super().__init__(
            inspector,
            [
                self.html,
                self.roots_text,
                self.roots_button,
                W.HBox([self.copy_entry_button, self.copy_file_button]),
                self.config_html,
            ],
        )
        self._on_traffic = self.live(self.refresh)  # the cache hints follow the traffic
        self.roots_text.value = "\n".join(str(root.uri) for root in self.connection.roots)

    def show_config(self) -> None:
        """Fill the config export from ``connection.config()`` (hidden for a connection it cannot describe)."""
        try:
            entry = self.connection.config()
        except (ValueError, AttributeError):  # a connection not made by connect(): nothing to export
            self.copy_entry_button.layout.display = self.copy_file_button.layout.display = "none"
            return
        info = self.connection.server_info
        name = re.sub(r"[^A-Za-z0-9_-]+", "-", getattr(info, "name", None) or "server").strip("-") or "server"
        self.copy_entry_button.text = json.dumps(entry, indent=2)
        self.copy_file_button.text = json.dumps({"mcpServers": {name: entry}}, indent=2)
        self.config_html.value = (
            f"<details><summary style='color:{MUTED}'>mcpServers entry</summary>"
            f"<pre style='white-space:pre-wrap'>{escape(self.copy_entry_button.text)}</pre>"
            "</details>"
        )

    def set_roots(self, text: str) -> None:
        """Offer the roots listed in ``text`` (one per line) and notify the server."""
        self.connection.set_roots([line.strip() for line in text.splitlines() if line.strip()])
        self.roots_text.value = "\n".join(str(root.uri) for root in self.connection.roots)

    def refresh(self) -> None:
        self.html.value = server_html(self.connection)

    def follow(self, connection: Any) -> list[Callable[[], None]]:
        return [connection.on_message(self._on_traffic)]
