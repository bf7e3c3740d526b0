"""``ToolForm``: a tool's JSON Schema as a form that validates, runs and shows the result.

Layout, top to bottom: header (name, flags, the description as markdown) · Form ⇄ JSON toggle ·
fields (or the JSON editor) · error summary · Run / Cancel / Reset / Save as test + the call's time ·
the Save-as-test message · progress bar (only once a call runs) · approval prompt (``ASK_USER`` tools) ·
returns-mismatch warning · result (with a Copy button) · the *Request* (ToolUse JSON), *Response*
(ToolResult JSON) and *Copy as code* sections, each with a Copy button. Enter in a one-line field or
Ctrl/Cmd+Enter in any field runs the form, Esc cancels a running call.

The form is made of parts with one job each, which talk through public methods:
``FieldArea`` (``_form_fields``: the fields), ``FormRunner`` (``_form_run``: a call's life),
``FormProgress`` (``_form_progress``), ``FormOutcome`` (``_form_outcome``: result, request, response),
``SaveAsTest`` (``_form_save``), ``FormConnection`` (``_form_connection``: a disconnected MCP tool),
``FormHistory`` (``_form_history``) and ``FormPins`` (``_form_pins``). This class lays them out and
keeps the public API.
"""

from __future__ import annotations

import concurrent.futures
import json
from pathlib import Path
from typing import Any, Callable, Optional

import ipywidgets as W

from workbench._html import escape as _e
from workbench._styles import BADGE_STYLE, BORDER, TEXT, WARNING_STYLE, WRAP
from workbench.jupyter._approval import ApprovalPrompt
from workbench.jupyter._field_layout import resolve_layout
from workbench.jupyter._field_table import WIDGETS, WidgetTable
from workbench.jupyter._fields import Field
from workbench.jupyter._form_connection import FormConnection
from workbench.jupyter._form_fields import FieldArea, parse_error_path
from workbench.jupyter._form_history import FormHistory
from workbench.jupyter._form_outcome import FormOutcome
from workbench.jupyter._form_pins import FormPins, Pin
from workbench.jupyter._form_progress import PROGRESS_INTERVAL, FormProgress
from workbench.jupyter._form_run import FormRunner, PendingRun
from workbench.jupyter._form_save import SaveAsTest
from workbench.jupyter._json_mode import JsonMode
from workbench.jupyter._keys import FormKeys
from workbench.jupyter._render import description_html, error_summary_html, form_summary_html
from workbench.jupyter._widget_kit import WidgetKit, mark_view
from workbench.jupyter._widget_types import tool_annotations
from workbench.secrets import mask_arguments
from workbench.types import Permission, ToolResult, error_result, new_tool_use_id, utc_now_iso

__all__ = ["ToolForm", "PendingRun", "PROGRESS_INTERVAL", "NO_DESCRIPTION_WARNING", "parse_error_path"]

#: shown in the form of a tool without a description (``spec.validate()`` rejects such a spec)
NO_DESCRIPTION_WARNING = "no description: a model will not know when to call this tool"
#: Run's tooltip: where a user looks for the shortcut
RUN_TOOLTIP = "Run the tool (Enter in a one-line field, Ctrl+Enter or ⌘+Enter in any field)"


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

    def __init__(
        self,
        tool: Any,
        workbench: Any = None,
        layout: str = "auto",
        *,
        sampling_model: Any = None,
        widgets: Optional[WidgetTable] = None,
    ) -> None:
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
        self._own_registry: Any = None
        # one style object per widget class for the form's own widgets (each would be a model of its own,
        # saved with the notebook); layouts stay their own: views embedding a form hide some in place
        self.kit = kit = WidgetKit()
        html, button = kit.style(W.HTML), kit.style(W.Button)

        self.header = W.HTML(self._header_html(), layout=W.Layout(flex="1 1 auto", min_width="0"), **html)
        self.header.add_class("workbench-form-header")
        self.description_warning = W.HTML(
            f"<div style='{WARNING_STYLE}'><b>Warning</b>: {NO_DESCRIPTION_WARNING} — add a docstring "
            "(or pass a description: <code>%%tool --description …</code>, <code>@tool(description=…)</code>)</div>",
            layout=W.Layout(display=None if _lacks_description(self.spec) else "none"),
            **html,
        )
        self.connection_panel = FormConnection(self, kit)
        self.field_area = FieldArea(
            self.spec,
            layout,
            self._check_inputs,
            builder=lambda: self.widget_table.builder(tool_annotations(self.tool)),
        )
        self.fields_box = self.field_area.box
        self.summary = W.HTML(layout=W.Layout(display="none"), **html)
        self.run_button = W.Button(
            description="Run", button_style="primary", icon="play", tooltip=RUN_TOOLTIP, **button
        )
        self.cancel_button = W.Button(
            description="Cancel", icon="stop", disabled=True, tooltip="Cancel the running call (Esc)", **button
        )
        self.reset_button = W.Button(description="Reset", icon="undo", tooltip="Back to the defaults", **button)
        self.saver = SaveAsTest(self.spec.name, self.registry, kit)
        self.save_button, self.save_message = self.saver.button, self.saver.message
        self.progress_panel = FormProgress()
        self.progress, self.progress_label = self.progress_panel.progress, self.progress_panel.progress_label
        self.progress_box, self.elapsed = self.progress_panel.box, self.progress_panel.elapsed
        self.approval = ApprovalPrompt()
        self.elicitation: Any = None  # the tool's ctx.elicit() form (jupyter/_tool_peer.py), built when first asked
        self.ask_box = W.VBox()
        self.runner = FormRunner(self)
        self.pins_panel = FormPins(self.spec.name, self.runner.last_run, kit=kit)
        self.pin_button, self.pins_box, self.pins_html = (
            self.pins_panel.button,
            self.pins_panel.box,
            self.pins_panel.html,
        )
        self.outcome = FormOutcome(self.spec.name, self.pin_button, kit)
        for name in (
            "warning",
            "result_html",
            "request_html",
            "response_html",
            "code",
            "copy_result",
            "copy_request",
            "copy_response",
            "copy_code",
            "result_tools",
            "details",
        ):
            setattr(self, name, getattr(self.outcome, name))
        # the JSON editor shows secrets as *** (its text is saved with the notebook); *** typed back keeps them
        self.json_mode = JsonMode(
            self.spec,
            read=lambda: mask_arguments(self.values, self.spec.secret_parameters),
            write=self._load_input,
            on_mode=self._on_json_mode,
        )
        # the Form ⇄ JSON switch sits at the right of the header; the header takes the rest (and wraps)
        self.json_mode.toggle.layout = W.Layout(flex="0 0 auto")
        self.header_row = W.HBox(
            [self.header, self.json_mode.toggle], layout=W.Layout(align_items="flex-start", width="100%")
        )
        self.history_box = FormHistory(workbench.log, self.spec.name, self._load_history_input)
        self.history_select = self.history_box.select
        self.shortcuts = FormKeys(on_run=self._key_run, on_cancel=self.cancel, layout=W.Layout(display="none"))
        self.key_hint = W.HTML(KEY_HINT, layout=W.Layout(margin="0 0 0 4px"), **html)
        self.key_hint.add_class("workbench-key-hint")

        self.run_button.on_click(lambda _b: self._click_run())
        self.cancel_button.on_click(lambda _b: self.cancel())
        self.reset_button.on_click(lambda _b: self.reset())
        self.save_button.on_click(lambda _b: self.saver.click(self.save_as_test))

        super().__init__(
            [
                self.header_row,
                self.description_warning,
                self.connection_panel.box,
                self.fields_box,
                self.json_mode.box,
                self.summary,
                W.HBox(
                    [
                        self.run_button,
                        self.cancel_button,
                        self.reset_button,
                        self.save_button,
                        self.elapsed,
                        self.history_select,
                        self.key_hint,
                    ],
                    layout=W.Layout(flex_flow="row wrap", align_items="center"),
                ),
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
            ],
            layout=W.Layout(border=f"1px solid {BORDER}", padding="6px", margin="4px 0"),
        )
        # stable hooks for CSS and the browser test
        self.add_class("workbench-form")
        self.add_class(f"workbench-form-{self.spec.name}")
        mark_view(self)
        self.run_button.add_class("workbench-run")
        self.cancel_button.add_class("workbench-cancel")
        self.connection_panel.watch(self.tool)

    # -- the parts' state, as attributes of the form ---------------------------------------------------
    fields = property(lambda self: self.field_area.fields, doc="The top-level fields by parameter name.")
    arrangement = property(lambda self: self.field_area.arrangement)
    running = property(lambda self: self.runner.running, doc="True while a call runs.")
    tool_use = property(lambda self: self.runner.tool_use, doc="The call on screen (secrets masked).")
    progress_history = property(lambda self: self.progress_panel.history)
    saved_path = property(lambda self: self.saver.saved_path)
    disconnected = property(lambda self: self.connection_panel.disconnected)
    disconnected_banner = property(lambda self: self.connection_panel.banner)
    disconnected_box = property(lambda self: self.connection_panel.box)
    reconnect_button = property(lambda self: self.connection_panel.button)
    _task = property(lambda self: self.runner.task)
    _current_id = property(lambda self: self.runner.current_id)

    @property
    def result(self) -> Optional[ToolResult]:
        """The last call's ``ToolResult`` (None before any, or after a reset)."""
        return self.runner.result

    @result.setter
    def result(self, value: Optional[ToolResult]) -> None:
        self.runner.result = value

    @property
    def on_reconnect(self) -> Optional[Callable[[], Any]]:
        """What the Reconnect button does instead of :meth:`reconnect` (a view owning the connection,
        e.g. the inspect view, reconnects itself and shows new forms)."""
        return self.connection_panel.on_reconnect

    @on_reconnect.setter
    def on_reconnect(self, action: Optional[Callable[[], Any]]) -> None:
        self.connection_panel.on_reconnect = action

    @property
    def widget(self) -> "ToolForm":
        return self

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
        return (
            f"<div style='{WRAP};line-height:normal'>"
            f"<div><b style='font-size:1.1em'><code>{_e(spec.name)}</code></b>{badges}</div>"
            f"<div class='workbench-description' style='color:{TEXT};margin:4px 0 6px 0'>"
            f"{description_html(spec.description or '')}</div></div>"
        )

    def field(self, path: str) -> Optional[Field]:
        """The field at ``path`` (``"item.qty"``, ``"items[0]"``, ``"$.a"``), or None."""
        return self.field_area.field(path)

    # -- a tool whose connection can end (MCP proxies) ------------------------------------------------
    def _show_disconnected(self, problem: str = "") -> None:
        self.connection_panel.show(problem)

    def set_runnable(self, runnable: bool, why: str = "") -> None:
        """Enable Run (unless a call runs) or disable it, saying ``why`` in its tooltip."""
        self.run_button.disabled = self.running if runnable else True
        self.run_button.button_style = (
            "primary" if runnable else ""
        )  # a disabled primary button still looks live in the dark theme
        self.run_button.tooltip = RUN_TOOLTIP if runnable else why

    def reconnect(self, connect_timeout: Optional[float] = 30.0) -> Any:
        """Connect the tool's MCP server again (``connection.reconnect()``) and make this form run the new
        proxy of the same name; returns it (what the banner's **Reconnect** button does). When another
        view already reconnected the server, the form takes the live proxy without starting a new one.
        The values typed stay unless the tool's parameters changed."""
        return self.connection_panel.reconnect(connect_timeout)

    def rebind(self, tool: Any) -> None:
        """Run ``tool`` (a new proxy of the same name) from now on: connected again, Run enabled."""
        self.connection_panel.unwatch()
        same_parameters = tool.spec.parameters == self.spec.parameters
        self.tool, self.spec, self._own_registry = tool, tool.spec, None
        self.header.value = self._header_html()
        if not same_parameters:  # else the fields (and what was typed) stay as they are
            self.field_area.rebuild(tool.spec)
        else:
            self.field_area.spec = tool.spec
        self.connection_panel.hide()
        self.connection_panel.watch(tool)

    # -- values --------------------------------------------------------------------------------------
    @property
    def values(self) -> dict[str, Any]:
        """The input the form would send (untouched optional fields omitted). ``ValueError`` if a
        widget holds something unconvertible (invalid JSON, duplicate keys)."""
        return self.field_area.values

    def set_values(self, values: dict[str, Any]) -> "ToolForm":
        """Fill fields as a user would (they become touched). Unknown names raise ``KeyError``;
        values the widget cannot show raise ``ValueError``/``TypeError``."""
        self.field_area.set_values(values)
        return self

    def _load_input(self, values: dict[str, Any]) -> None:
        self.field_area.load(values)

    @property
    def history(self) -> list[dict[str, Any]]:
        """This tool's last ten distinct inputs from the execution log, newest first."""
        return list(self.history_box.inputs)

    def load_history(self, index: int) -> dict[str, Any]:
        """Put history entry ``index`` (0 = newest) back into the fields (or the JSON editor); returns it."""
        return self.history_box.load(index)

    def _load_history_input(self, values: dict[str, Any]) -> None:
        self.field_area.load(values)
        if self.json_mode.active:  # the editor shows what was loaded
            self.json_mode.editor.value = json.dumps(values, indent=2, ensure_ascii=False, default=repr)
            self.json_mode.check()

    # -- pins ---------------------------------------------------------------------------------------
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
        (elapsed time, progress, Cancel) stays until its result arrives. The replaced fields' widgets
        are closed."""
        self.field_area.rebuild()
        self._show_errors({})
        if not self.running:
            self._clear_outcome()

    def _clear_outcome(self) -> None:
        """Forget the previous call's outcome on screen: result, warning, progress, timing, request/response."""
        self.runner.forget()
        self.outcome.clear()
        self.progress_panel.clear()
        self.saver.ready(False)

    # -- validation ----------------------------------------------------------------------------------
    def _check_inputs(self, values: dict[str, Any]) -> dict[str, Any]:
        """The tool's input check in the mode its calls run in (the executor's or a ``validating()``
        context's, else the tool's, else its registry's), so the form refuses what Run would."""
        from workbench._validation_mode import mode_for, run_mode

        return self.spec.check_inputs(values, mode_for(self.spec, run_mode(self.workbench.executor), self.registry()))

    def show_errors(self, errors: dict[str, str]) -> None:
        """Show ``errors`` (by field path) in the summary above Run, and keep them in ``errors``."""
        self.errors = errors
        self.summary.value = error_summary_html(errors)
        self.summary.layout.display = None if errors else "none"

    _show_errors = show_errors

    def validate(self, given: Optional[dict[str, Any]] = None) -> Optional[dict[str, Any]]:
        """Check the form's values; fill ``errors`` and the inline messages. Returns the values or None.

        ``given``: values that go with the input but are not shown in the form (the secret a model gave,
        kept out of the widgets); a field left *not set* sends its ``given`` value."""
        values, errors = self.field_area.validate(given)
        self.show_errors(errors)
        return None if errors else values

    def _invalid_result(self, tool_use_id: str) -> ToolResult:
        message = "; ".join(f"{k}: {v}" if not v.startswith(k) else v for k, v in self.errors.items())
        now = utc_now_iso()
        return error_result(
            tool_use_id,
            message,
            "ToolInputError",
            tool_name=self.spec.name,
            extra={"errors": dict(self.errors)},
            latency_ms=0.0,
            started_at=now,
            completed_at=now,
        )

    # -- running -------------------------------------------------------------------------------------
    def registry(self) -> Any:
        """The registry the form's calls run in: the workbench's if it holds this tool, else one of its own."""
        registry = self.workbench.registry
        if registry.get(self.spec.name) is self.tool:
            return registry
        if self._own_registry is None:
            from workbench.registry import ToolRegistry

            self._own_registry = ToolRegistry()
            self._own_registry.register_tool(self.tool)
        return self._own_registry

    _registry = registry

    def invocation_state(self) -> dict:
        """The executor's invocation state plus this form as the tool's peer (``ctx.elicit`` asks here)."""
        from workbench._peer import PEER_KEY
        from workbench.jupyter._tool_peer import FormPeer

        return {**(getattr(self.workbench.executor, "invocation_state", None) or {}), PEER_KEY: FormPeer(self)}

    def prepare(self) -> "dict | ToolResult":
        """Check the input for a new call: the ToolUse to send, or the error result of invalid input
        (``errors`` says why; nothing runs)."""
        tool_use_id = new_tool_use_id()
        self._clear_outcome()  # a new attempt: the previous outcome must not stay under its errors
        if self.json_mode.active:  # the editor is what the user sees: the fields follow it first
            _value, problem = self.json_mode.apply()
            if problem is not None:
                self.show_errors({"$": problem})
                self.outcome.refused()
                return self._invalid_result(tool_use_id)
        values = self.validate()
        if values is None:
            self.outcome.refused()
            return self._invalid_result(tool_use_id)
        return {"toolUseId": tool_use_id, "name": self.spec.name, "input": values}

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
        return self.runner.run()

    async def run_async(self) -> ToolResult:
        """Validate and run on the running event loop; ``await form.run_async()`` in a cell returns the
        ``ToolResult`` — after the Approve / Deny click for an ``ASK_USER`` tool — without blocking the
        kernel. Invalid input returns an error result (nothing runs) and fills ``errors``."""
        return await self.runner.run_async()

    def submit(self) -> Optional[concurrent.futures.Future]:
        """Start a call without blocking: on the running event loop (the kernel's) if there is one,
        else on a background thread. Returns a ``concurrent.futures.Future`` of the ``ToolResult``,
        or None when validation failed (``errors`` says why)."""
        return self.runner.submit()

    def wait(self, timeout: Optional[float] = None) -> Optional[ToolResult]:
        """Block until the current (or last) submitted call ends; returns its result.

        ``RuntimeError`` (instead of a deadlock) when the call runs on the event loop of this very
        thread — a cell in the kernel: ``await`` it (``await form.run_async()``) or read ``form.result``
        in a later cell."""
        return self.runner.wait(timeout)

    def cancel(self) -> bool:
        """Cancel the running call (a pending approval is denied). Returns False if nothing was running."""
        return self.runner.cancel()

    def _key_run(self) -> None:
        """Enter / Ctrl+Enter: run unless a call runs or the tool is disconnected."""
        if self.running or self.disconnected:
            return
        from workbench.jupyter._form_run import KEY_RUN_DELAY, running_loop

        loop = running_loop()
        if loop is not None:
            loop.call_later(KEY_RUN_DELAY, self._click_run)
        else:
            self._click_run()

    def _click_run(self) -> None:
        try:
            self.submit()
        except Exception as exc:  # noqa: BLE001 - a button must not raise into the kernel
            self.show_errors({"$": f"{type(exc).__name__}: {exc}"})

    # -- Save as test ----------------------------------------------------------------------------------
    def save_as_test(self, expect: Optional[str] = None) -> Path:
        """Write the last finished call as a test case to ``<case folder>/<tool>.cases.json`` and
        return the file's path (what the **Save as test** button does).

        ``expect`` (``exact``/``subset``/``schema``/``error``) defaults as in
        ``ToolCase.from_result``: ``error`` for a failed call, ``schema`` for a synthetic result,
        else ``exact``. ``RuntimeError`` if no call finished yet; ``workbench.testing.CaseFileError``
        if the call cannot be saved with that expectation.
        """
        runner = self.runner
        return self.saver.save(
            runner.tool_use,
            runner.result,
            running=runner.running,
            expect=expect,
            secret_names=self.spec.secret_parameters if runner.secrets else (),
        )

    def __repr__(self) -> str:
        return f"<ToolForm {self.spec.name!r} fields={list(self.fields)}>"

    def _repr_mimebundle_(self, **kwargs: Any) -> Optional[dict]:
        """The widget view plus a static ``text/html`` summary (name, description, parameters) for
        readers without the live widget: GitHub, nbviewer, a saved notebook opened before it ran."""
        bundle = super()._repr_mimebundle_(**kwargs)
        if bundle is not None:
            bundle["text/html"] = form_summary_html(self.spec, tuple(self._flags()))
        return bundle


#: beside Run: the keyboard shortcuts, where a user looks
KEY_HINT = (
    "<span class='workbench-key-hint-text'><kbd>Enter</kbd> runs · "
    "<kbd>Ctrl</kbd>+<kbd>Enter</kbd> in a multi-line box</span>"
)


def _lacks_description(spec: Any) -> bool:
    return not (spec.description or "").strip()


def _model(model: Any) -> Any:
    """A ``sampling_model`` as a ``Model`` (a bad string fails when given, not when a tool asks)."""
    from workbench.models import get

    return get(model)
