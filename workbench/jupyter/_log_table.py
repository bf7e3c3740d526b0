"""``LogTable``: a live, paged view of an ``ExecutionLog`` — newest call first, refreshed as calls finish.

Toolbar: filter by tool, outcome (success / error / cancelled) and text; refresh, clear (asks for a
second click), export (CSV / JSONL / Parquet by the path's extension). The table shows one page
(``max_rows`` calls) queried from SQLite with the filters and the sort in SQL (``ExecutionLog.page``),
so a 100,000-row log costs the same as a small one. Click a column header to sort, a row to open
the call's full request and result, then **Load into form**, **Re-run** or **Copy as JSON**.

Saved in a notebook, the table also leaves a static ``text/html`` copy (and a plain-text one), so
GitHub, nbviewer and a notebook opened before it runs show a readable table, not a widget repr.
"""

from __future__ import annotations

import concurrent.futures
import threading
from pathlib import Path
from typing import Any, Callable, Optional

import ipywidgets as W

from workbench._html import escape as _e
from workbench.jupyter._approval import ApprovalPrompt
from workbench.jupyter._clickable import ClickableHTML
from workbench.jupyter._copy import CopyButton
from workbench.jupyter._log_html import details_html, outcome, plain_text, row_json, table_html
from workbench.jupyter._throttle import Throttle
from workbench.secrets import masked_parameters

__all__ = ["LogTable", "fill_form"]

_ALL = "(all tools)"
_STATUSES = ("any status", "success", "error", "cancelled")
#: first click on a header sorts these descending (largest / latest first), the others ascending
_DESCENDING_FIRST = {"id", "completed_at", "latency_ms"}
#: seconds between two refreshes caused by typing in the search box
_SEARCH_INTERVAL = 0.2

#: ``load_handler(tool_name) -> ToolForm``: shows the form **Load into form** fills (the dashboard sets one)
LoadHandler = Callable[[str], Any]


def fill_form(form: Any, values: dict) -> dict[str, str]:
    """Reset ``form`` and set ``values`` as a user would; returns ``{name: why}`` for the values it
    could not take (unknown parameter, a value its widget cannot show), which are left out."""
    form.reset()
    # a secret the log stored as *** is left for the user to type: the mask is never sent as the secret
    masked = masked_parameters(values, form.spec.secret_parameters)
    values = {k: v for k, v in values.items() if k not in masked}
    unstored = {name: "a secret the log does not store: type it" for name in masked}
    try:
        form.set_values(dict(values))
        return unstored
    except (KeyError, TypeError, ValueError):
        form.reset()
    problems: dict[str, str] = {}
    for key, value in values.items():
        try:
            form.set_values({key: value})
        except (KeyError, TypeError, ValueError) as exc:
            problems[key] = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
    return {**problems, **unstored}


class LogTable(W.VBox):
    """The execution log as a table you can filter, sort, page and click.

    Args:
        log: an ``ExecutionLog``.
        max_rows: rows per page.
        interval: minimum seconds between two refreshes caused by new calls (throttling).
        truncate: input/output cells longer than this are cut (full text in the cell's tooltip).
        workbench: the ``Workbench`` whose registry and executor **Load into form** and **Re-run**
            use (default: the kernel's ``get_workbench()``, looked up when needed).

    State: ``rows`` (the row dicts shown, in order), ``dataframe`` (the same as a DataFrame),
    ``total`` / ``matching`` (calls logged / matching the filters), ``page_index``, ``sort`` and
    ``descending``, ``selected_row`` (the row whose details are open; a filter that hides its call
    closes them).
    """

    def __init__(
        self, log: Any, *, max_rows: int = 50, interval: float = 0.25, truncate: int = 60, workbench: Any = None
    ) -> None:
        self.execution_log = log
        self.max_rows = max(1, int(max_rows))
        self.truncate = truncate
        self.workbench = workbench
        self.load_handler: Optional[LoadHandler] = None
        self.rows: list[dict] = []
        self.total = 0
        self.matching = 0
        self.page_index = 0
        self.sort = "id"
        self.descending = True
        self.selected_row: Optional[dict] = None
        self.last_rerun: Optional[concurrent.futures.Future] = None  # the Future of the latest re-run
        self.forms: dict[str, Any] = {}  # forms built by Load into form (standalone table), by tool name
        self.refreshes = 0  # how many times the table was redrawn
        self._names: set[str] = set()
        self._lock = threading.RLock()
        self._confirm_clear = False

        # toolbar
        self.tool_filter = W.Dropdown(options=[_ALL], value=_ALL, layout=W.Layout(width="170px"))
        self.status_filter = W.Dropdown(options=list(_STATUSES), value=_STATUSES[0], layout=W.Layout(width="120px"))
        self.search = W.Text(
            placeholder="filter: text in tool, input, output, error",
            continuous_update=True,
            layout=W.Layout(width="230px"),
        )
        self.refresh_button = W.Button(icon="refresh", tooltip="Refresh", layout=W.Layout(width="40px"))
        self.clear_button = W.Button(
            description="Clear", icon="trash", tooltip="Delete every logged call", layout=W.Layout(width="auto")
        )
        self.export_path = W.Text(placeholder="runs.csv or runs.jsonl", layout=W.Layout(width="150px"))
        self.export_button = W.Button(
            description="Export",
            icon="download",
            tooltip="Write the whole log to the file",
            layout=W.Layout(width="auto"),
        )
        # pager
        self.first_button = W.Button(icon="angle-double-left", tooltip="Newest page", layout=W.Layout(width="40px"))
        self.previous_button = W.Button(icon="angle-left", tooltip="Previous page", layout=W.Layout(width="40px"))
        self.next_button = W.Button(icon="angle-right", tooltip="Next page", layout=W.Layout(width="40px"))
        self.page_label = W.Label("")
        # table, message line, details
        self.table = ClickableHTML()
        self.table.add_class("workbench-log-table")
        self.message = W.HTML("")
        self.details_html = W.HTML("")
        self.load_button = W.Button(
            description="Load into form", icon="edit", tooltip="Show the tool's form with this input"
        )
        self.rerun_button = W.Button(description="Re-run", icon="repeat", tooltip="Call the tool again with this input")
        self.copy_button = CopyButton(label="Copy as JSON", hint="Copy the call as JSON")  # the forms' copy button
        self.close_button = W.Button(icon="times", tooltip="Close the details", layout=W.Layout(width="40px"))
        self.approval = ApprovalPrompt()
        self.form_area = W.VBox([])
        self.details = W.VBox(
            [
                self.details_html,
                W.HBox(
                    [self.load_button, self.rerun_button, self.copy_button, self.close_button],
                    layout=W.Layout(align_items="center"),
                ),
                self.approval.widget,
                self.form_area,
            ],
            layout=W.Layout(display="none"),
        )
        self.details.add_class("workbench-log-details")

        self.tool_filter.observe(lambda _c: self._filters_changed(), names="value")
        self.status_filter.observe(lambda _c: self._filters_changed(), names="value")
        self._search_throttle = Throttle(self._filters_changed, _SEARCH_INTERVAL)
        self.search.observe(lambda _c: self._search_throttle(), names="value")
        self.refresh_button.on_click(lambda _b: self.refresh())
        self.clear_button.on_click(lambda _b: self._click_clear())
        self.export_button.on_click(lambda _b: self._click_export())
        self.first_button.on_click(lambda _b: self.first_page())
        self.previous_button.on_click(lambda _b: self.previous_page())
        self.next_button.on_click(lambda _b: self.next_page())
        self.table.observe(self._on_selected, names="selected")
        self.table.on_event(self._on_table_event)
        self.load_button.on_click(lambda _b: self._guard(self.load_into_form))
        self.rerun_button.on_click(lambda _b: self._guard(self.rerun))
        self.close_button.on_click(lambda _b: self.close_details())

        toolbar = W.HBox(
            [
                self.tool_filter,
                self.status_filter,
                self.search,
                self.refresh_button,
                self.clear_button,
                self.export_path,
                self.export_button,
            ],
            layout=W.Layout(flex_flow="row wrap"),
        )
        pager = W.HBox(
            [self.first_button, self.previous_button, self.page_label, self.next_button],
            layout=W.Layout(align_items="center"),
        )
        self._throttle = Throttle(self.refresh, interval)
        super().__init__([toolbar, self.table, pager, self.message, self.details])
        self.add_class("workbench-log")
        try:
            self._names = set(log.tool_names())
        except Exception:  # noqa: BLE001 - a closed or foreign log: the refresh below says so
            self._names = set()
        self._sync_tool_options()
        self.refresh()
        self._unsubscribe = log.subscribe(self._on_row)

    # -- following the log ---------------------------------------------------------------------------
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
        self._search_throttle.flush()
        self._throttle.flush()

    def close(self) -> None:
        """Stop following the log and close the widgets."""
        self._throttle.cancel()
        self._search_throttle.cancel()
        unsubscribe = getattr(self, "_unsubscribe", None)
        if unsubscribe is not None:
            unsubscribe()
            self._unsubscribe = None
        super().close()

    # -- querying ------------------------------------------------------------------------------------
    def _filters(self) -> dict[str, Any]:
        tool = None if self.tool_filter.value == _ALL else self.tool_filter.value
        status = None if self.status_filter.value == _STATUSES[0] else self.status_filter.value
        return {"tool": tool, "outcome": status, "text": self.search.value.strip() or None}

    def _filters_changed(self) -> None:
        self.page_index = 0
        self._cancel_clear()
        self.refresh()
        shown = {row.get("id") for row in self.rows}
        if self.selected_row is not None and self.selected_row.get("id") not in shown:
            self.close_details()  # the details belong to a call the table shows

    def _cancel_clear(self) -> None:
        if self._confirm_clear:
            self._confirm_clear = False
            self.clear_button.description, self.clear_button.button_style = "Clear", ""

    def refresh(self) -> None:
        """Re-read the current page from the log and redraw the table."""
        with self._lock:
            log = self.execution_log
            try:
                filters = self._filters()
                rows, matching = log.page(
                    **filters,
                    sort=self.sort,
                    descending=self.descending,
                    offset=self.page_index * self.max_rows,
                    limit=self.max_rows,
                )
                if not rows and matching and self.page_index:  # the page emptied (a filter, a clear): last page
                    self.page_index = (matching - 1) // self.max_rows
                    rows, matching = log.page(
                        **filters,
                        sort=self.sort,
                        descending=self.descending,
                        offset=self.page_index * self.max_rows,
                        limit=self.max_rows,
                    )
                total = matching if not any(filters.values()) else len(log)
            except Exception as exc:  # noqa: BLE001 - a closed log shows a message, not a traceback
                self.table.value = f"<i>{_e(f'log unavailable: {type(exc).__name__}: {exc}')}</i>"
                return
            self.rows, self.matching, self.total = rows, matching, total
            self.table.value = self._table_html()
            self._sync_pager()
            self.refreshes += 1

    def _table_html(self, static: bool = False) -> str:
        selected = self.selected_row["id"] if self.selected_row else None
        return table_html(
            self.rows,
            total=self.total,
            matching=self.matching,
            offset=self.page_index * self.max_rows,
            sort=self.sort,
            descending=self.descending,
            selected=selected,
            truncate=self.truncate,
            static=static,
        )

    def _sync_pager(self) -> None:
        pages = max(1, -(-self.matching // self.max_rows))
        start = self.page_index * self.max_rows
        shown = f"{start + 1:,}–{start + len(self.rows):,} of {self.matching:,}" if self.rows else "0 of 0"
        self.page_label.value = f"{shown} · page {self.page_index + 1:,} of {pages:,}"
        self.first_button.disabled = self.previous_button.disabled = self.page_index == 0
        self.next_button.disabled = self.page_index + 1 >= pages

    @property
    def dataframe(self) -> Any:
        """The rows shown (this page, in table order) as a DataFrame with ``ExecutionLog.to_dataframe``'s columns."""
        import pandas as pd

        from workbench.log import DATAFRAME_COLUMNS

        frame = pd.DataFrame(
            [{c: row.get(c) for c in DATAFRAME_COLUMNS} for row in self.rows], columns=list(DATAFRAME_COLUMNS)
        )
        for column in ("started_at", "completed_at"):
            frame[column] = pd.to_datetime(frame[column], utc=True, format="ISO8601", errors="coerce")
        return frame

    # -- sorting and paging --------------------------------------------------------------------------
    def sort_by(self, column: str, descending: Optional[bool] = None) -> None:
        """Sort by a column of ``ExecutionLog.page`` (``id``, ``completed_at``, ``tool_name``, ``status``,
        ``latency_ms``). ``descending=None``: the same column toggles, a new one starts with its natural order."""
        from workbench.log import PAGE_SORT_COLUMNS

        if column not in PAGE_SORT_COLUMNS:
            raise ValueError(f"Cannot sort the log by {column!r}; sortable: {', '.join(PAGE_SORT_COLUMNS)}")
        if descending is None:
            descending = not self.descending if column == self.sort else column in _DESCENDING_FIRST
        self.sort, self.descending, self.page_index = column, descending, 0
        self.refresh()

    def _on_table_event(self, event: dict) -> None:
        if event.get("event") == "sort" and isinstance(event.get("column"), str):
            self._guard(lambda: self.sort_by(event["column"]))

    def _go(self, index: int) -> None:
        self.page_index = max(0, index)
        self.refresh()

    def first_page(self) -> None:
        """Show the first page (the newest calls in the default order)."""
        self._go(0)

    def next_page(self) -> None:
        """Show the next page, if any."""
        if (self.page_index + 1) * self.max_rows < self.matching:
            self._go(self.page_index + 1)

    def previous_page(self) -> None:
        """Show the previous page, if any."""
        if self.page_index:
            self._go(self.page_index - 1)

    # -- details -------------------------------------------------------------------------------------
    def select(self, row_id: Optional[int]) -> Optional[dict]:
        """Open the details of call ``row_id`` (what clicking its row does); ``None`` closes them."""
        self.table.selected = "" if row_id is None else str(row_id)
        return self.selected_row

    def close_details(self) -> None:
        """Close the details pane."""
        self.select(None)

    def _on_selected(self, change: dict) -> None:
        key = change["new"]
        if not key:
            self.selected_row = None
            self.details.layout.display = "none"
            return
        try:
            row = self.execution_log.get(int(key))
        except (KeyError, ValueError) as exc:
            self._say(f"cannot open call {key}: {exc}", error=True)
            self.table.selected = ""
            return
        self.selected_row = row
        self.details_html.value = details_html(row)
        self.copy_button.text = row_json(row)
        self.form_area.children = []
        self.details.layout.display = None
        self._say("")

    def _row(self, row_id: Optional[int]) -> dict:
        if row_id is None:
            if self.selected_row is None:
                raise ValueError("no call selected: click a row first (or pass row_id)")
            return self.selected_row
        return self.execution_log.get(row_id)

    def copy_text(self, row_id: Optional[int] = None) -> str:
        """What **Copy as JSON** copies: the call (selected, or ``row_id``) as indented JSON."""
        return row_json(self._row(row_id))

    # -- actions -------------------------------------------------------------------------------------
    def _workbench(self) -> Any:
        if self.workbench is None:
            from workbench.jupyter._workbench import get_workbench

            return get_workbench()
        return self.workbench

    def load_into_form(self, row_id: Optional[int] = None) -> Any:
        """Show the tool's form with the call's input (the selected call, or ``row_id``); returns the form.

        With a ``load_handler`` (the dashboard's) the handler shows the tool's form; otherwise it appears
        under the details, one ``ToolForm`` per tool (its own instance, not the one under the ``%%tool``
        cell). Values the form cannot take (an input that was rejected, a parameter the tool no longer
        has) are left out and named in the message line.
        """
        row = self._row(row_id)
        name = row.get("tool_name")
        if not name:
            raise ValueError(f"call #{row['id']} does not record which tool it called")
        if self.load_handler is not None:
            form = self.load_handler(name)
            if form is None:
                raise ValueError(f"the form of {name} could not be built")
        else:
            from workbench.jupyter._form import ToolForm

            tool = self._workbench().registry.get_tool(name)
            form = self.forms.get(name)
            if form is None or form.tool is not tool:
                form = self.forms[name] = ToolForm(tool, self._workbench())
        problems = fill_form(form, row.get("input") or {})
        if self.load_handler is None:
            self.form_area.children = [form]  # shown once filled
        if problems:
            left_out = "; ".join(f"{key}: {message}" for key, message in problems.items())
            self._say(f"loaded call #{row['id']} into the form of {name} — left out {left_out}", error=True)
        else:
            self._say(f"loaded call #{row['id']} into the form of {name}")
        return form

    def rerun(self, row_id: Optional[int] = None) -> "concurrent.futures.Future":
        """Call the tool again with the call's input (the selected call, or ``row_id``) through the
        workbench's executor, without blocking; the new call is logged (a new row). Returns a
        ``concurrent.futures.Future`` of the ``ToolResult``. An ``ASK_USER`` tool asks in the details pane."""
        row = self._row(row_id)
        name = row.get("tool_name")
        if not name:
            raise ValueError(f"call #{row['id']} does not record which tool it called")
        try:
            secret = self._workbench().registry.get_tool(name).spec.secret_parameters
        except KeyError:  # the executor reports the unknown tool as the re-run's result
            secret = frozenset()
        masked = masked_parameters(row.get("input"), secret)
        if masked:
            raise ValueError(
                f"call #{row['id']} cannot be re-run: its secret parameter(s) {', '.join(masked)} were "
                "not stored in the log (they show as ***); Load into form and type them"
            )
        self._say(f"re-running call #{row['id']} ({name})…")
        done = self._workbench().submit(
            name, dict(row.get("input") or {}), approver=self.approval.ask, log=self.execution_log
        )
        self.last_rerun = done
        done.add_done_callback(lambda future: self._rerun_done(row["id"], future))
        return done

    def _rerun_done(self, row_id: int, future: "concurrent.futures.Future") -> None:
        try:
            result = future.result()
        except BaseException as exc:  # noqa: BLE001
            self._say(f"re-run of call #{row_id} failed: {type(exc).__name__}: {exc}", error=True)
            return
        kind = outcome({"status": result.status, "error_type": result.metadata.get("error_type")})
        self._say(f"re-ran call #{row_id}: {kind}", error=kind != "success")
        self._throttle.flush()

    def clear_log(self) -> None:
        """Delete every logged call (what the second click on **Clear** does)."""
        self.execution_log.clear()
        self._names = set()
        self._sync_tool_options()
        self.close_details()
        self.page_index = 0
        self.refresh()

    def _click_clear(self) -> None:
        if not self._confirm_clear:
            self._confirm_clear = True
            self.clear_button.description, self.clear_button.button_style = "Confirm clear", "danger"
            self._say(f"click “Confirm clear” to delete all {self.total:,} logged calls", error=True)
            return
        self._cancel_clear()
        self._guard(self.clear_log)
        self._say("the log was cleared")

    def export(self, path: Any) -> int:
        """Write the whole log to ``path`` (``.csv``, ``.jsonl`` or ``.parquet``: ``ExecutionLog.export``); returns the row count."""
        return self.execution_log.export(path)

    def _click_export(self) -> None:
        path = self.export_path.value.strip()
        if not path:
            self._say("type a file path ending in .csv or .jsonl (or .parquet) first", error=True)
            return
        try:
            count = self.export(path)
        except Exception as exc:  # noqa: BLE001 - shown in the message line
            self._say(f"export failed: {exc}", error=True)
            return
        self._say(f"exported {count:,} call{'s' if count != 1 else ''} to {Path(path).resolve()}")

    def _guard(self, action: Callable[[], Any]) -> None:
        """Run a button's action; an exception becomes the message line (a click must not raise into the kernel)."""
        try:
            action()
        except Exception as exc:  # noqa: BLE001
            self._say(f"{type(exc).__name__}: {exc}", error=True)

    def _say(self, text: str, error: bool = False) -> None:
        klass = "workbench-log-message workbench-status-error" if error else "workbench-log-message"
        self.message.value = f"<span class='{klass}'>{_e(text)}</span>" if text else ""

    # -- display -------------------------------------------------------------------------------------
    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        """The widget view plus a static ``text/html`` table and a plain-text one, saved with the notebook
        (GitHub, nbviewer and a notebook opened before it runs show these)."""
        data = super()._repr_mimebundle_(**kwargs) or {}
        data = dict(data[0] if isinstance(data, tuple) else data)
        with self._lock:
            data["text/plain"] = plain_text(self.rows, self.total)
            data["text/html"] = self.static_html()
        return data

    def static_html(self) -> str:
        """The current page as standalone HTML (inline styles, nothing clickable)."""
        return (
            f"<div class='workbench-log-static'>{self._table_html(static=True)}"
            "<div style='font-size:0.85em;color:var(--jp-ui-font-color2, #57606a)'>"
            "Static copy saved with the notebook: run the notebook for the live log "
            "(filter, sort, click a row).</div></div>"
        )
