"""``ToolCallCard``: one tool call a model made, shown as the tool's own form filled with its arguments.

In *step* mode the card asks before the call runs: the form is editable and **Approve** / **Deny**
resolve :meth:`ToolCallCard.ask`'s future with ``True`` (run as the model asked), an edited input
dict (run what the form now holds) or ``False`` (answer the model with a denial) — the values the
agent loop's ``review`` takes. In *auto* mode the form is read-only and the call runs at once. The
card then shows the result, its time, and the raw ``ToolUse`` / ``ToolResult`` JSON (collapsed).

A call the form cannot show (an unknown tool, arguments that do not fit the schema) is shown as
its JSON; approving it runs the call as the model sent it.

A secret parameter (``SecretStr``) is never put in the card's widgets: its field is left empty with a
note, the raw JSON shows ``***``, and approving with the field left empty sends the model's value (kept
in the card's Python state only — see :meth:`ToolCallCard.remember`).
"""

from __future__ import annotations

import concurrent.futures
import threading
from typing import Any, Optional, Union

import ipywidgets as W

from workbench._html import display_status, status_html
from workbench._html import escape as _e
from workbench._styles import BADGE_STYLE, ERROR_BOX_STYLE, MUTED, WRAP
from workbench.jupyter._disclosure import Disclosure
from workbench.jupyter._render import json_html, result_area_html
from workbench.secrets import MASK, mask_arguments

__all__ = ["ToolCallCard", "Decision"]

#: what a card's decision resolves to: True (run as asked), False (deny) or the edited input
Decision = Union[bool, dict]

#: the card's frame: the theme's border, the brand colour down its left edge
_CARD_BORDER = "1px solid var(--jp-border-color1, silver)"
_CARD_EDGE = "4px solid var(--jp-brand-color1, steelblue)"
#: the card header's status words (beyond a result's display status)
_STATE_TEXT = {"proposed": "proposed", "waiting": "waiting for your approval", "running": "running",
               "denied": "denied", "stopped": "not run: the run was stopped"}


class ToolCallCard(W.VBox):
    """The card of one tool call.

    Args:
        tool_use: the model's call (``{"toolUseId", "name", "input"}``).
        tool: the tool it names (``None`` when the model named a tool that is not offered).
        workbench: the ``Workbench`` whose forms are used (the form runs nothing itself).
        usage: a short line about the model turn that made the call (tokens), shown in the header.

    Attributes: ``tool_use``, ``tool``, ``form`` (a ``ToolForm`` or ``None``), ``state`` (``proposed``,
    ``waiting``, ``running``, ``denied``, or the result's display status), ``result``, ``decision``.
    """

    def __init__(self, tool_use: dict, tool: Any = None, workbench: Any = None, *, usage: str = "") -> None:
        self.tool = tool
        self._secret_names: frozenset[str] = getattr(getattr(tool, "spec", None), "secret_parameters", frozenset())
        self._given: dict[str, Any] = {}  # the model's secret values: never in a widget
        self.remember(tool_use)
        masked = mask_arguments(tool_use.get("input"), self._secret_names)
        self.tool_use = {**tool_use, "input": masked} if masked is not tool_use.get("input") else dict(tool_use)
        self.result: Any = None
        self.decision: Optional[Decision] = None
        self.state = "proposed"
        self._usage = usage
        self._future: Optional[concurrent.futures.Future] = None
        self._lock = threading.Lock()
        self._locked: Optional[list] = None  # (control, its own disabled state) while the form is read-only
        self._editable_ask = True
        self.form = self._make_form(workbench)
        self.header = W.HTML()
        self.note = W.HTML(layout=W.Layout(display="none"))
        self.secret_note = W.HTML(layout=W.Layout(display="none"))
        self.raw_input = W.HTML(json_html(self.tool_use.get("input", {})),
                                layout=W.Layout(display="none" if self.form is not None else None))
        self.approve_button = W.Button(description="Approve", button_style="success", icon="check",
                                       tooltip="Run this call with the arguments in the form")
        self.deny_button = W.Button(description="Deny", button_style="danger", icon="times",
                                    tooltip="Do not run it: the model gets a denial as the result")
        self.approve_button.add_class("workbench-approve")
        self.deny_button.add_class("workbench-deny")
        self.approve_button.on_click(lambda _b: self.approve())
        self.deny_button.on_click(lambda _b: self.deny())
        self.buttons = W.HBox([self.approve_button, self.deny_button], layout=W.Layout(display="none"))
        self.result_html = W.HTML()
        self.result_html.add_class("workbench-result-area")
        self.request_html = W.HTML(json_html(self.tool_use))
        self.response_html = W.HTML("<i>no result yet</i>")
        self.raw = Disclosure(W.VBox([W.HTML("<b>Request (ToolUse)</b>"), self.request_html,
                                      W.HTML("<b>Response (ToolResult)</b>"), self.response_html]),
                              "Raw call JSON")
        parts = [self.header, self.note, self.secret_note, self.raw_input]
        if self.form is not None:
            parts.append(self.form)
        super().__init__(parts + [self.buttons, self.result_html, self.raw],
                         layout=W.Layout(margin="4px 0", padding="2px 6px", border_top=_CARD_BORDER,
                                         border_right=_CARD_BORDER, border_bottom=_CARD_BORDER,
                                         border_left=_CARD_EDGE))
        self.add_class("workbench-tool-card")
        self.add_class(f"workbench-tool-card-{_css_name(self.tool_use.get('name', ''))}")
        self._set_editable(False)
        self._show_header()
        self._show_secret_note()

    # -- building ------------------------------------------------------------------------------------
    def _make_form(self, workbench: Any) -> Any:
        """The tool's form filled with the model's arguments, without its own run controls."""
        if self.tool is None:
            return None
        from workbench.jupyter._form import ToolForm

        form = ToolForm(self.tool, workbench)
        for widget in (form.run_button, form.cancel_button, form.reset_button, form.save_button, form.elapsed,
                       form.result_html, form.result_tools, form.details):
            widget.layout.display = "none"
        # the form's Ctrl/Cmd+Enter approves this call; it must never run the tool past the agent loop
        form.shortcuts._actions.update(run=self._key_approve, cancel=lambda: None)
        try:  # a secret is left empty (see remember): neither *** nor the model's value goes in a widget
            form.set_values({k: v for k, v in (self.tool_use.get("input") or {}).items()
                             if k not in self._secret_names})
        except (KeyError, ValueError, TypeError) as exc:
            self._misfit = str(exc)
            return None
        return form

    def remember(self, tool_use: dict) -> None:
        """Keep the secret values of the model's own call (the agent loop's ``review`` gets it; the steps
        a live view is told of show ``***``), so that approving with a secret's field left empty sends
        the model's value. They live in this object only, never in a widget or the notebook."""
        given = tool_use.get("input") if isinstance(tool_use, dict) else None
        if isinstance(given, dict):
            self._given.update({name: given[name] for name in self._secret_names
                                if given.get(name) is not None and given.get(name) != MASK})
        if hasattr(self, "secret_note"):
            self._show_secret_note()

    def _show_secret_note(self) -> None:
        names = sorted(n for n in self._secret_names if n in (self.tool_use.get("input") or {}))
        if self.form is None or not names:
            return
        kept = [n for n in names if n in self._given]
        lost = [n for n in names if n not in self._given]
        parts = []
        if kept:
            parts.append(f"secret {', '.join(kept)}: the model's value is not shown; leave the field empty to "
                         f"send it, or type another")
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
        word = status_html(state) if state not in _STATE_TEXT else (
            f"<span class='workbench-card-state' style='color:{MUTED}'>{_e(_STATE_TEXT[state])}</span>")
        timing = ""
        if self.result is not None:
            ms = (self.result.metadata or {}).get("latency_ms")
            if isinstance(ms, (int, float)):
                timing = f"<span style='{BADGE_STYLE}'>took {ms:.1f} ms</span>"
        usage = f"<span style='{BADGE_STYLE}'>{_e(self._usage)}</span>" if self._usage else ""
        edited = f"<span style='{BADGE_STYLE}'>edited</span>" if isinstance(self.decision, dict) else ""
        self.header.value = (f"<div style='{WRAP};padding:2px 0'><i class='fa fa-wrench' aria-hidden='true'></i> "
                             f"<b>{_e(self.name)}</b> "
                             f"<code style='color:{MUTED};font-size:0.85em'>{_e(self.tool_use.get('toolUseId', ''))}</code> "
                             f"· {word}{edited}{timing}{usage}</div>")
        if self.tool is None:
            self._show_note(f"The model called <code>{_e(self.name)}</code>, which is not among the tools offered.")
        elif self.form is None:
            self._show_note(f"These arguments do not fit the form of <code>{_e(self.name)}</code> "
                            f"({_e(getattr(self, '_misfit', ''))}); approving runs them as sent.")

    def _show_note(self, html: str) -> None:
        self.note.value = f"<div style='{ERROR_BOX_STYLE}'>{html}</div>"
        self.note.layout.display = None

    def _set_editable(self, editable: bool) -> None:
        if self.form is not None:
            if editable and self._locked is not None:  # give each control back the state the form gave it
                for control, was in self._locked:
                    control.disabled = was
                self._locked = None
            elif not editable and self._locked is None:
                self._locked = [(c, c.disabled) for c in _controls(self.form.fields_box)]
                for control, _was in self._locked:
                    control.disabled = True
            self.form.json_mode.toggle.layout.display = None if editable else "none"
        self.buttons.layout.display = None if editable else "none"
        self.approve_button.disabled = self.deny_button.disabled = not editable

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
        future: concurrent.futures.Future = concurrent.futures.Future()
        with self._lock:
            self._future = future
        self._editable_ask = editable
        self.state = "waiting"
        self._set_editable(True)
        if not editable and self.form is not None:
            self._set_editable(False)
            self.buttons.layout.display = None
            self.approve_button.disabled = self.deny_button.disabled = False
        self._show_header()
        return future

    def approve(self) -> bool:
        """Approve the waiting call with the form's values (checked first: a form with errors shows them
        and stays waiting). Returns False if nothing was waiting or the form has errors."""
        if not self.pending:
            return False
        decision: Decision = True
        if self.form is not None and self._editable_ask:
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
            future.set_result(decision)
        self.decision = decision
        self.state = "denied" if decision is False else "running"
        self._set_editable(False)
        self._show_header()
        return True

    def show_stopped(self) -> None:
        """The run ended before this call got a result (it was stopped): nothing waits any more."""
        with self._lock:
            if self._future is not None and not self._future.done():
                self._future.set_result(False)
        self.state = "stopped"
        self._set_editable(False)
        self._show_header()

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
        if self.pending:  # the loop answered without asking (e.g. the run was stopped)
            with self._lock:
                if self._future is not None and not self._future.done():
                    self._future.set_result(False)
        self._set_editable(False)
        returns = getattr(getattr(self.tool, "spec", None), "returns", None)
        self.result_html.value = result_area_html(result, returns)
        self.response_html.value = json_html(result.to_dict() if hasattr(result, "to_dict") else result)
        if isinstance(self.decision, dict):
            shown = mask_arguments(self.decision, self._secret_names)
            self.request_html.value = json_html({**self.tool_use, "input": shown})
        self._show_header()

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

