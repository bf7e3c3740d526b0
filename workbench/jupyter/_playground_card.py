"""``ToolCallCard``: one tool call a model made: its arguments, then (when asked) the tool's own form.

A card is compact while nothing is asked of the user: the arguments as a small table (the rows past
the first few behind a ``<details>``), the result, and the raw ``ToolUse`` / ``ToolResult`` JSON (a
collapsed ``<details>``: plain HTML needs no widgets of its own, and a notebook saves every widget).
In *step* mode the card asks before the call runs: the tool's form, filled with the model's
arguments, is built and shown editable, and **Approve** / **Deny** resolve :meth:`ToolCallCard.ask`'s
future with ``True`` (run as the model asked), an edited input dict (run what the form now holds) or
``False`` (answer the model with a denial) — the values the agent loop's ``review`` takes. Once
decided, the form is hidden again and the table shows what ran; once the call has its result the
form's widgets are closed (built again, showing what ran, if ``form`` is read). Tokens belong to the
model's turn (shown under it), not to the card; a call that never ran shows no time.

A call the form cannot show (an unknown tool, arguments that do not fit the schema) is shown as
its JSON; approving it runs the call as the model sent it.

A secret parameter (``SecretStr``) is never put in the card's widgets: its field is left empty with a
note, the raw JSON shows ``***``, and approving with the field left empty sends the model's value (kept
in the card's Python state only — see :meth:`ToolCallCard.remember`).
"""

from __future__ import annotations

import concurrent.futures
import json
import threading
from typing import Any, Optional, Union

import ipywidgets as W

from workbench._html import details, display_status, status_html
from workbench._html import escape as _e
from workbench._styles import BADGE_STYLE, ERROR_BOX_STYLE, MUTED, WRAP
from workbench.jupyter._close import close_widgets
from workbench.jupyter._render import json_html, result_area_html
from workbench.secrets import MASK, mask_arguments

__all__ = ["ToolCallCard", "Decision", "NOT_RUN_TYPES", "arguments_html"]

#: what a card's decision resolves to: True (run as asked), False (deny) or the edited input
Decision = Union[bool, dict]

#: the card's frame: the theme's border, the brand colour down its left edge
_CARD_BORDER = "1px solid var(--jp-border-color1, silver)"
_CARD_EDGE = "4px solid var(--jp-brand-color1, steelblue)"
#: the card header's status words (beyond a result's display status)
_STATE_TEXT = {
    "proposed": "proposed",
    "waiting": "waiting for your approval",
    "running": "running",
    "denied": "denied",
    "stopped": "not run: the run was stopped",
}
#: states of a call that never ran (no time to show)
_NOT_RUN_STATES = frozenset({"denied", "stopped"})
#: a result's ``error_type`` that says the call never ran: the user (or a permission) refused it
NOT_RUN_TYPES = frozenset({"DeniedByUser", "ReviewFailed", "PermissionDenied", "ToolPermissionError"})
#: arguments shown at once in the table; the others are one click away
_SHOWN_ARGUMENTS = 4
#: the form's own controls a card never shows (it runs nothing itself, and has no history of its own)
_FORM_PARTS_HIDDEN = (
    "run_button",
    "cancel_button",
    "reset_button",
    "save_button",
    "elapsed",
    "history_select",
    "result_html",
    "result_tools",
    "pins_box",
    "details",
)


def _value_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=repr)


def arguments_html(arguments: Any) -> str:
    """A call's arguments as a small two-column table (escaped); past the first few, the rest sit in a
    ``<details>`` the user opens. Not a dict (a model that sent a list or a string): its JSON."""
    if not isinstance(arguments, dict):
        return json_html(arguments)
    if not arguments:
        return f"<div class='workbench-card-args' style='color:{MUTED};font-size:0.85em'>no arguments</div>"
    rows = [
        f"<tr><th scope='row' style='text-align:left;font-weight:600;padding:0 8px 0 0;vertical-align:top;width:1%'>"
        f"{_e(name)}</th><td style='{WRAP};white-space:pre-wrap;padding:0;vertical-align:top'>{_e(_value_text(value))}</td></tr>"
        for name, value in arguments.items()
    ]
    # line-height: an HTML widget's content inherits the 28px line of a widget row
    table = (
        "<table class='workbench-card-args' style='border-collapse:collapse;font-size:0.85em;width:100%;line-height:1.4;"
        "table-layout:auto'>{}</table>"
    )
    shown = table.format("".join(rows[:_SHOWN_ARGUMENTS]))
    if len(rows) <= _SHOWN_ARGUMENTS:
        return shown
    more = len(rows) - _SHOWN_ARGUMENTS
    return (
        f"{shown}<details class='workbench-card-more'><summary style='font-size:0.85em'>{more} more "
        f"argument(s)</summary>{table.format(''.join(rows[_SHOWN_ARGUMENTS:]))}</details>"
    )


class ToolCallCard(W.VBox):
    """The card of one tool call.

    Args:
        tool_use: the model's call (``{"toolUseId", "name", "input"}``).
        tool: the tool it names (``None`` when the model named a tool that is not offered).
        workbench: the ``Workbench`` whose forms are used (the form runs nothing itself).

    Attributes: ``tool_use``, ``tool``, ``form`` (the tool's ``ToolForm``, built on first use, or ``None``
    when the arguments do not fit it), ``state`` (``proposed``, ``waiting``, ``running``, ``denied``,
    ``stopped``, or the result's display status), ``result``, ``decision``, ``arguments_html`` (the
    compact table shown while no form is).
    """

    def __init__(self, tool_use: dict, tool: Any = None, workbench: Any = None) -> None:
        self.tool = tool
        self.workbench = workbench
        self._secret_names: frozenset[str] = getattr(getattr(tool, "spec", None), "secret_parameters", frozenset())
        self._given: dict[str, Any] = {}  # the model's secret values: never in a widget
        self.remember(tool_use)
        masked = mask_arguments(tool_use.get("input"), self._secret_names)
        self.tool_use = {**tool_use, "input": masked} if masked is not tool_use.get("input") else dict(tool_use)
        self.result: Any = None
        self.decision: Optional[Decision] = None
        self.state = "proposed"
        self._future: Optional[concurrent.futures.Future] = None
        self._lock = threading.Lock()
        self._locked: Optional[list] = None  # (control, its own disabled state) while the form is read-only
        self._editable_ask = True
        self._form: Any = None
        self._form_built = False  # the form costs dozens of widgets: built only when a call is asked about
        self._misfit = ""
        self.header = W.HTML()
        self.header.add_class("workbench-card-header")
        self.note = W.HTML(layout=W.Layout(display="none"))
        self.secret_note = W.HTML(layout=W.Layout(display="none"))
        self.raw_input = W.HTML(
            json_html(self.tool_use.get("input", {})), layout=W.Layout(display=None if tool is None else "none")
        )
        self.arguments_html = W.HTML(
            arguments_html(self.tool_use.get("input", {})), layout=W.Layout(display="none" if tool is None else None)
        )
        self.arguments_html.add_class("workbench-card-arguments")
        self.form_box = W.VBox([], layout=W.Layout(display="none"))
        self.approve_button = W.Button(
            description="Approve",
            button_style="success",
            icon="check",
            tooltip="Run this call with the arguments in the form",
        )
        self.deny_button = W.Button(
            description="Deny",
            button_style="danger",
            icon="times",
            tooltip="Do not run it: the model gets a denial as the result",
        )
        self.approve_button.add_class("workbench-approve")
        self.deny_button.add_class("workbench-deny")
        self.approve_button.on_click(lambda _b: self.approve())
        self.deny_button.on_click(lambda _b: self.deny())
        self.buttons = W.HBox([self.approve_button, self.deny_button], layout=W.Layout(display="none"))
        self.result_html = W.HTML()
        self.result_html.add_class("workbench-result-area")
        self.raw = W.HTML()
        self.raw.add_class("workbench-raw-call")
        self._show_raw(self.tool_use, None)
        self._decided_listeners: list[Any] = []
        self._asked_listeners: list[Any] = []
        super().__init__(
            [
                self.header,
                self.note,
                self.secret_note,
                self.raw_input,
                self.arguments_html,
                self.form_box,
                self.buttons,
                self.result_html,
                self.raw,
            ],
            layout=W.Layout(
                margin="4px 0",
                padding="2px 6px",
                border_top=_CARD_BORDER,
                border_right=_CARD_BORDER,
                border_bottom=_CARD_BORDER,
                border_left=_CARD_EDGE,
                min_width="0",
            ),
        )
        self.add_class("workbench-tool-card")
        self.add_class(f"workbench-tool-card-{_css_name(self.tool_use.get('name', ''))}")
        self._show_header()
        self._show_secret_note()

    # -- building ------------------------------------------------------------------------------------
    @property
    def form(self) -> Any:
        """The tool's ``ToolForm`` filled with the model's arguments (built on first use; read-only unless
        a call is being asked about), or ``None`` for an unknown tool or arguments it cannot hold."""
        if not self._form_built:
            self._form = self._make_form()
            self._form_built = True
            if self._form is not None:
                self.form_box.children = (self._form,)
                self._set_editable(self.pending and self._editable_ask)
            else:
                self.raw_input.layout.display = None
                self.arguments_html.layout.display = "none"
                self._show_header()
            self._show_secret_note()
        return self._form

    def _make_form(self) -> Any:
        """The tool's form filled with the model's arguments (or the edited ones that ran), without its
        own run controls."""
        if self.tool is None:
            return None
        from workbench.jupyter._form import ToolForm

        form = ToolForm(self.tool, self.workbench)
        for part in _FORM_PARTS_HIDDEN:
            widget = getattr(form, part, None)
            if widget is not None:
                widget.layout.display = "none"
        # the form's Ctrl/Cmd+Enter approves this call; it must never run the tool past the agent loop
        form.shortcuts._actions.update(run=self._key_approve, cancel=lambda: None)
        ran = self.decision if isinstance(self.decision, dict) else (self.tool_use.get("input") or {})
        try:  # a secret is left empty (see remember): neither *** nor the model's value goes in a widget
            form.set_values({k: v for k, v in ran.items() if k not in self._secret_names})
        except (KeyError, ValueError, TypeError) as exc:
            self._misfit = str(exc)
            close_widgets(form)
            return None
        return form

    def remember(self, tool_use: dict) -> None:
        """Keep the secret values of the model's own call (the agent loop's ``review`` gets it; the steps
        a live view is told of show ``***``), so that approving with a secret's field left empty sends
        the model's value. They live in this object only, never in a widget or the notebook."""
        given = tool_use.get("input") if isinstance(tool_use, dict) else None
        if isinstance(given, dict):
            self._given.update(
                {
                    name: given[name]
                    for name in self._secret_names
                    if given.get(name) is not None and given.get(name) != MASK
                }
            )
        if hasattr(self, "secret_note"):
            self._show_secret_note()

    def _show_secret_note(self) -> None:
        names = sorted(n for n in self._secret_names if n in (self.tool_use.get("input") or {}))
        if self._form is None or not names:
            return
        kept = [n for n in names if n in self._given]
        lost = [n for n in names if n not in self._given]
        parts = []
        if kept:
            parts.append(
                f"secret {', '.join(kept)}: the model's value is not shown; leave the field empty to "
                f"send it, or type another"
            )
        if lost:
            parts.append(f"secret {', '.join(lost)}: its value was not kept (***); type it")
        self.secret_note.value = f"<div style='color:{MUTED};font-size:0.9em'>{_e('. '.join(parts))}</div>"
        self.secret_note.layout.display = None

    def _model_input(self) -> dict:
        """The model's arguments, secrets as it gave them (when known)."""
        return {**(self.tool_use.get("input") or {}), **self._given}

    @property
    def name(self) -> str:
        """The tool's name as the model called it."""
        return str(self.tool_use.get("name", ""))

    def _show_header(self) -> None:
        state = self.state
        word = (
            status_html(state)
            if state not in _STATE_TEXT
            else (f"<span class='workbench-card-state' style='color:{MUTED}'>{_e(_STATE_TEXT[state])}</span>")
        )
        timing = ""
        if self.result is not None and self.ran:
            ms = (self.result.metadata or {}).get("latency_ms")
            if isinstance(ms, (int, float)):
                timing = f"<span class='workbench-card-badge' style='{BADGE_STYLE}'>took {ms:.1f} ms</span>"
        edited = (
            f"<span class='workbench-card-badge' style='{BADGE_STYLE}'>edited</span>"
            if isinstance(self.decision, dict)
            else ""
        )
        self.header.value = (
            f"<div style='{WRAP};padding:2px 0'><i class='fa fa-wrench' aria-hidden='true'></i> "
            f"<b>{_e(self.name)}</b> "
            f"<code class='workbench-card-id' style='color:{MUTED};font-size:0.85em'>"
            f"{_e(self.tool_use.get('toolUseId', ''))}</code> "
            f"· {word}{edited}{timing}</div>"
        )
        if self.tool is None:
            self._show_note(f"The model called <code>{_e(self.name)}</code>, which is not among the tools offered.")
        elif self._form_built and self._form is None:
            self._show_note(
                f"These arguments do not fit the form of <code>{_e(self.name)}</code> "
                f"({_e(self._misfit)}); approving runs them as sent."
            )

    @property
    def ran(self) -> bool:
        """False for a call that never ran (denied, stopped, refused by a permission)."""
        if self.state in _NOT_RUN_STATES:
            return False
        error_type = (getattr(self.result, "metadata", None) or {}).get("error_type")
        return error_type not in NOT_RUN_TYPES

    def _show_note(self, html: str) -> None:
        self.note.value = f"<div style='{ERROR_BOX_STYLE}'>{html}</div>"
        self.note.layout.display = None

    def _set_editable(self, editable: bool) -> None:
        """The form (editable, with Approve / Deny) while a decision is asked; else the compact table."""
        form = self._form
        if form is not None:
            if editable and self._locked is not None:  # give each control back the state the form gave it
                for control, was in self._locked:
                    control.disabled = was
                self._locked = None
            elif not editable and self._locked is None:
                self._locked = [(c, c.disabled) for c in _controls(form.fields_box)]
                for control, _was in self._locked:
                    control.disabled = True
            form.json_mode.toggle.layout.display = None if editable else "none"
        shows_form = editable and form is not None
        self.form_box.layout.display = None if shows_form else "none"
        if self.tool is not None and not (self._form_built and form is None):
            self.arguments_html.layout.display = "none" if shows_form else None
        self.buttons.layout.display = None if editable else "none"
        self.approve_button.disabled = self.deny_button.disabled = not editable

    def on_decided(self, callback: Any) -> None:
        """Call ``callback(card)`` once the user (or the run) decided this card's waiting call."""
        self._decided_listeners.append(callback)

    def on_asked(self, callback: Any) -> None:
        """Call ``callback(card)`` each time this card starts waiting for Approve / Deny."""
        self._asked_listeners.append(callback)

    # -- deciding ------------------------------------------------------------------------------------
    @property
    def pending(self) -> bool:
        """True while the card waits for Approve or Deny."""
        future = self._future
        return future is not None and not future.done()

    def ask(self, *, editable: bool = True) -> concurrent.futures.Future:
        """Show Approve / Deny (and make the form editable, unless ``editable=False``: an ``ASK_USER``
        tool's approval in auto mode, where only yes or no is asked) and return the future they resolve
        with the decision (``True``, ``False`` or the edited input)."""
        self._editable_ask = editable
        if editable:
            _ = self.form  # built before the card counts as waiting: whoever sees it waiting finds its form
        future: concurrent.futures.Future = concurrent.futures.Future()
        with self._lock:
            self._future = future
        self.state = "waiting"
        self._set_editable(editable)
        if not editable:  # only yes or no is asked: the table stays, the buttons show
            self.buttons.layout.display = None
            self.approve_button.disabled = self.deny_button.disabled = False
        self._show_header()
        for callback in list(self._asked_listeners):
            callback(self)
        return future

    def approve(self) -> bool:
        """Approve the waiting call with the form's values (checked first: a form with errors shows them
        and stays waiting). Returns False if nothing was waiting or the form has errors."""
        if not self.pending:
            return False
        decision: Decision = True
        if self._form is not None and self._editable_ask:
            if self.form.json_mode.active:  # the JSON editor is what the user sees: the fields follow it first
                _value, problem = self.form.json_mode.apply()
                if problem is not None:
                    self.form._show_errors({"$": problem})
                    return False
            values = self.form.validate(self._given)
            if values is None:
                return False
            if values != self._model_input():
                decision = values
        return self._decide(decision)

    def _key_approve(self) -> None:
        if self.pending:
            self.approve()

    def deny(self) -> bool:
        """Deny the waiting call (the model is told it was denied). Returns False if nothing was waiting."""
        return self.pending and self._decide(False)

    def _decide(self, decision: Decision) -> bool:
        with self._lock:
            future = self._future
            if future is None or future.done():
                return False
            # before the future wakes the run: its result may land (show_result) before this returns
            self.decision = decision
            self.state = "denied" if decision is False else "running"
            future.set_result(decision)
        self._set_editable(False)
        if isinstance(decision, dict):  # the table shows what runs
            self.arguments_html.value = arguments_html(mask_arguments(decision, self._secret_names))
        self._show_header()
        self._tell_decided()
        return True

    def _tell_decided(self) -> None:
        for callback in list(self._decided_listeners):
            callback(self)

    def show_stopped(self) -> None:
        """The run ended before this call got a result (it was stopped): nothing waits any more."""
        with self._lock:
            future = self._future
            waited = future is not None and not future.done()
            if future is not None and waited:
                future.set_result(False)
        self.state = "stopped"
        self._set_editable(False)
        self._show_header()
        self._close_form()
        if waited:
            self._tell_decided()

    # -- outcome -------------------------------------------------------------------------------------
    def show_running(self) -> None:
        """Mark the call as running (auto mode: it runs as soon as the model asked)."""
        if self.state == "proposed":
            self.state = "running"
            self._show_header()

    def show_result(self, result: Any) -> None:
        """Show the call's ``ToolResult``: status, body, time, and the raw JSON."""
        self.result = result
        if self.state != "denied":
            self.state = display_status(result)
        waited = False
        if self.pending:  # the loop answered without asking (e.g. the run was stopped)
            with self._lock:
                if self._future is not None and not self._future.done():
                    self._future.set_result(False)
                    waited = True
        self._set_editable(False)
        returns = getattr(getattr(self.tool, "spec", None), "returns", None)
        self.result_html.value = result_area_html(result, returns)
        request = self.tool_use
        if isinstance(self.decision, dict):
            request = {**self.tool_use, "input": mask_arguments(self.decision, self._secret_names)}
        self._show_raw(request, result.to_dict() if hasattr(result, "to_dict") else result)
        self._show_header()
        self._close_form()
        if waited:
            self._tell_decided()

    def _show_raw(self, request: dict, response: Any) -> None:
        answer = "<i>no result yet</i>" if response is None else json_html(response)
        self.raw.value = details(
            "Raw call JSON",
            f"<b>Request (ToolUse)</b>{json_html(request)}<b>Response (ToolResult)</b>{answer}",
        )

    def _close_form(self) -> None:
        """The call is over: close the form's widgets (dozens, each saved with the notebook). Reading
        ``form`` again builds a read-only one showing what ran."""
        form = self._form
        if form is None or self.pending:
            return
        self.form_box.children = ()
        self._form, self._form_built, self._locked = None, False, None
        close_widgets(form)

    def __repr__(self) -> str:
        return f"<ToolCallCard {self.name!r} {self.state}>"


def _controls(widget: Any) -> list:
    """Every control (a widget with ``disabled``) under ``widget``."""
    found = [widget] if isinstance(widget, W.DOMWidget) and "disabled" in widget.trait_names() else []
    for child in getattr(widget, "children", ()):
        found.extend(_controls(child))
    return found


def _css_name(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)
