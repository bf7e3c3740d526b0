"""``LogTable``: a live view of an ``ExecutionLog`` — newest call first, refreshed as calls finish."""

from __future__ import annotations

import threading
from typing import Any

import ipywidgets as W

from workbench._content import json_text
from workbench._html import _STATUS_COLOURS
from workbench._html import escape as _e
from workbench.log import _output_summary
from workbench.jupyter._throttle import Throttle

__all__ = ["LogTable"]

_ALL = "(all tools)"
_STATUSES = ("any status", "success", "error")


def _json(value: Any) -> str:
    return "" if value is None else json_text(value)


def _cell(text: str, limit: int, style: str = "") -> str:
    """A table cell showing ``text`` cut to ``limit`` characters; the full value is in the tooltip."""
    short = text if len(text) <= limit else text[: limit - 1] + "…"
    title = f" title=\"{_e(text)}\"" if short != text else ""
    return f"<td{title} style='{style}'><code>{_e(short)}</code></td>"


def _time(value: Any) -> str:
    if value is None:
        return ""
    try:
        import pandas as pd

        if pd.isna(value):
            return ""
        return value.strftime("%H:%M:%S")
    except Exception:  # noqa: BLE001
        return str(value)


class LogTable(W.VBox):
    """Execution log table: filters (tool, status), a caption, and an HTML table.

    Args:
        log: an ``ExecutionLog``.
        max_rows: how many of the most recent matching calls to show.
        interval: minimum seconds between two refreshes caused by new calls (throttling).
        truncate: input/output cells longer than this are cut (full text in the cell's tooltip).
    """

    def __init__(self, log: Any, *, max_rows: int = 50, interval: float = 0.25, truncate: int = 60) -> None:
        self.execution_log = log
        self.max_rows = max_rows
        self.truncate = truncate
        self.table = W.HTML()
        self.table.add_class("workbench-log-table")
        self.tool_filter = W.Dropdown(options=[_ALL], value=_ALL, layout=W.Layout(width="220px"))
        self.status_filter = W.Dropdown(options=list(_STATUSES), value=_STATUSES[0], layout=W.Layout(width="140px"))
        self.refresh_button = W.Button(icon="refresh", tooltip="Refresh", layout=W.Layout(width="40px"))
        self.refresh_button.on_click(lambda _b: self.refresh())
        self.tool_filter.observe(lambda _c: self.refresh(), names="value")
        self.status_filter.observe(lambda _c: self.refresh(), names="value")
        self.refreshes = 0  # how many times the table was redrawn
        self.dataframe: Any = None  # the frame currently shown (newest first)
        self._names: set[str] = set()
        self._lock = threading.RLock()
        self._throttle = Throttle(self.refresh, interval)
        super().__init__([W.HBox([self.tool_filter, self.status_filter, self.refresh_button]), self.table])
        try:
            self._names = {r["tool_name"] for r in log.rows(last=1000) if r.get("tool_name")}
        except Exception:  # noqa: BLE001
            self._names = set()
        self._sync_tool_options()
        self.refresh()
        self._unsubscribe = log.subscribe(self._on_row)

    def _on_row(self, row: dict) -> None:
        name = row.get("tool_name")
        if name and name not in self._names:
            self._names.add(name)
            self._sync_tool_options()
        self._throttle()

    def _sync_tool_options(self) -> None:
        current = self.tool_filter.value
        self.tool_filter.options = [_ALL, *sorted(self._names)]
        self.tool_filter.value = current if current in self.tool_filter.options else _ALL

    def flush(self) -> None:
        """Apply a throttled refresh now."""
        self._throttle.flush()

    def close(self) -> None:
        """Stop following the log and close the widgets."""
        self._throttle.cancel()
        unsubscribe = getattr(self, "_unsubscribe", None)
        if unsubscribe is not None:
            unsubscribe()
            self._unsubscribe = None
        super().close()

    def refresh(self) -> None:
        """Re-read the log and redraw the table."""
        with self._lock:
            tool = None if self.tool_filter.value == _ALL else self.tool_filter.value
            status = None if self.status_filter.value == _STATUSES[0] else self.status_filter.value
            try:
                frame = self.execution_log.to_dataframe(tool=tool, status=status, last=self.max_rows)
                total = len(self.execution_log)
            except Exception as exc:  # noqa: BLE001 - a closed log shows a message, not a traceback
                self.table.value = f"<i>{_e(f'log unavailable: {type(exc).__name__}: {exc}')}</i>"
                return
            frame = frame.iloc[::-1].reset_index(drop=True)
            self.dataframe = frame
            self.table.value = self._html(frame, total)
            self.refreshes += 1

    def _html(self, frame: Any, total: int) -> str:
        limit = self.truncate
        rows = []
        for rec in frame.to_dict("records"):
            status = str(rec.get("status") or "")
            colour = _STATUS_COLOURS.get(status, "#57606a")
            if status == "error":
                outcome = _cell(str(rec.get("error") or ""), limit, "color:#cf222e")
            else:
                outcome = _cell(_output_summary(rec.get("output")), limit)
            latency = rec.get("latency_ms")
            latency_text = f"{latency:.1f}" if isinstance(latency, (int, float)) and latency == latency else ""
            rows.append(
                "<tr>"
                f"<td>{_e(rec.get('id'))}</td>"
                f"<td>{_e(_time(rec.get('completed_at')))}</td>"
                f"<td><code>{_e(rec.get('tool_name') or '')}</code></td>"
                f"<td><span style='color:{colour};font-weight:bold'>{_e(status)}</span></td>"
                f"{_cell(_json(rec.get('input')), limit)}"
                f"{outcome}"
                f"<td style='text-align:right'>{_e(latency_text)}</td>"
                "</tr>"
            )
        body = "".join(rows) or "<tr><td colspan=7><i>no calls yet</i></td></tr>"
        shown = len(rows)
        caption = f"{total} call{'s' if total != 1 else ''} logged" + (f" · showing {shown}" if shown != total else "")
        return (
            "<table class='workbench-log-table' style='border-collapse:collapse;font-size:0.9em'>"
            f"<caption style='text-align:left;color:#57606a'>{_e(caption)}</caption>"
            "<thead><tr><th>id</th><th>time</th><th>tool</th><th>status</th><th>input</th>"
            "<th>output / error</th><th>ms</th></tr></thead>"
            f"<tbody>{body}</tbody></table>"
        )
