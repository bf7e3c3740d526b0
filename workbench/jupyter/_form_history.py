"""A form's recent inputs, read from the execution log, as a "History" dropdown (like MCP Inspector's)."""

from __future__ import annotations

import json
from typing import Any, Callable

import ipywidgets as W

__all__ = ["FormHistory", "HISTORY_SIZE"]

#: how many distinct inputs the dropdown lists
HISTORY_SIZE = 10
#: how many logged calls are read to find them (repeats of one input take several rows)
_ROWS_READ = 200
#: a dropdown entry's label is cut to this many characters (the full JSON is in the tooltip of the log)
_LABEL_CHARS = 120


def compact(value: Any) -> str:
    """``{"a": 1}`` → ``'{"a":1}'``: one short line for a dropdown entry."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)


class FormHistory:
    """The last :data:`HISTORY_SIZE` distinct inputs of one tool, newest first.

    Args:
        log: the ``ExecutionLog`` to read (``rows(tool=..., last=N)``).
        tool_name: whose calls to list.
        load: called with an input dict when the user picks an entry (the form's "Load into form" path).
    """

    def __init__(self, log: Any, tool_name: str, load: Callable[[dict], None]) -> None:
        self.log = log
        self.tool_name = tool_name
        self._load = load
        self.inputs: list[dict] = []
        # value None = nothing picked: after a load it goes back to None, so picking the same entry again works
        self.select = W.Dropdown(
            options=[],
            value=None,
            description="History",
            tooltip="Load a recent input of this tool into the form",
            layout=W.Layout(width="auto", max_width="420px"),
        )
        self.select.style.description_width = "initial"
        self.select.add_class("workbench-form-history")
        self.select.observe(self._picked, names="value")
        self.refresh()

    def refresh(self) -> None:
        """Read the log again (after each run)."""
        rows = self.log.rows(tool=self.tool_name, last=_ROWS_READ) if self.log is not None else []
        seen: set[str] = set()
        inputs: list[dict] = []
        for row in reversed(rows):
            value = row.get("input")
            if not isinstance(value, dict):
                continue
            key = json.dumps(value, sort_keys=True, default=str)
            if key in seen:
                continue
            seen.add(key)
            inputs.append(value)
            if len(inputs) == HISTORY_SIZE:
                break
        self.inputs = inputs
        labels = [_label(compact(value)) for value in inputs]
        self.select.unobserve(self._picked, names="value")
        try:
            self.select.options = [(label, i) for i, label in enumerate(labels)]
            self.select.value = None
        finally:
            self.select.observe(self._picked, names="value")
        self.select.disabled = not inputs
        self.select.layout.display = None if inputs else "none"

    def load(self, index: int) -> dict:
        """Load entry ``index`` (0 = newest) into the form; returns it. ``IndexError`` names the range."""
        if not 0 <= index < len(self.inputs):
            raise IndexError(
                f"{self.tool_name}: history entry {index} does not exist "
                f"(it has {len(self.inputs)} entries, 0 = newest)"
            )
        value = self.inputs[index]
        self._load(value)
        return value

    def _picked(self, change: dict) -> None:
        index = change["new"]
        if index is None:
            return
        try:
            self.load(index)
        finally:
            self.select.unobserve(self._picked, names="value")
            self.select.value = None
            self.select.observe(self._picked, names="value")


def _label(text: str) -> str:
    return text if len(text) <= _LABEL_CHARS else text[: _LABEL_CHARS - 1] + "…"
