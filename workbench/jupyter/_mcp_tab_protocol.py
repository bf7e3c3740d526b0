"""The inspector's **Protocol** tab: the session's JSON-RPC messages, newest first, each one folded."""

from __future__ import annotations

import threading
from typing import Any, Callable

import ipywidgets as W

from workbench._styles import MUTED
from workbench.jupyter._mcp_render import protocol_entry_html
from workbench.jupyter._mcp_tab import InspectorTab

__all__ = ["ProtocolTab", "PROTOCOL_LIMIT", "PROTOCOL_KEEP"]

PROTOCOL_LIMIT = 400  # messages the tab shows at most (the connection keeps more)…
PROTOCOL_KEEP = 250  # …and how many it keeps when it drops the oldest


class ProtocolTab(InspectorTab):
    """``entries`` (one HTML widget per message) and ``text`` (their HTML, newest first)."""

    def __init__(self, inspector: Any) -> None:
        # one HTML widget per message, appended oldest → newest and shown newest first by CSS
        # (column-reverse): the front end re-creates the views after the first changed child, so
        # appending keeps the ones shown as they are — an expanded message stays expanded
        self.entries = W.VBox(layout=W.Layout(flex_flow="column-reverse"))
        self.entries.add_class("workbench-mcp-protocol-list")
        self._shown: set[int] = set()
        self._lock = threading.Lock()
        super().__init__(
            inspector,
            [
                W.HTML(
                    f"<span style='color:{MUTED}'>JSON-RPC messages, newest first; "
                    "click one (or Tab to it and press Enter) to expand it.</span>"
                ),
                self.entries,
            ],
        )
        self._on_traffic = self.live(self.refresh)

    def refresh(self) -> None:
        with self._lock:
            new = [message for message in reversed(self.connection.messages) if id(message) not in self._shown]
            if not new:
                return
            self._shown.update(id(message) for message in new)
            entries = list(self.entries.children) + [W.HTML(protocol_entry_html(m)) for m in new]
            if len(entries) > PROTOCOL_LIMIT:  # drop the oldest in one go (that redraws the list)
                for old in entries[:-PROTOCOL_KEEP]:
                    old.close()
                entries = entries[-PROTOCOL_KEEP:]
            self.entries.children = tuple(entries)

    @property
    def text(self) -> str:
        """The tab's HTML, newest message first (for code and tests)."""
        return "".join(child.value for child in reversed(self.entries.children))

    def follow(self, connection: Any) -> list[Callable[[], None]]:
        return [connection.on_message(self._on_traffic)]
