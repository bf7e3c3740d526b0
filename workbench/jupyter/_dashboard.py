"""``Dashboard``: ``workbench.ui()`` — a tab per tool's form plus the execution log."""

from __future__ import annotations

import threading
from typing import Any

import ipywidgets as W

__all__ = ["Dashboard", "LOG_TAB_TITLE"]

LOG_TAB_TITLE = "Log"


class Dashboard(W.Tab):
    """Tabs follow the registry: registering, replacing or removing a tool updates them."""

    def __init__(self, workbench: Any) -> None:
        self.workbench = workbench
        self.log_table = workbench.log_table()
        self._refresh_lock = threading.RLock()
        self._order: list[str] = []  # tab order: first registration wins, replacing a tool keeps its tab
        super().__init__()
        self.refresh()
        self._unsubscribe = workbench.registry.on_change(lambda event, name: self.refresh())

    def refresh(self) -> None:
        """Rebuild the tabs from the registry (keeps the selected tab when it still exists)."""
        with self._refresh_lock:
            titles_before = list(self.titles)
            selected = titles_before[self.selected_index] if self.selected_index is not None and self.selected_index < len(titles_before) else None
            registry = self.workbench.registry
            names = registry.list_tools()
            self._order = [n for n in self._order if n in names] + [n for n in names if n not in self._order]
            forms = []
            for tool in (registry.get(n) for n in self._order):
                try:
                    forms.append((tool.tool_name, self.workbench.form(tool)))
                except Exception as exc:  # noqa: BLE001 - one broken tool must not break the dashboard
                    import html

                    forms.append((tool.tool_name, W.HTML(f"<i>{html.escape(f'cannot build the form: {exc}')}</i>")))
            titles = [name for name, _ in forms] + [LOG_TAB_TITLE]
            self.children = [widget for _, widget in forms] + [self.log_table]
            self.titles = tuple(titles)
            self.selected_index = titles.index(selected) if selected in titles else 0

    def close(self) -> None:
        unsubscribe = getattr(self, "_unsubscribe", None)
        if unsubscribe is not None:
            unsubscribe()
            self._unsubscribe = None
        super().close()
