"""``ToolForm``: a tool's JSON Schema as a form that validates, runs and shows the result.

Layout, top to bottom: header (name, flags, the description as markdown) · Form ⇄ JSON toggle ·
fields (or the JSON editor) · error summary · Run / Cancel / Reset / Save as test + the call's time ·
the Save-as-test message · progress bar
(only once a call runs) · approval prompt (``ASK_USER`` tools) · returns-mismatch warning · result
(with a Copy button) · an accordion with the *Request* (ToolUse JSON), the *Response* (ToolResult
JSON) and *Copy as code*, each with a Copy button. Ctrl/Cmd+Enter in any field runs the form, Esc
cancels a running call. **Save as test** (enabled once a call finished; not for a cancelled one) writes that call as a
``workbench.testing.ToolCase`` to ``<case folder>/<tool>.cases.json`` (``set_case_folder`` picks the
folder once per kernel; default ``tool_cases/``) and shows the path written, or why it could not.

Running never blocks the kernel: the Run button schedules ``executor.execute`` on the running
event loop (the kernel's) or, without one, on a background thread. ``form.run()`` is the
synchronous programmatic path (tests, scripts) — except for a call that needs the user's approval
made where blocking would deadlock (a notebook cell): it returns a :class:`PendingRun` at once, and
``await form.run_async()`` waits for the click without blocking the loop that delivers it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import re
import sys
import threading
import time
import warnings
import weakref
from pathlib import Path
from typing import Any, Callable, Optional

import ipywidgets as W

from workbench._errors import ToolInputError
from workbench._html import display_status
from workbench._html import escape as _e
from workbench._styles import (
    BADGE_STYLE,
    BANNER_STYLE,
    BORDER,
    ERROR_BOX_STYLE,
    MUTED,
    TEXT,
    WARNING_STYLE,
    WRAP,
    status_colour,
)
from workbench.jupyter._approval import ApprovalPrompt
from workbench.jupyter._copy import CopyButton
from workbench.jupyter._containers import ListField
from workbench.jupyter._field_table import WIDGETS, WidgetTable
from workbench.jupyter._widget_types import tool_annotations
from workbench.jupyter._field_layout import FieldMap, arrange_fields, resolve_layout
from workbench.jupyter._field_table import build_field
from workbench.jupyter._fields import MISSING, Field, FieldValueError
from workbench.jupyter._form_history import FormHistory
from workbench.jupyter._form_pins import FormPins, Pin
from workbench.jupyter._json_mode import JsonMode
from workbench.jupyter._keys import FormKeys
from workbench.jupyter._render import (
    copy_as_code,
    description_html,
    error_summary_html,
    form_summary_html,
    json_html,
    mismatch_html,
    result_area_html,
    tool_use_html,
)
from workbench.jupyter._throttle import Throttle
from workbench.secrets import MASK, mask_arguments, mask_result, mask_values, secret_values
from workbench.types import Permission, ToolResult, new_tool_use_id, utc_now_iso

__all__ = ["ToolForm", "PendingRun", "PROGRESS_INTERVAL", "NO_DESCRIPTION_WARNING"]

#: minimum seconds between two progress-bar updates (≤ 20 updates/s)
PROGRESS_INTERVAL = 0.05
#: seconds between two elapsed-time label updates while a call runs
TICK_INTERVAL = 0.1
#: seconds a keyboard Run waits, so the typed value's own sync message (sent just before) lands first
KEY_RUN_DELAY = 0.05

#: shown in the form of a tool without a description (``spec.validate()`` rejects such a spec)
NO_DESCRIPTION_WARNING = "no description: a model will not know when to call this tool"

#: the progress bar's style for each display status of a finished call
_BAR_STYLES = {"success": "success", "cancelled": "warning"}
_NOTHING_SENT = "<i>nothing sent yet</i>"
_NOTHING_RECEIVED = "<i>nothing received yet</i>"
_SAVE_TOOLTIP_IDLE = "Run a call first: Save as test writes the last finished call as a test case"
_SAVE_TOOLTIP_CANCELLED = "The last call was cancelled: it has no result to save as a test"
_SAVE_TOOLTIP_READY = "Save the last call as a test case in the kernel's case folder (set_case_folder)"

_PATH_TOKEN = re.compile(r"\.([^.\[\]]+)|\[(\d+)\]")


def parse_error_path(path: str) -> list:
    """``"$.items[0].qty"`` → ``["items", 0, "qty"]``."""
    text = path[1:] if path.startswith("$") else "." + path if path and not path.startswith((".", "[")) else path
    return [name if name else int(index) for name, index in _PATH_TOKEN.findall(text)]


class ToolForm(W.VBox):
    """The form of one tool.

    Args:
        tool: a ``BaseTool`` (or the name of a tool in the workbench's registry).
        workbench: the ``Workbench`` whose executor, registry and log the form uses
            (default: the kernel's ``get_workbench()``).
        layout: how the fields are laid out — ``"auto"`` (default), ``"full"`` or ``"compact"``
            (see ``workbench.jupyter._field_layout``).
        sampling_model: the model that answers the tool's ``ctx.sample`` (a ``Model`` or a
            ``"provider:model"`` string); default: the workbench's ``sampling_model``.
        widgets: the ``WidgetTable`` its fields come from (default: the package's ``WIDGETS``; a
            ``WIDGETS.copy()`` with ``register_type``/``register_rule`` rows of one's own).

    Programmatic API: ``values``, ``set_values(dict)``, ``run()``, ``await run_async()``,
    ``submit()``/``wait()``, ``cancel()``, ``errors``, ``result``, ``reset()``, ``save_as_test()``,
    ``history``/``load_history(i)`` (recent inputs from the log), ``pin()``/``pins``/``unpin(i)``;
    widgets: ``fields``, ``run_button``, ``cancel_button``, ``save_button``, ``save_message``, ``progress``, ``elapsed``, ``approval``, ``result_html``,
    ``warning``, ``description_warning``, ``request_html``, ``response_html``, ``code``, ``summary``.
    """

    def __init__(self, tool: Any, workbench: Any = None, layout: str = "auto", *, sampling_model: Any = None,
                 widgets: Optional[WidgetTable] = None) -> None:
        resolve_layout(layout, 0)  # an unknown layout fails here, naming the choices
        self.widget_table = WIDGETS if widgets is None else widgets  # the table its fields' widgets come from
        self.layout_name = layout
        self.sampling_model = None if sampling_model is None else _model(sampling_model)
        if workbench is None:
            from workbench.jupyter._workbench import get_workbench

            workbench = get_workbench()
        if isinstance(tool, str):
            tool = workbench.registry.get_tool(tool)
        self.tool = tool
        self.workbench = workbench
        self.spec = tool.spec
        self.errors: dict[str, str] = {}
        self.result: Optional[ToolResult] = None
        self.tool_use: Optional[dict] = None
        self._secrets: list[str] = []  # the secret parameters' values of the call on screen (masked in what shows)
        self._shown_result: Optional[ToolResult] = None  # ``result`` with those values masked
        self.progress_history: list[float] = []
        self.running = False
        self._current_id: Optional[str] = None
        self._done: Optional[concurrent.futures.Future] = None
        self._unsubscribe: Any = None
        self._task: Any = None
        self._own_registry: Any = None
        self._state_lock = threading.RLock()

        self.disconnected = False
        #: what the Reconnect button does instead of :meth:`reconnect` (a view owning the connection,
        #: e.g. the inspect view, reconnects itself and shows new forms)
        self.on_reconnect: Optional[Callable[[], Any]] = None
        self._unwatch: Any = None
        self.header = W.HTML(self._header_html())
        self.header.add_class("workbench-form-header")
        self.description_warning = W.HTML(
            f"<div style='{WARNING_STYLE}'><b>Warning</b>: {NO_DESCRIPTION_WARNING} — add a docstring "
            "(or pass a description: <code>%%tool --description …</code>, <code>@tool(description=…)</code>)</div>",
            layout=W.Layout(display=None if _lacks_description(self.spec) else "none"))
        self.disconnected_banner = W.HTML(layout=W.Layout(display="none"))
        self.disconnected_banner.add_class("workbench-disconnected")
        self.reconnect_button = W.Button(description="Reconnect", icon="plug", button_style="primary",
                                         tooltip="Start the tool's MCP server again and run its new tools here")
        self.reconnect_button.add_class("workbench-reconnect")
        self.reconnect_button.on_click(lambda _b: self._click_reconnect())
        self.disconnected_box = W.VBox([self.disconnected_banner, self.reconnect_button],
                                       layout=W.Layout(display="none"))
        self.fields_box = W.VBox([])
        self.summary = W.HTML(layout=W.Layout(display="none"))
        self.run_button = W.Button(description="Run", button_style="primary", icon="play")
        self.cancel_button = W.Button(description="Cancel", icon="stop", disabled=True)
        self.reset_button = W.Button(description="Reset", icon="undo", tooltip="Back to the defaults")
        self.save_button = W.Button(description="Save as test", icon="save", disabled=True,
                                    tooltip=_SAVE_TOOLTIP_IDLE)
        self.save_message = W.HTML(layout=W.Layout(display="none"))
        self.save_message.add_class("workbench-save-message")
        self.saved_path: Optional[Path] = None
        self.elapsed = W.Label("")  # "elapsed 1.2 s" while a call runs, "took 35.1 ms" after: the only timing shown
        self.elapsed.add_class("workbench-elapsed")
        self.progress = W.FloatProgress(value=0.0, min=0.0, max=1.0, layout=W.Layout(width="300px"))
        self.progress_label = W.Label("")
        # hidden until a call runs; after it, kept only if the call reported progress
        self.progress_box = W.HBox([self.progress, self.progress_label], layout=W.Layout(display="none"))
        self.progress_box.add_class("workbench-progress")
        self.approval = ApprovalPrompt()
        self.elicitation: Any = None  # the tool's ctx.elicit() form (jupyter/_tool_peer.py), built when first asked
        self.ask_box = W.VBox()
        self.warning = W.HTML(layout=W.Layout(display="none"))
        self.result_html = W.HTML()
        self.request_html = W.HTML(_NOTHING_SENT)
        self.response_html = W.HTML(_NOTHING_RECEIVED)
        self.code = W.Textarea(value=copy_as_code(self.spec.name, {}), rows=5, layout=W.Layout(width="95%"))
        self.copy_result = CopyButton("Copy result", "Copy the result (text or JSON) to the clipboard")
        self.copy_request = CopyButton("Copy JSON", "Copy the ToolUse JSON to the clipboard")
        self.copy_response = CopyButton("Copy JSON", "Copy the ToolResult JSON to the clipboard")
        self.copy_code = CopyButton("Copy code", "Copy the code to the clipboard", text=self.code.value)
        self.code.observe(lambda change: setattr(self.copy_code, "text", change["new"]), names="value")
        self.pins_panel = FormPins(self.spec.name, self._last_run)
        self.pin_button, self.pins_box, self.pins_html = self.pins_panel.button, self.pins_panel.box, self.pins_panel.html
        self.result_tools = W.HBox([self.copy_result, self.pin_button], layout=W.Layout(display="none"))
        self.details = W.Accordion(children=[W.VBox([self.copy_request, self.request_html]),
                                             W.VBox([self.copy_response, self.response_html]),
                                             W.VBox([self.copy_code, self.code])],
                                   titles=("Request (ToolUse)", "Response (ToolResult)", "Copy as code"))
        self.details.selected_index = None
        # the JSON editor shows secrets as *** (its text is saved with the notebook); *** typed back keeps them
        self.json_mode = JsonMode(self.spec, read=lambda: mask_arguments(self.values, self.spec.secret_parameters),
                                  write=self._load_input,
                                  on_mode=self._on_json_mode)
        # the Form ⇄ JSON switch sits at the right of the header; the header takes the rest (and wraps)
        self.header.layout = W.Layout(flex="1 1 auto", min_width="0")
        self.json_mode.toggle.layout = W.Layout(flex="0 0 auto")
        self.header_row = W.HBox([self.header, self.json_mode.toggle],
                                 layout=W.Layout(align_items="flex-start", width="100%"))
        self.history_box = FormHistory(workbench.log, self.spec.name, self._load_history_input)
        self.history_select = self.history_box.select
        self.shortcuts = FormKeys(on_run=self._key_run, on_cancel=self.cancel, layout=W.Layout(display="none"))

        self.run_button.on_click(lambda _b: self._click_run())
        self.cancel_button.on_click(lambda _b: self.cancel())
        self.reset_button.on_click(lambda _b: self.reset())
        self.save_button.on_click(lambda _b: self._click_save())
        self._progress_throttle = Throttle(self._show_progress, PROGRESS_INTERVAL)

        self.fields: FieldMap = FieldMap([])
        self._build_fields()
        super().__init__([
            self.header_row,
            self.description_warning,
            self.disconnected_box,
            self.fields_box,
            self.json_mode.box,
            self.summary,
            W.HBox([self.run_button, self.cancel_button, self.reset_button, self.save_button, self.elapsed,
                    self.history_select], layout=W.Layout(flex_flow="row wrap", align_items="center")),
            self.save_message,
            self.progress_box,
            self.approval.widget,
            self.ask_box,
            self.warning,
            self.result_html,
            self.result_tools,
            self.pins_box,
            self.details,
            self.shortcuts,
        ], layout=W.Layout(border=f"1px solid {BORDER}", padding="6px", margin="4px 0"))
        # stable hooks for CSS and the browser test
        self.add_class("workbench-form")
        self.add_class(f"workbench-form-{self.spec.name}")
        self.run_button.add_class("workbench-run")
        self.cancel_button.add_class("workbench-cancel")
        self.save_button.add_class("workbench-save-test")
        self.result_html.add_class("workbench-result-area")
        self._watch_connection()

    # -- building ------------------------------------------------------------------------------------
    def _flags(self) -> list[str]:
        spec = self.spec
        flags = []
        if spec.supports_async:
            flags.append("async")
        if spec.long_running:
            flags.append("long-running")
        if spec.idempotent:
            flags.append("idempotent")
        permission = Permission.coerce(self.tool.permission)
        if permission is not Permission.ALWAYS_ALLOW:
            flags.append(f"permission: {permission.value}")
        if spec.timeout is not None:
            flags.append(f"timeout {spec.timeout:g} s")
        return flags

    def _header_html(self) -> str:
        spec = self.spec
        badges = "".join(f"<span class='workbench-badge' style='{BADGE_STYLE}'>{_e(f)}</span>" for f in self._flags())
        return (f"<div style='{WRAP};line-height:normal'>"
                f"<div><b style='font-size:1.1em'><code>{_e(spec.name)}</code></b>{badges}</div>"
                f"<div class='workbench-description' style='color:{TEXT};margin:4px 0 6px 0'>"
                f"{description_html(spec.description or '')}</div></div>")

    # -- a tool whose connection can end (MCP proxies) ------------------------------------------------
    def _watch_connection(self) -> None:
        """Follow the tool's connection: a proxy of an MCP server (anything whose class has
        ``on_disconnect(callback)``) shows a banner and disables Run once its server is disconnected."""
        subscribe = getattr(type(self.tool), "on_disconnect", None)
        if not callable(subscribe):
            return
        ref = weakref.ref(self)

        def notify() -> None:
            form = ref()
            if form is not None:
                form._show_disconnected()

        self._unwatch = subscribe(self.tool, notify)

    def _show_disconnected(self, problem: str = "") -> None:
        connection = getattr(self.tool, "connection", None)
        label = getattr(connection, "label", None) or "its server"
        failed = (f"<div style='margin-top:4px'><b>Reconnect failed</b>: {_e(problem)}</div>" if problem else "")
        self.disconnected_banner.value = (
            f"<div style='{BANNER_STYLE}'><b>disconnected</b>: the MCP server <code>{_e(label)}</code> of this tool "
            "was disconnected, so it cannot run. <b>Reconnect</b> starts it again and runs its new tool here "
            f"(in code: <code>connection.reconnect()</code>).{failed}</div>")
        self.disconnected_banner.layout.display = None
        self.disconnected_box.layout.display = None
        self.reconnect_button.disabled = not callable(getattr(connection, "reconnect", None))
        self.reconnect_button.description = "Reconnect"
        self.run_button.disabled = True
        self.run_button.button_style = ""  # a disabled primary button still looks live in the dark theme
        self.run_button.tooltip = "disconnected: the tool's MCP server is gone"
        self.add_class("workbench-form-disconnected")
        self.disconnected = True  # last: the flag says the form shows it (the keepalive thread sets it)

    def reconnect(self, connect_timeout: Optional[float] = 30.0) -> Any:
        """Connect the tool's MCP server again (``connection.reconnect()``) and make this form run the new
        proxy of the same name; returns it (what the banner's **Reconnect** button does). When another
        view already reconnected the server, the form takes the live proxy without starting a new one.
        The values typed stay unless the tool's parameters changed."""
        old = self.tool
        connection = getattr(old, "connection", None)
        if connection is None or not callable(getattr(connection, "reconnect", None)):
            raise RuntimeError(f"'{self.spec.name}' is not a tool of an MCP connection: nothing to reconnect")
        registry = getattr(connection, "registry", None) or self.workbench.registry
        current = registry.get(self.spec.name)
        if current is not None and current is not old and getattr(current, "connected", False):
            fresh_tool = current
        else:
            fresh = connection.reconnect(connect_timeout=connect_timeout)
            fresh_tool = fresh.proxies.get(self.spec.name) or registry.get(self.spec.name)
            if fresh_tool is None:
                raise RuntimeError(f"The MCP server {fresh.label} no longer lists '{self.spec.name}' "
                                   f"(it lists: {', '.join(fresh.tools) or 'nothing'})")
        self._rebind(fresh_tool)
        return fresh_tool

    def _rebind(self, tool: Any) -> None:
        """Run ``tool`` (a new proxy of the same name) from now on: connected again, Run enabled."""
        if self._unwatch is not None:
            self._unwatch()
            self._unwatch = None
        same_parameters = tool.spec.parameters == self.spec.parameters
        self.tool, self.spec, self._own_registry = tool, tool.spec, None
        self.header.value = self._header_html()
        if not same_parameters:  # else the fields (and what was typed) stay as they are
            self._build_fields()
        self.disconnected = False
        self.disconnected_banner.layout.display = "none"
        self.disconnected_box.layout.display = "none"
        self.run_button.disabled = self.running
        self.run_button.button_style = "primary"
        self.run_button.tooltip = ""
        self.remove_class("workbench-form-disconnected")
        self._watch_connection()

    def _click_reconnect(self) -> None:
        """The button: reconnect on a worker thread (starting a server takes a while; the kernel stays
        responsive), then show the live form, or the reason in the banner — never raise."""
        self.reconnect_button.disabled = True
        self.reconnect_button.description = "Reconnecting…"

        action = self.on_reconnect or self.reconnect

        def work() -> None:
            try:
                action()
            except Exception as exc:  # noqa: BLE001 - a button must not raise into the kernel
                self._show_disconnected(f"{type(exc).__name__}: {exc}")

        threading.Thread(target=work, name=f"workbench-reconnect-{self.spec.name}", daemon=True).start()

    def _build_fields(self) -> None:
        self.arrangement = arrange_fields(self.spec.parameters, self.widget_table.builder(tool_annotations(self.tool)),
                                          self.layout_name)
        self.fields = self.arrangement.fields
        children = self.arrangement.children or [W.HTML("<i>This tool takes no parameters.</i>")]
        self.fields_box.children = children

    @property
    def widget(self) -> "ToolForm":
        return self

    def field(self, path: str) -> Optional[Field]:
        """The field at ``path`` (``"item.qty"``, ``"items[0]"``, ``"$.a"``), or None."""
        parts = parse_error_path(path)
        if not parts or not isinstance(parts[0], str):
            return None
        found = self.fields.get(parts[0])
        for part in parts[1:]:
            if found is None:
                return None
            found = found.child(part)
        return found

    def _deepest_field(self, parts: list) -> Optional[Field]:
        if not parts or not isinstance(parts[0], str):
            return None
        found = self.fields.get(parts[0])
        for part in parts[1:]:
            if found is None:
                break
            deeper = found.child(part)
            if deeper is None:
                break
            found = deeper
        return found

    # -- values --------------------------------------------------------------------------------------
    def _collect(self) -> tuple[dict[str, Any], list[dict]]:
        values: dict[str, Any] = {}
        problems: list[dict] = []
        # only the fields built so far: an unbuilt one (a collapsed Optional section never opened) is not set
        for name, field in self.fields.built():
            try:
                value = field.get()
            except FieldValueError as exc:
                problems.append({"field": exc.field.path_text, "message": str(exc), "widget": exc.field, "name": name})
                continue
            if value is not MISSING:
                values[name] = value
        return values, problems

    @property
    def values(self) -> dict[str, Any]:
        """The input the form would send (untouched optional fields omitted). ``ValueError`` if a
        widget holds something unconvertible (invalid JSON, duplicate keys)."""
        values, problems = self._collect()
        if problems:
            raise ValueError("; ".join(p["message"] for p in problems))
        return values

    def set_values(self, values: dict[str, Any]) -> "ToolForm":
        """Fill fields as a user would (they become touched). Unknown names raise ``KeyError``;
        values the widget cannot show raise ``ValueError``/``TypeError``."""
        unknown = [k for k in values if k not in self.fields]
        if unknown:
            raise KeyError(f"{self.spec.name} has no parameter(s) {', '.join(map(repr, unknown))}; "
                           f"parameters: {', '.join(self.fields) or 'none'}")
        for name, value in values.items():
            field = self.fields[name]
            if value is None and hasattr(field, "set_none"):
                field.set_none()
            else:
                field.set(value)
        return self

    def _load_input(self, values: dict[str, Any]) -> None:
        """Make the fields hold exactly ``values``: the others go back to *not set* (JSON mode → form).
        A secret given as ``***`` (a logged input, the JSON editor) keeps what its field holds."""
        unknown = [k for k in values if k not in self.fields]
        if unknown:
            raise KeyError(f"{self.spec.name} has no parameter(s) {', '.join(map(repr, unknown))}")
        values = self._keep_secrets(values)
        for _name, field in self.fields.built():  # an unbuilt field is already not set
            field.clear()
        self.set_values(values)
        self._reveal_problems(values)

    def _keep_secrets(self, values: dict[str, Any]) -> dict[str, Any]:
        """``values`` with each secret given as ``***`` replaced by what its field holds (left out if nothing):
        the mask is never sent as the secret."""
        masked = [name for name in self.spec.secret_parameters if values.get(name) == MASK]
        if not masked:
            return values
        built = dict(self.fields.built())
        values = {k: v for k, v in values.items() if k not in masked}
        for name in masked:
            field = built.get(name)
            try:
                held = field.get() if field is not None else MISSING
            except FieldValueError:
                held = MISSING
            if held is not MISSING:
                values[name] = held
        return values

    def _reveal_problems(self, values: dict[str, Any]) -> None:
        """Build the list rows the tool's validator finds a problem in: a row not built yet (a long list
        shows a page) would hide it, and a value its row cannot show raises here, as a built row's does."""
        try:
            self._check_inputs(values)
        except ToolInputError as exc:
            for err in exc.errors:
                parts = parse_error_path(err.get("path") or "$")
                # only into what was loaded (reading a field of a collapsed section would build it)
                found = self.fields[parts[0]] if parts and parts[0] in values else None
                for part in parts[1:]:
                    if found is None:
                        break
                    if isinstance(found, ListField) and isinstance(part, int):
                        found.build_rows(part + 1)
                    found = found.child(part)
        except ValueError:  # e.g. a malformed schema: Run reports it
            pass

    @property
    def history(self) -> list[dict[str, Any]]:
        """This tool's last ten distinct inputs from the execution log, newest first."""
        return list(self.history_box.inputs)

    def load_history(self, index: int) -> dict[str, Any]:
        """Put history entry ``index`` (0 = newest) back into the fields (or the JSON editor); returns it."""
        return self.history_box.load(index)

    def _load_history_input(self, values: dict[str, Any]) -> None:
        self._load_input(values)
        if self.json_mode.active:  # the editor shows what was loaded
            self.json_mode.editor.value = json.dumps(values, indent=2, ensure_ascii=False, default=repr)
            self.json_mode.check()

    # -- pins ---------------------------------------------------------------------------------------
    def _last_run(self) -> "Optional[tuple[dict, ToolResult]]":
        result, use = self.result, self.tool_use
        if result is None or use is None or use.get("toolUseId") != result.tool_use_id or self.running:
            return None
        return use.get("input") or {}, self._shown_result or result

    @property
    def pins(self) -> list[Pin]:
        """The pinned runs (at most two, oldest first)."""
        return list(self.pins_panel.pins)

    @property
    def unpin_buttons(self) -> list[W.Button]:
        return self.pins_panel.unpin_buttons

    def pin(self) -> Pin:
        """Pin the last finished run's input and result (a third pin replaces the oldest); two pins are
        shown side by side with a diff of their results. ``RuntimeError`` before any run."""
        return self.pins_panel.pin()

    def unpin(self, index: int) -> Pin:
        """Remove pin ``index`` (0 = the older one)."""
        return self.pins_panel.unpin(index)

    # -- JSON mode -----------------------------------------------------------------------------------
    def _on_json_mode(self, active: bool) -> None:
        self.fields_box.layout.display = "none" if active else None

    def show_json(self) -> "ToolForm":
        """Switch to the raw-JSON editor, filled with what the fields hold."""
        if not self.json_mode.active:
            self.json_mode.start()
        return self

    def show_form(self) -> bool:
        """Back to the fields, filled from the JSON editor; False (still JSON) if the JSON is not valid."""
        return self.json_mode.stop() if self.json_mode.active else True

    def reset(self) -> None:
        """Rebuild every field at its default (untouched) and clear errors and the result.

        During a call only the fields and errors are reset: the call goes on and its running state
        (elapsed time, progress, Cancel) stays until its result arrives."""
        self._build_fields()
        self._show_errors({})
        if not self.running:
            self._clear_outcome()

    def _clear_outcome(self) -> None:
        """Forget the previous call's outcome on screen: result, warning, progress, timing, request/response."""
        self.result = self._shown_result = None
        self.result_html.value = ""
        self.result_tools.layout.display = "none"
        self.pin_button.disabled = True
        self.copy_result.text = self.copy_request.text = self.copy_response.text = ""
        self.warning.layout.display = "none"
        self.progress_box.layout.display = "none"
        self.progress.value = 0.0
        self.progress_label.value = ""
        self.elapsed.value = ""
        self.request_html.value = _NOTHING_SENT
        self.response_html.value = _NOTHING_RECEIVED
        self._enable_save(False)

    # -- validation ----------------------------------------------------------------------------------
    def _check_inputs(self, values: dict[str, Any]) -> dict[str, Any]:
        """The tool's input check in the mode its calls run in (the executor's or a ``validating()``
        context's, else the tool's, else its registry's), so the form refuses what Run would."""
        from workbench._validation_mode import mode_for, run_mode

        return self.spec.check_inputs(values, mode_for(self.spec, run_mode(self.workbench.executor), self._registry()))

    def _show_errors(self, errors: dict[str, str]) -> None:
        self.errors = errors
        self.summary.value = error_summary_html(errors)
        self.summary.layout.display = None if errors else "none"

    def validate(self, given: Optional[dict[str, Any]] = None) -> Optional[dict[str, Any]]:
        """Check the form's values; fill ``errors`` and the inline messages. Returns the values or None.

        ``given``: values that go with the input but are not shown in the form (the secret a model gave,
        kept out of the widgets); a field left *not set* sends its ``given`` value."""
        for _name, field in self.fields.built():  # an unbuilt field shows no error
            for sub in field.walk():
                sub.clear_error()
        values, problems = self._collect()
        if given:
            values = {**given, **values}
        errors: dict[str, str] = {}
        for problem in problems:
            problem["widget"].show_error(problem["message"])
            errors[problem["field"]] = problem["message"]
        # the fields that parsed are checked too, so every invalid field is reported at once; a
        # parameter whose field did not parse is left out of ``values``, so its "missing" is skipped
        unparsed = {problem["name"] for problem in problems}
        secrets = secret_values(values, self.spec.secret_parameters)
        try:
            self._check_inputs(values)
        except ToolInputError as exc:
            for err in exc.errors:
                key = err.get("field") or "$"
                path = parse_error_path(err.get("path") or "$")
                if path and path[0] in unparsed:
                    continue
                message = mask_values(err["message"], secrets)  # "received '…'" must not show a secret
                errors[key] = f"{errors[key]}; {message}" if key in errors else message
                target = self._deepest_field(parse_error_path(err.get("path") or "$"))
                if target is not None:
                    target.show_error(message)
        except ValueError as exc:  # e.g. a malformed schema (ToolSpecError)
            errors["$"] = str(exc)
        self._show_errors(errors)
        return None if errors else values

    def _invalid_result(self, tool_use_id: str) -> ToolResult:
        message = "; ".join(f"{k}: {v}" if not v.startswith(k) else v for k, v in self.errors.items())
        now = utc_now_iso()
        return ToolResult(
            toolUseId=tool_use_id, status="error", content=[{"text": f"Error: {message}"}],
            metadata={"tool_name": self.spec.name, "error_type": "ToolInputError", "error": message,
                      "errors": dict(self.errors), "latency_ms": 0.0},
            started_at=now, completed_at=now)

    # -- running -------------------------------------------------------------------------------------
    def _registry(self) -> Any:
        registry = self.workbench.registry
        if registry.get(self.spec.name) is self.tool:
            return registry
        if self._own_registry is None:
            from workbench.registry import ToolRegistry

            self._own_registry = ToolRegistry()
            self._own_registry.register_tool(self.tool)
        return self._own_registry

    def _prepare(self) -> "dict | ToolResult":
        if self.running:
            raise RuntimeError(f"The form of '{self.spec.name}' is already running a call (cancel it first)")
        tool_use_id = new_tool_use_id()
        self._clear_outcome()  # a new attempt: the previous outcome must not stay under its errors
        if self.json_mode.active:  # the editor is what the user sees: the fields follow it first
            _value, problem = self.json_mode.apply()
            if problem is not None:
                self._show_errors({"$": problem})
                self.request_html.value = "<i>nothing sent: the input has errors</i>"
                return self._invalid_result(tool_use_id)
        values = self.validate()
        if values is None:
            self.request_html.value = "<i>nothing sent: the input has errors</i>"
            return self._invalid_result(tool_use_id)
        return {"toolUseId": tool_use_id, "name": self.spec.name, "input": values}

    def _start(self, tool_use: dict) -> None:
        with self._state_lock:
            self.running = True
            self._current_id = tool_use["toolUseId"]
            self._done = concurrent.futures.Future()
        # what shows (and is saved with the notebook: request, code, pins) has the secrets masked; the call has them
        secret = self.spec.secret_parameters
        self._secrets = secret_values(tool_use["input"], secret)
        shown = {**tool_use, "input": mask_arguments(tool_use["input"], secret)} if secret else tool_use
        self.tool_use = shown
        self.result = self._shown_result = None
        self.progress_history = []
        self.progress.value = 0.0
        self.progress.bar_style = "info"
        self.progress_label.value = ""
        self.progress_box.layout.display = None
        self.elapsed.value = "elapsed 0.0 s"
        self.warning.layout.display = "none"
        self.result_html.value = f"<div class='workbench-running' style='color:{MUTED}'><i>running…</i></div>"
        self.request_html.value = tool_use_html(shown)
        self.copy_request.text = _pretty(shown)
        self.response_html.value = "<i>waiting for the result…</i>"
        self.code.value = copy_as_code(self.spec.name, shown["input"])
        self.run_button.disabled = True
        self.cancel_button.disabled = False
        self._enable_save(False)
        self.shortcuts.busy = True
        self.workbench._approval_handlers[tool_use["toolUseId"]] = self.approval.ask
        self._unsubscribe = self.workbench.executor.on_event(self._on_event)
        self._t0 = time.perf_counter()
        ticker = threading.Thread(target=self._tick, args=(self._done,), name="workbench-form-timer", daemon=True)
        ticker.start()

    def _tick(self, done: concurrent.futures.Future) -> None:
        while True:
            with self._state_lock:  # never overwrite the final time written by _finish
                if done.done():
                    break
                self.elapsed.value = f"elapsed {time.perf_counter() - self._t0:.1f} s"
            try:
                done.result(timeout=TICK_INTERVAL)
            except concurrent.futures.TimeoutError:
                continue
            except Exception:  # noqa: BLE001
                break

    def _on_event(self, event: Any) -> None:
        if event.tool_use_id != self._current_id:
            return
        if event.kind == "progress" and event.progress is not None:
            self._progress_throttle(float(event.progress), event.message)
        elif event.kind == "log" and event.message:
            self.progress_label.value = str(event.message)[:200]

    def _show_progress(self, value: float, message: Optional[str]) -> None:
        self.progress_box.layout.display = None
        self.progress.value = value
        self.progress_history.append(value)
        if message:
            self.progress_label.value = str(message)[:200]

    def _finish(self, result: ToolResult) -> None:
        self._progress_throttle.flush()
        if self.elicitation is not None:  # a question the ended run left open (a cancelled sync tool) is withdrawn
            self.elicitation.cancel()
        unsubscribe, self._unsubscribe = self._unsubscribe, None
        if unsubscribe is not None:
            unsubscribe()
        self.workbench._approval_handlers.pop(result.tool_use_id, None)
        self.result = result
        shown = self._shown_result = mask_result(result, self._secrets)
        self.history_box.refresh()
        status = display_status(result)
        ok, cancelled = status == "success", status == "cancelled"
        self.result_html.value = result_area_html(shown, self.spec.returns)
        self.response_html.value = json_html(shown.to_dict())
        self.copy_response.text = _pretty(shown.to_dict())
        self.copy_result.text = "" if cancelled else _result_text(shown)  # a cancellation is no result
        self.result_tools.layout.display = None if self.copy_result.text else "none"
        self.pin_button.disabled = self.tool_use is None or self.tool_use.get("toolUseId") != result.tool_use_id
        mismatch = result.metadata.get("returns_mismatch")
        if mismatch:
            self.warning.value = mismatch_html(str(mismatch))
            self.warning.layout.display = None
        latency = result.metadata.get("latency_ms")
        with self._state_lock:
            self._current_id = None
            self._progress_throttle.cancel()  # late reports of a cancelled call change nothing now
            if ok:
                self.progress.value = 1.0
            self.progress.bar_style = _BAR_STYLES.get(status, "danger")
            if cancelled or not (self.progress_history or self.progress_label.value):
                # no progress reported, or a cancelled call (the result says so): no bar left behind
                self.progress_box.layout.display = "none"
            if cancelled:
                self.progress.value, self.progress_label.value = 0.0, ""
            if isinstance(latency, (int, float)):
                self.elapsed.value = f"took {latency / 1000:.2f} s" if latency >= 1000 else f"took {latency:.1f} ms"
            else:
                self.elapsed.value = ""
            self.run_button.disabled = self.disconnected
            self.cancel_button.disabled = True
            self._enable_save(not cancelled and self.tool_use is not None
                              and self.tool_use.get("toolUseId") == result.tool_use_id)
            if cancelled:
                self.save_button.tooltip = _SAVE_TOOLTIP_CANCELLED
            self.shortcuts.busy = False
            self.running = False
            done = self._done
            if done is not None and not done.done():
                done.set_result(result)

    def _fail(self, tool_use: dict, exc: BaseException) -> ToolResult:
        now = utc_now_iso()
        return ToolResult(toolUseId=tool_use["toolUseId"], status="error",
                          content=[{"text": f"Error: {type(exc).__name__}: {exc}"}],
                          metadata={"tool_name": self.spec.name, "error_type": type(exc).__name__,
                                    "error": f"{type(exc).__name__}: {exc}"}, started_at=now, completed_at=now)

    def run(self) -> "ToolResult | PendingRun":
        """Validate and run through the workbench's executor; update the widgets; return the ``ToolResult``.

        Invalid input returns an error result (nothing runs) and fills ``errors``.

        A call that waits for the user's approval (an ``ASK_USER`` tool, answered by this form's
        Approve / Deny prompt) cannot block where the click is delivered by the calling thread's
        event loop — a notebook cell, where blocking would freeze the kernel forever. There (a
        running event loop in this thread, or the kernel's main thread) ``run()`` starts the call,
        shows the prompt and returns a :class:`PendingRun` at once: displayed, it shows the prompt
        in the cell; the call completes when the user clicks, and its result lands in the form,
        in ``form.result`` and in the log. ``await form.run_async()`` (or ``await`` the handle)
        gives the ``ToolResult`` in code. Elsewhere (scripts, worker threads) ``run()`` blocks
        until Approve / Deny is decided, e.g. by another thread calling ``form.approval.approve()``.
        """
        if self._needs_prompt() and _blocking_would_deadlock():
            done = self.submit()
            if done is None:
                return self.result  # type: ignore[return-value]  # invalid input: the error result
            return PendingRun(self, done)
        prepared = self._prepare()
        if isinstance(prepared, ToolResult):
            self.result = prepared
            return prepared
        self._start(prepared)
        try:
            result = self.workbench.executor.run([prepared], self._registry(), log=self.workbench.log,
                                                 invocation_state=self._invocation_state())[0]
        except BaseException as exc:  # noqa: BLE001 - the executor should not raise; keep the form usable
            result = self._fail(prepared, exc)
        self._finish(result)
        return result

    async def run_async(self) -> ToolResult:
        """Validate and run on the running event loop; ``await form.run_async()`` in a cell returns the
        ``ToolResult`` — after the Approve / Deny click for an ``ASK_USER`` tool — without blocking the
        kernel. Invalid input returns an error result (nothing runs) and fills ``errors``."""
        prepared = self._prepare()
        if isinstance(prepared, ToolResult):
            self.result = prepared
            return prepared
        self._start(prepared)
        task = asyncio.get_running_loop().create_task(self._execute(prepared))
        self._task = task
        return await task

    def _invocation_state(self) -> dict:
        """The executor's invocation state plus this form as the tool's peer (``ctx.elicit`` asks here)."""
        from workbench._peer import PEER_KEY
        from workbench.jupyter._tool_peer import FormPeer

        return {**(getattr(self.workbench.executor, "invocation_state", None) or {}), PEER_KEY: FormPeer(self)}

    def _needs_prompt(self) -> bool:
        """True when a call would wait for this form's Approve / Deny (and not for a user-set approver)."""
        try:
            permission = Permission.coerce(self.tool.permission)
        except (TypeError, ValueError):
            return False  # the executor reports the malformed permission as the call's error
        approver = getattr(self.workbench.executor, "approver", None)
        return permission is Permission.ASK_USER and approver == self.workbench._approve

    async def _execute(self, tool_use: dict) -> ToolResult:
        try:
            results = await self.workbench.executor.execute([tool_use], self._registry(), log=self.workbench.log,
                                                            invocation_state=self._invocation_state())
            result = results[0]
        except BaseException as exc:  # noqa: BLE001 - includes the task being cancelled
            result = self._fail(tool_use, exc)
        self._finish(result)
        return result

    def submit(self) -> Optional[concurrent.futures.Future]:
        """Start a call without blocking: on the running event loop (the kernel's) if there is one,
        else on a background thread. Returns a ``concurrent.futures.Future`` of the ``ToolResult``,
        or None when validation failed (``errors`` says why)."""
        prepared = self._prepare()
        if isinstance(prepared, ToolResult):
            self.result = prepared
            return None
        self._start(prepared)
        done = self._done
        loop = _running_loop()
        if loop is not None:
            self._task = loop.create_task(self._execute(prepared))
        else:
            thread = threading.Thread(target=lambda: asyncio.run(self._execute(prepared)),
                                      name=f"workbench-form-{self.spec.name}", daemon=True)
            self._task = thread
            thread.start()
        return done

    def wait(self, timeout: Optional[float] = None) -> Optional[ToolResult]:
        """Block until the current (or last) submitted call ends; returns its result.

        ``RuntimeError`` (instead of a deadlock) when the call runs on the event loop of this very
        thread — a cell in the kernel: ``await`` it (``await form.run_async()``) or read ``form.result``
        in a later cell."""
        done = self._done
        if done is None:
            return self.result
        self._check_can_block(done)
        return done.result(timeout=timeout)

    def _check_can_block(self, done: concurrent.futures.Future) -> None:
        if done.done():
            return
        task, loop = self._task, _running_loop()
        if loop is not None and isinstance(task, asyncio.Future) and task.get_loop() is loop:
            raise RuntimeError(
                f"Waiting for '{self.spec.name}' here would block the event loop its call runs on (the kernel's), "
                "so it could never finish: use `await form.run_async()` (or `await` the PendingRun), or read "
                "`form.result` once the form shows the result")

    def _key_run(self) -> None:
        """Ctrl/Cmd+Enter: run unless a call runs or the tool is disconnected."""
        if self.running or self.disconnected:
            return
        loop = _running_loop()
        if loop is not None:
            loop.call_later(KEY_RUN_DELAY, self._click_run)
        else:
            self._click_run()

    def _click_run(self) -> None:
        try:
            self.submit()
        except Exception as exc:  # noqa: BLE001 - a button must not raise into the kernel
            self._show_errors({"$": f"{type(exc).__name__}: {exc}"})

    def cancel(self) -> bool:
        """Cancel the running call (a pending approval is denied). Returns False if nothing was running."""
        if self.approval.pending:
            return self.approval.deny()
        use_id = self._current_id
        if use_id is None:
            return False
        if self.workbench.executor.cancel(use_id):
            return True
        # not yet registered as running (still starting): retry briefly
        def retry() -> None:
            for _ in range(40):
                time.sleep(0.025)
                if self._current_id != use_id:
                    return
                if self.approval.pending:
                    self.approval.deny()
                    return
                if self.workbench.executor.cancel(use_id):
                    return

        threading.Thread(target=retry, daemon=True).start()
        return True

    # -- Save as test ----------------------------------------------------------------------------------
    def _enable_save(self, enabled: bool) -> None:
        self.save_button.disabled = not enabled
        self.save_button.tooltip = _SAVE_TOOLTIP_READY if enabled else _SAVE_TOOLTIP_IDLE
        self.save_message.layout.display = "none"
        self.save_message.value = ""

    def save_as_test(self, expect: Optional[str] = None) -> Path:
        """Write the last finished call as a test case to ``<case folder>/<tool>.cases.json`` and
        return the file's path (what the **Save as test** button does).

        ``expect`` (``exact``/``subset``/``schema``/``error``) defaults as in
        ``ToolCase.from_result``: ``error`` for a failed call, ``schema`` for a synthetic result,
        else ``exact``. ``RuntimeError`` if no call finished yet; ``workbench.testing.CaseFileError``
        if the call cannot be saved with that expectation.
        """
        from workbench.testing import ToolCase, save_case

        result, tool_use = self.result, self.tool_use
        if self.running or result is None or tool_use is None or tool_use.get("toolUseId") != result.tool_use_id:
            raise RuntimeError(f"Nothing to save for '{self.spec.name}': run a call first (Save as test writes "
                               "the last finished call)")
        if display_status(result) == "cancelled":
            raise RuntimeError(f"Nothing to save for '{self.spec.name}': the last call was cancelled, so it has "
                               "no result to expect (run it to the end first)")
        if self._secrets:
            names = ", ".join(sorted(self.spec.secret_parameters))
            raise RuntimeError(f"Not saved: '{self.spec.name}' has secret parameter(s) ({names}), which a case file "
                               "would hold in clear; write that case by hand, with the secret from the environment")
        case = ToolCase.from_result(tool_use, result, expect=expect)
        path = save_case(case, registry=self.workbench.registry)
        self.saved_path = path
        return path

    def _click_save(self) -> None:
        """The button: save, then show the path written (and any warning) or the error — never raise."""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                path = self.save_as_test()
            except Exception as exc:  # noqa: BLE001 - a button must not raise into the kernel
                self._show_save_message(
                    f"<div style='{ERROR_BOX_STYLE}'><b>Not saved</b>: {_e(f'{type(exc).__name__}: {exc}')}</div>")
                return
        notes = "".join(f"<div style='{WARNING_STYLE};margin-top:2px'>{_e(w.message)}</div>" for w in caught
                        if issubclass(w.category, UserWarning))
        self._show_save_message(
            f"<div style='color:{status_colour('success')};{WRAP}'>Saved as test to "
            f"<code class='workbench-saved-path'>{_e(path)}</code></div>{notes}")

    def _show_save_message(self, html: str) -> None:
        self.save_message.value = html
        self.save_message.layout.display = None

    def __repr__(self) -> str:
        return f"<ToolForm {self.spec.name!r} fields={list(self.fields)}>"

    def _repr_mimebundle_(self, **kwargs: Any) -> Optional[dict]:
        """The widget view plus a static ``text/html`` summary (name, description, parameters) for
        readers without the live widget: GitHub, nbviewer, a saved notebook opened before it ran."""
        bundle = super()._repr_mimebundle_(**kwargs)
        if bundle is not None:
            bundle["text/html"] = form_summary_html(self.spec, tuple(self._flags()))
        return bundle


class PendingRun:
    """A call that ``ToolForm.run()`` started but that waits for the user's Approve / Deny.

    Displayed in a cell it shows the form's approval prompt; ``await handle`` gives the
    ``ToolResult`` after the click; ``done()`` / ``result()`` poll it (``result()`` refuses to block
    the event loop the call needs). The result also lands in the form and in the log.
    """

    def __init__(self, form: ToolForm, future: concurrent.futures.Future) -> None:
        self.form = form
        self.tool_use_id: str = (form.tool_use or {}).get("toolUseId", "")
        self._future = future

    def done(self) -> bool:
        """True once the user decided and the call ended."""
        return self._future.done()

    def result(self, timeout: Optional[float] = None) -> ToolResult:
        """The ``ToolResult``; blocks until the call ends (``RuntimeError`` where that would deadlock)."""
        self.form._check_can_block(self._future)
        return self._future.result(timeout=timeout)

    def __await__(self) -> Any:
        return asyncio.wrap_future(self._future).__await__()

    def _text(self) -> str:
        name = self.form.spec.name
        if self._future.done():
            result = self._future.result()
            return f"<PendingRun {name!r}: done, status={result.status}>"
        return (f"<PendingRun {name!r}: waiting for your approval — click Approve or Deny in the form; "
                f"the result will appear there and in form.result (or `await` this handle)>")

    def __repr__(self) -> str:
        return self._text()

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict:
        if self._future.done():
            return {"text/plain": self._text()}
        bundle = self.form.approval.widget._repr_mimebundle_() or {}  # the same prompt, shown in the cell
        return {**bundle, "text/plain": self._text()}


def _pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, default=repr)


def _result_text(result: ToolResult) -> str:
    """What "Copy result" copies: the error (and traceback), the JSON, or the text of the result."""
    if result.status == "error":
        text = str(result.metadata.get("error") or result.text)
        tb = result.metadata.get("traceback")
        return f"{text}\n\n{tb}" if tb else text
    value = result.json
    if value is not None:
        return _pretty(value)
    return result.text


def _lacks_description(spec: Any) -> bool:
    return not (spec.description or "").strip()


def _blocking_would_deadlock() -> bool:
    """True where a widget click can only arrive once this thread returns: the thread runs an event loop
    (a cell in ipykernel runs inside the kernel's loop), or it is the main thread of a kernel."""
    if _running_loop() is not None:
        return True
    if threading.current_thread() is not threading.main_thread() or "IPython" not in sys.modules:
        return False
    from IPython import get_ipython

    return getattr(get_ipython(), "kernel", None) is not None


def _running_loop() -> Optional[asyncio.AbstractEventLoop]:
    """The event loop running in this thread (the kernel's, inside a widget callback), or None."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _model(model: Any) -> Any:
    """A ``sampling_model`` as a ``Model`` (a bad string fails when given, not when a tool asks)."""
    from workbench.models import get

    return get(model)
