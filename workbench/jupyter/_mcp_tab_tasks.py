"""The inspector's **Tasks** tab: the session's tasks, live, with Cancel task and Refresh."""

from __future__ import annotations

from typing import Any, Callable, Optional

import ipywidgets as W

from workbench._html import escape
from workbench._styles import BANNER_STYLE, MUTED
from workbench.jupyter._mcp_render import tasks_html
from workbench.jupyter._mcp_tab import InspectorTab

__all__ = ["TasksTab"]


class TasksTab(InspectorTab):
    """``html`` (the tasks table), ``picker`` (running tasks), ``cancel_button``, ``refresh_button``, ``status``."""

    def __init__(self, inspector: Any) -> None:
        self.html = W.HTML()
        self.html.add_class("workbench-mcp-tasks")
        self.picker = W.Dropdown(description="Task", options=[])
        self.cancel_button = W.Button(description="Cancel task", icon="stop", tooltip="tasks/cancel")
        self.refresh_button = W.Button(description="Refresh", icon="refresh", tooltip="tasks/list")
        self.status = W.HTML()
        self.cancel_button.on_click(lambda _b: self.cancel(self.picker.value))
        self.refresh_button.on_click(lambda _b: self.refresh())
        super().__init__(
            inspector, [W.HBox([self.picker, self.cancel_button, self.refresh_button]), self.status, self.html]
        )
        self._on_traffic = self.live(self.render)

    def render(self) -> None:
        """Redraw from the tasks the connection knows."""
        from workbench.mcp._tasks import TERMINAL

        tasks = self.connection.tasks
        self.html.value = tasks_html(tasks, self.connection.task_tool)
        running = [task.task_id for task in tasks if task.status not in TERMINAL]
        self.picker.options = running
        self.cancel_button.disabled = not running

    def refresh(self) -> None:
        """Re-list the server's tasks (``tasks/list``, or the ones this connection knows) and redraw."""
        try:
            self.connection.list_tasks()
        except Exception as exc:  # noqa: BLE001 - shown, not raised into the widget callback
            self.status.value = f"<div style='{BANNER_STYLE}'>{escape(type(exc).__name__)}: {escape(exc)}</div>"
        self.render()

    def cancel(self, task_id: Optional[str]) -> None:
        """Send ``tasks/cancel`` for ``task_id`` (the Cancel task button) and show its new status."""
        if not task_id:
            return
        try:
            task = self.connection.cancel_task(task_id)
            self.status.value = f"<span style='color:{MUTED}'>{escape(task_id)}: {escape(task.status)}</span>"
        except Exception as exc:  # noqa: BLE001
            self.status.value = f"<div style='{BANNER_STYLE}'>{escape(type(exc).__name__)}: {escape(exc)}</div>"
        self.render()

    def follow(self, connection: Any) -> list[Callable[[], None]]:
        return [connection.on_task(self._on_traffic)]
