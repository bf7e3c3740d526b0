"""Pinned runs of a form: keep a run's input and result, and compare two side by side (a JSON diff)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable, Optional

import ipywidgets as W

from workbench._html import escape as _e
from workbench._styles import BORDER, MUTED
from workbench.jupyter._render import json_html
from workbench.jupyter._widget_kit import WidgetKit, close_tree
from workbench.testing._json_diff import compare
from workbench.types import ToolResult

__all__ = ["Pin", "FormPins", "MAX_PINS", "result_json"]

#: pins kept: a third pin replaces the oldest, so the comparison is always of two runs
MAX_PINS = 2
_DIFF_LINES = 50


@dataclass(frozen=True)
class Pin:
    """A pinned run: what was sent and what came back."""

    input: dict
    result: ToolResult


def result_json(result: ToolResult) -> dict:
    """What two results are compared on: their status and content (not ids, times or latency)."""
    data = result.to_dict()
    return {"status": data.get("status"), "content": data.get("content")}


class FormPins:
    """The pins of one form and their on-screen panel (``box``: the pins, Unpin buttons, the comparison).

    Args:
        tool_name: named in errors.
        last_run: returns the last finished run as ``(input, result)``, or None.
    """

    def __init__(self, tool_name: str, last_run: Callable[[], Any], *, kit: Optional[WidgetKit] = None) -> None:
        kit = self.kit = kit or WidgetKit()
        self.tool_name = tool_name
        self._last_run = last_run
        self.pins: list[Pin] = []
        self.button = W.Button(
            description="Pin",
            icon="thumb-tack",
            disabled=True,
            tooltip="Pin this run's input and result; two pinned runs are compared",
            **kit.style(W.Button),
        )
        self.button.add_class("workbench-pin")
        self.button.on_click(lambda _b: self.pin())
        self.html = W.HTML(**kit.style(W.HTML))
        self.unpin_buttons: list[W.Button] = []
        self.buttons_row = W.HBox([])
        self.box = W.VBox([self.buttons_row, self.html], layout=W.Layout(display="none"))
        self.box.add_class("workbench-pins")

    def pin(self) -> Pin:
        """Pin the last finished run (a third pin replaces the oldest)."""
        run = self._last_run()
        if run is None:
            raise RuntimeError(f"{self.tool_name}: nothing to pin — run the form first")
        tool_input, result = run
        pin = Pin(dict(tool_input), result)
        self.pins = (self.pins + [pin])[-MAX_PINS:]
        self._render()
        return pin

    def unpin(self, index: int) -> Pin:
        """Remove pin ``index`` (0 = the older one); returns it."""
        if not 0 <= index < len(self.pins):
            raise IndexError(f"{self.tool_name}: pin {index} does not exist (there are {len(self.pins)} pins)")
        removed = self.pins.pop(index)
        self._render()
        return removed

    def _render(self) -> None:
        for old in self.unpin_buttons:  # replaced below: closed, so they leave the page and the saved notebook
            close_tree(old)
        self.unpin_buttons = []
        for i in range(len(self.pins)):
            button = W.Button(
                description=f"Unpin #{i + 1}",
                icon="times",
                layout=self.kit.layout("checkbox"),
                **self.kit.style(W.Button),
            )
            button.add_class("workbench-unpin")
            button.on_click(lambda _b, i=i: self.unpin(i))
            self.unpin_buttons.append(button)
        self.buttons_row.children = self.unpin_buttons
        self.html.value = pins_html(self.pins)
        self.box.layout.display = None if self.pins else "none"


def _column(pin: Pin, number: int) -> str:
    return (
        f"<td style='vertical-align:top;padding:4px;border:1px solid {BORDER};width:50%'>"
        f"<b>Pinned #{number}</b> <span style='color:{MUTED}'>{_e(pin.result.status)}</span>"
        f"<div>input</div>{json_html(pin.input)}<div>result</div>{json_html(result_json(pin.result))}</td>"
    )


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=repr)
    return text if len(text) <= 120 else text[:119] + "…"


def diff_lines(a: Any, b: Any) -> list[str]:
    """One line per place where two results differ (a JSON pointer and both values)."""
    lines = []
    for d in compare(a, b, mode="exact"):
        where = d.pointer or "(the whole value)"
        if d.kind == "missing":
            lines.append(f"{where}: {_short(d.expected)} → only in #1")
        elif d.kind == "unexpected":
            lines.append(f"{where}: only in #2 → {_short(d.actual)}")
        else:
            lines.append(f"{where}: {_short(d.expected)} → {_short(d.actual)}")
    return lines


def pins_html(pins: list[Pin]) -> str:
    """The pins side by side; for two, a diff of their results below."""
    if not pins:
        return ""
    cells = "".join(_column(pin, i + 1) for i, pin in enumerate(pins))
    html = f"<table style='width:100%;border-collapse:collapse;table-layout:fixed'><tr>{cells}</tr></table>"
    if len(pins) == 2:
        lines = diff_lines(result_json(pins[0].result), result_json(pins[1].result))
        if not lines:
            body = "<i>same result</i>"
        else:
            shown = lines[:_DIFF_LINES] + (
                [f"… and {len(lines) - _DIFF_LINES} more"] if len(lines) > _DIFF_LINES else []
            )
            body = "<pre style='margin:0;white-space:pre-wrap'>" + _e("\n".join(shown)) + "</pre>"
        html += f"<div class='workbench-pin-compare' style='margin-top:4px'><b>Result diff (#1 → #2)</b>{body}</div>"
    return html
