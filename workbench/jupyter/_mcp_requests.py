"""The notebook's default answers to an MCP server's requests to the client.

* :class:`SamplingPrompt` — ``sampling/createMessage``: shows the request's messages and an
  editable answer; Approve sends it, Reject sends the server an error.
* :class:`ElicitationPrompt` — ``elicitation/create``: a form built from the requested schema by
  the same schema → widget table as tool forms (form mode), or the URL to open (URL mode), with
  Accept / Decline / Cancel.

Both are handlers for :func:`workbench.mcp.connect` (``sampling=``, ``elicitation=``): the
connection calls them in a worker thread and they wait for a click (or ``answer(...)`` from code),
so the kernel stays responsive meanwhile.
"""

from __future__ import annotations

import concurrent.futures
import threading
from typing import Any, Optional

import ipywidgets as W

from workbench._html import escape
from workbench._styles import MUTED
from workbench.jupyter._mcp_render import messages_html

__all__ = ["ElicitationPrompt", "SamplingPrompt"]

_BOX = dict(display="none", border="1px solid var(--jp-warn-color1, darkorange)", padding="4px 8px", margin="4px 0")


class _WaitingPrompt:
    """A hidden box shown while one request waits; the buttons resolve its future."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._future: Optional[concurrent.futures.Future] = None
        self.asked = threading.Event()  # set while a request waits (tests and callers can wait on it)
        self.timeout: Optional[float] = None  # seconds a request waits before it is cancelled

    @property
    def pending(self) -> bool:
        future = self._future
        return future is not None and not future.done()

    def _wait(self) -> Any:
        future: concurrent.futures.Future = concurrent.futures.Future()
        with self._lock:
            previous, self._future = self._future, future
        if previous is not None and not previous.done():
            previous.set_result(self._superseded())
        self._show()
        self.asked.set()
        try:
            return future.result(self.timeout)
        except concurrent.futures.TimeoutError:
            return self._superseded()
        finally:
            with self._lock:
                if self._future is future:
                    self._future = None
                    self.asked.clear()
                    self._hide()

    def _resolve(self, value: Any) -> bool:
        with self._lock:
            future = self._future
            if future is None or future.done():
                return False
            future.set_result(value)
        return True

    def _superseded(self) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    def _show(self) -> None:
        self.widget.layout.display = None  # type: ignore[attr-defined]

    def _hide(self) -> None:
        self.widget.layout.display = "none"  # type: ignore[attr-defined]


class SamplingPrompt(_WaitingPrompt):
    """Approve / edit / reject a server's ``sampling/createMessage`` request."""

    def __init__(self) -> None:
        super().__init__()
        self.request_html = W.HTML()
        self.answer = W.Textarea(
            placeholder="The answer to send back as the assistant's message",
            layout=W.Layout(width="100%", height="5em"),
        )
        self.approve_button = W.Button(
            description="Approve", button_style="success", icon="check", tooltip="Send the answer above to the server"
        )
        self.reject_button = W.Button(
            description="Reject",
            button_style="danger",
            icon="times",
            tooltip="Tell the server the user rejected the request",
        )
        self.approve_button.on_click(lambda _b: self.approve())
        self.reject_button.on_click(lambda _b: self.reject())
        self.widget = W.VBox(
            [self.request_html, self.answer, W.HBox([self.approve_button, self.reject_button])], layout=W.Layout(**_BOX)
        )
        self.widget.add_class("workbench-mcp-sampling")
        self.last_request: Any = None

    def __call__(self, params: Any) -> Any:
        """The connection's handler: show the request, wait for a decision."""
        import mcp.types as types

        self.last_request = params
        system = getattr(params, "system_prompt", None)
        head = "<b>The server asks for a model answer</b> (sampling/createMessage)"
        if system:
            head += f"<div style='color:{MUTED}'>system: {escape(system)}</div>"
        self.request_html.value = head + messages_html(params)
        self.answer.value = ""
        decision = self._wait()
        if decision is None:
            return types.ErrorData(code=types.INVALID_REQUEST, message="the user rejected the sampling request")
        return decision

    def approve(self, text: Optional[str] = None) -> bool:
        """Send ``text`` (default: the answer box) as the assistant's message."""
        return self._resolve(self.answer.value if text is None else text)

    def reject(self) -> bool:
        """Refuse the waiting request."""
        return self._resolve(None)

    def _superseded(self) -> Any:
        return None


class ElicitationPrompt(_WaitingPrompt):
    """Accept / decline / cancel a server's ``elicitation/create`` request."""

    def __init__(self, workbench: Any = None, asker: str = "The server", *, form_class: Any) -> None:
        super().__init__()
        self.workbench = workbench
        # the tool-form class the requested schema is shown with (``ToolForm``), given by the caller:
        # this module sits below the form module, which builds these prompts for a tool's own questions
        self.form_class = form_class
        self.asker = asker  # who the header says asks: the server, or (in a tool's form) the tool
        self.message = W.HTML()
        self.form_box = W.VBox()
        self.form: Any = None
        self.accept_button = W.Button(description="Accept", button_style="success", icon="check")
        self.decline_button = W.Button(description="Decline", icon="times")
        self.cancel_button = W.Button(description="Cancel", icon="ban")
        self.accept_button.on_click(lambda _b: self.accept())
        self.decline_button.on_click(lambda _b: self.decline())
        self.cancel_button.on_click(lambda _b: self.cancel())
        self.widget = W.VBox(
            [self.message, self.form_box, W.HBox([self.accept_button, self.decline_button, self.cancel_button])],
            layout=W.Layout(**_BOX),
        )
        self.widget.add_class("workbench-mcp-elicitation")
        self.last_request: Any = None

    def __call__(self, params: Any) -> Any:
        """The connection's handler: show the form (or URL), wait for a decision."""
        self.last_request = params
        text = f"<b>{escape(self.asker)} asks</b>: {escape(getattr(params, 'message', ''))}"
        url = getattr(params, "url", None)
        if getattr(params, "mode", None) == "url" and url:
            text += (
                f"<div>Open <a href='{escape(url)}' target='_blank' rel='noopener noreferrer'>"
                f"{escape(url)}</a>, then Accept (or Decline).</div>"
            )
            self.form = None
            self.form_box.children = ()
        else:
            schema = getattr(params, "requested_schema", None) or {"type": "object"}
            self.form = self._schema_form(schema)
            self._fill_defaults(self.form, schema)
            self.form_box.children = (self.form.fields_box, self.form.summary)
        self.message.value = text
        return self._wait()

    def _schema_form(self, schema: dict) -> Any:
        """A form over the requested schema: the fields and error summary of a ToolForm of a tool that
        only holds the schema, so widgets, defaults and validation are exactly those of tool forms."""
        from workbench.tools import SpecOnlyTool

        holder = SpecOnlyTool(
            {"name": "elicitation", "description": "The server's requested schema", "parameters": schema}
        )
        return self.form_class(holder, self.workbench)

    @staticmethod
    def _fill_defaults(form: Any, schema: dict) -> None:
        """Show each schema default as the field's value (SEP-1034), so Accept sends what the user saw
        — a tool form leaves such a field *not set*, since a tool applies its own defaults, but the
        server asking here expects the answer to carry them."""
        from workbench.mcp._elicitation import schema_defaults

        for name, value in schema_defaults(schema).items():
            try:
                form.set_values({name: value})
            except (KeyError, TypeError, ValueError):  # a default its widget cannot hold stays "not set — default: …"
                continue

    def accept(self, content: Optional[dict] = None) -> bool:
        """Send ``content`` (default: the form's values, if they validate)."""
        if content is None and self.form is not None:
            content = self.form.validate()
            if content is None:
                return False  # the form shows what is wrong
        return self._resolve(content if content is not None else "accept")

    def decline(self) -> bool:
        return self._resolve("decline")

    def cancel(self) -> bool:
        return self._resolve("cancel")

    def _superseded(self) -> Any:
        return "cancel"
