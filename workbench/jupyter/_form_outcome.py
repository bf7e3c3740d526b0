"""``FormOutcome``: what a form shows of a call — the result (with Copy and Pin), the returns-mismatch
warning, and the *Request (ToolUse)*, *Response (ToolResult)* and *Copy as code* sections.

The three sections are ``Disclosure``s (a real ``<button aria-expanded>`` header), so Tab reaches them and
Enter or Space opens them; ipywidgets' Accordion header is a ``<div>`` a keyboard never reaches.
Everything it shows is given already masked (secrets as ``***``) by the form.
"""

from __future__ import annotations

import json
import uuid
from typing import Any, Optional

import ipywidgets as W

from workbench._html import display_status
from workbench._styles import MUTED
from workbench.jupyter._copy import CopyButton
from workbench.jupyter._disclosure import DisclosureHeader
from workbench.jupyter._render import copy_as_code, json_html, mismatch_html, result_area_html, tool_use_html
from workbench.jupyter._widget_kit import WidgetKit
from workbench.types import ToolResult

__all__ = ["FormOutcome", "DetailsPanel", "pretty", "result_text"]

NOTHING_SENT = "<i>nothing sent yet</i>"
NOTHING_RECEIVED = "<i>nothing received yet</i>"
NOTHING_SENT_INVALID = "<i>nothing sent: the input has errors</i>"
TITLES = ("Request (ToolUse)", "Response (ToolResult)", "Copy as code")


def pretty(value: Any) -> str:
    """Indented JSON of ``value`` (anything else as its repr)."""
    return json.dumps(value, indent=2, ensure_ascii=False, default=repr)


def result_text(result: ToolResult) -> str:
    """What "Copy result" copies: the error (and traceback), the JSON, or the text of the result."""
    if result.status == "error":
        text = str(result.metadata.get("error") or result.text)
        tb = result.metadata.get("traceback")
        return f"{text}\n\n{tb}" if tb else text
    value = result.json
    if value is not None:
        return pretty(value)
    return result.text


class DetailsPanel(W.VBox):
    """The collapsed sections under the result: each a ``DisclosureHeader`` button (Tab reaches it, Enter or
    Space opens it) followed by its body, all in one box; the headers share one ``Layout`` (fewer widgets)."""

    def __init__(self, bodies: list[W.Widget], titles: tuple[str, ...]) -> None:
        shared = W.Layout()
        self.headers: list[DisclosureHeader] = []
        children: list[W.Widget] = []
        for body, title in zip(bodies, titles):
            mark = f"workbench-section-{uuid.uuid4().hex[:12]}"
            body.add_class(mark)
            body.add_class("workbench-disclosure-body")
            body.layout.display = "none"
            header = DisclosureHeader(title=title, controls=mark, layout=shared)
            header.observe(lambda change, body=body: _show(body, change["new"]), names="expanded")
            self.headers.append(header)
            children += [header, body]
        super().__init__(children)
        self.add_class("workbench-form-details")

    @property
    def titles(self) -> tuple[str, ...]:
        return tuple(header.title for header in self.headers)


def _show(body: W.Widget, shown: bool) -> None:
    body.layout.display = None if shown else "none"


class FormOutcome:
    """The outcome widgets of one form (``pin_button`` sits beside Copy result).

    Widgets: ``result_html``, ``warning``, ``result_tools``, ``copy_result``, ``request_html``,
    ``response_html``, ``code``, ``copy_request``, ``copy_response``, ``copy_code``, ``details``.
    """

    def __init__(self, tool_name: str, pin_button: W.Button, kit: Optional[WidgetKit] = None) -> None:
        kit = kit or WidgetKit()
        html = kit.style(W.HTML)
        self.tool_name = tool_name
        self.warning = W.HTML(layout=W.Layout(display="none"), **html)
        self.result_html = W.HTML(**html)
        self.result_html.add_class("workbench-result-area")
        self.request_html = W.HTML(NOTHING_SENT, layout=kit.layout(), **html)  # never hidden alone: a shared layout
        self.response_html = W.HTML(NOTHING_RECEIVED, layout=kit.layout(), **html)
        self.code = W.Textarea(value=copy_as_code(tool_name, {}), rows=5, layout=W.Layout(width="95%"))
        self.code.add_class("workbench-code")
        self.copy_result = CopyButton("Copy result", "Copy the result (text or JSON) to the clipboard")
        self.copy_request = CopyButton("Copy JSON", "Copy the ToolUse JSON to the clipboard")
        self.copy_response = CopyButton("Copy JSON", "Copy the ToolResult JSON to the clipboard")
        self.copy_code = CopyButton("Copy code", "Copy the code to the clipboard", text=self.code.value)
        self.code.observe(lambda change: setattr(self.copy_code, "text", change["new"]), names="value")
        self.pin_button = pin_button
        self.result_tools = W.HBox([self.copy_result, pin_button], layout=W.Layout(display="none"))
        self.details = DetailsPanel(
            [
                W.VBox([self.copy_request, self.request_html]),
                W.VBox([self.copy_response, self.response_html]),
                W.VBox([self.copy_code, self.code]),
            ],
            TITLES,
        )

    def clear(self) -> None:
        """Forget the previous call: no result, warning, request or response."""
        self.result_html.value = ""
        self.result_tools.layout.display = "none"
        self.pin_button.disabled = True
        self.copy_result.text = self.copy_request.text = self.copy_response.text = ""
        self.warning.layout.display = "none"
        self.request_html.value = NOTHING_SENT
        self.response_html.value = NOTHING_RECEIVED

    def refused(self) -> None:
        """The input had errors: nothing was sent."""
        self.request_html.value = NOTHING_SENT_INVALID

    def started(self, tool_use: dict) -> None:
        """A call of ``tool_use`` (masked) was sent and runs."""
        self.warning.layout.display = "none"
        self.result_html.value = f"<div class='workbench-running' style='color:{MUTED}'><i>running…</i></div>"
        self.request_html.value = tool_use_html(tool_use)
        self.copy_request.text = pretty(tool_use)
        self.response_html.value = "<i>waiting for the result…</i>"
        self.code.value = copy_as_code(self.tool_name, tool_use["input"])

    def finished(self, shown: ToolResult, returns: Optional[dict], *, pinnable: bool) -> None:
        """Show the call's result ``shown`` (masked); ``returns``: the tool's declared output schema."""
        cancelled = display_status(shown) == "cancelled"
        self.result_html.value = result_area_html(shown, returns)
        self.response_html.value = json_html(shown.to_dict())
        self.copy_response.text = pretty(shown.to_dict())
        self.copy_result.text = "" if cancelled else result_text(shown)  # a cancellation is no result
        self.result_tools.layout.display = None if self.copy_result.text else "none"
        self.pin_button.disabled = not pinnable
        mismatch = shown.metadata.get("returns_mismatch")
        if mismatch:
            self.warning.value = mismatch_html(str(mismatch))
            self.warning.layout.display = None
