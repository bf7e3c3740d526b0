"""``ApprovalPrompt``: the Approve / Deny prompt of ``ASK_USER`` tools.

The executor's approver awaits ``prompt.ask(tool_use, tool)``; the prompt shows the call and waits on a
``concurrent.futures.Future`` that the buttons (or ``approve()``/``deny()``, from any thread) resolve.
Awaiting goes through ``asyncio.wrap_future``, so the kernel's event loop keeps running while the
user decides.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import threading
from typing import Any, Optional

import ipywidgets as W

from workbench._html import escape, pre

__all__ = ["ApprovalPrompt"]


class ApprovalPrompt:
    """A hidden box that appears while a call waits for approval."""

    def __init__(self) -> None:
        self.message = W.HTML()
        self.approve_button = W.Button(description="Approve", button_style="success", icon="check")
        self.deny_button = W.Button(description="Deny", button_style="danger", icon="times")
        self.approve_button.on_click(lambda _b: self.approve())
        self.deny_button.on_click(lambda _b: self.deny())
        self.widget = W.VBox(
            [self.message, W.HBox([self.approve_button, self.deny_button])],
            layout=W.Layout(
                display="none", border="1px solid var(--jp-warn-color1, darkorange)", padding="4px 8px", margin="4px 0"
            ),
        )
        self._lock = threading.Lock()
        self._future: Optional[concurrent.futures.Future] = None
        self.decisions: list[bool] = []  # every decision taken, in order
        self.asked = threading.Event()  # set while a request waits (tests and callers can wait on it)

    @property
    def pending(self) -> bool:
        """True while a call waits for a decision."""
        future = self._future
        return future is not None and not future.done()

    def request(self, tool_use: Any, tool: Any = None) -> concurrent.futures.Future:
        """Show the prompt for ``tool_use``; returns the future the buttons resolve."""
        name = tool_use.get("name", "") if isinstance(tool_use, dict) else str(tool_use)
        payload = json.dumps(
            tool_use.get("input", {}) if isinstance(tool_use, dict) else {}, indent=2, ensure_ascii=False, default=repr
        )
        self.message.value = (
            f"<b>Approval needed</b>: run <code>{escape(name)}</code> with"
            f"{pre(payload, 'white-space:pre-wrap;margin:2px 0')}"
        )
        future: concurrent.futures.Future = concurrent.futures.Future()
        with self._lock:
            previous, self._future = self._future, future
        if previous is not None and not previous.done():
            previous.set_result(False)  # a newer request supersedes an unanswered one
        self.widget.layout.display = None
        self.approve_button.disabled = self.deny_button.disabled = False
        self.asked.set()
        return future

    async def ask(self, tool_use: Any, tool: Any = None) -> bool:
        """Show the prompt and wait (without blocking the loop) for Approve or Deny."""
        future = self.request(tool_use, tool)
        try:
            return bool(await asyncio.wrap_future(future))
        finally:
            if not future.done():
                future.set_result(False)
            self._hide(future)

    __call__ = ask

    def approve(self) -> bool:
        """Approve the waiting call. Returns False if none was waiting."""
        return self._decide(True)

    def deny(self) -> bool:
        """Deny the waiting call. Returns False if none was waiting."""
        return self._decide(False)

    def _decide(self, decision: bool) -> bool:
        with self._lock:
            future = self._future
            if future is None or future.done():
                return False
            future.set_result(decision)
        self.decisions.append(decision)
        self._hide(future)
        return True

    def _hide(self, future: concurrent.futures.Future) -> None:
        with self._lock:
            if self._future is not future:
                return
            self._future = None
        self.asked.clear()
        self.widget.layout.display = "none"
        self.approve_button.disabled = self.deny_button.disabled = True
