"""The raw-JSON input mode of a form (like MCP Inspector's): a Form ⇄ JSON toggle and a JSON editor.

Switching to JSON writes what the fields hold as pretty JSON; switching back fills the fields from
the JSON (keys left out go back to *not set*). The editor is checked as you type — JSON syntax,
then an object, then known parameters, then the tool's own ``check_inputs`` — and the verdict is
shown under it. Invalid JSON keeps the form in JSON mode (nothing is lost) and a Run from JSON
mode is rejected with the same message; nothing is sent.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Optional

import ipywidgets as W

from workbench._errors import ToolInputError
from workbench._html import escape as _e
from workbench._html import without_path
from workbench._json_text import loads as load_json
from workbench._styles import ERROR_BOX_STYLE, MUTED, STATUS_COLOURS

__all__ = ["JsonMode", "parse_input"]

FORM, JSON = "Form", "JSON"


_BUILDING = "<i class='workbench-busy'>Building the form…</i>"


def parse_input(text: str, parameters: list[str], tool_name: str) -> tuple[Optional[dict], Optional[str]]:
    """``(the input object, None)`` or ``(None, why it is not one)`` for the editor's text."""
    try:
        value = load_json(text) if text.strip() else {}
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
    if not isinstance(value, dict):
        return None, f"the input of '{tool_name}' must be a JSON object ({{…}}), not {type(value).__name__}"
    unknown = [k for k in value if k not in parameters]
    if unknown:
        known = ", ".join(parameters) or "none"
        return None, f"'{tool_name}' has no parameter(s) {', '.join(map(repr, unknown))}; parameters: {known}"
    return value, None


class JsonMode:
    """The toggle, the editor and its verdict line of one form.

    Args:
        spec: the tool's ``ToolSpec`` (names and ``check_inputs``).
        read: returns what the fields hold (``values``, may raise ``ValueError``).
        write: fills the fields from an input object (keys left out: *not set*).
        on_mode: called with ``True`` when JSON mode starts, ``False`` when it ends.
    """

    def __init__(
        self, spec: Any, read: Callable[[], dict], write: Callable[[dict], None], on_mode: Callable[[bool], None]
    ) -> None:
        self.spec = spec
        self._read = read
        self._write = write
        self._on_mode = on_mode
        self._switching = False
        self.toggle = W.ToggleButtons(
            options=[FORM, JSON],
            value=FORM,
            tooltips=["Edit the input field by field", "Edit the input as raw JSON"],
            style={"button_width": "64px"},
        )
        self.toggle.add_class("workbench-mode-toggle")
        self.editor = W.Textarea(
            value="{}", rows=8, continuous_update=True, placeholder='{"parameter": value}', layout=W.Layout(width="95%")
        )
        self.editor.add_class("workbench-json-editor")
        self.verdict = W.HTML()
        self.verdict.add_class("workbench-json-verdict")
        self.box = W.VBox([self.editor, self.verdict], layout=W.Layout(display="none"))
        self.box.add_class("workbench-json-mode")
        self.toggle.observe(self._on_toggle, names="value")
        self.editor.observe(lambda _change: self.check(), names="value")

    @property
    def active(self) -> bool:
        return self.toggle.value == JSON

    @property
    def parameters(self) -> list[str]:
        params = self.spec.parameters if isinstance(self.spec.parameters, dict) else {}
        return list((params.get("properties") or {}).keys())

    # -- switching -----------------------------------------------------------------------------------
    def _on_toggle(self, change: dict) -> None:
        if self._switching:
            return
        if change["new"] == JSON:
            self.start()
        else:
            self.stop()

    def _set_toggle(self, value: str) -> None:
        self._switching = True
        try:
            self.toggle.value = value
        finally:
            self._switching = False

    def start(self) -> None:
        """Enter JSON mode with what the fields hold."""
        try:
            values = self._read()
            note = None
        except ValueError as exc:  # a field holds something unconvertible: start from what is readable
            values, note = {}, f"some fields could not be read ({exc}); fill them here"
        self.editor.value = json.dumps(values, indent=2, ensure_ascii=False, default=repr)
        self._set_toggle(JSON)
        self.box.layout.display = None
        self._on_mode(True)
        self.check()
        if note:
            self.verdict.value = self._error_html([note])

    def stop(self) -> bool:
        """Back to the fields, filled from the JSON. False (and still in JSON mode) if the JSON is not an
        input object the fields can show."""
        # sent to the browser at once (comm messages are not held until the handler returns), so a
        # large input shows that the form is being built instead of nothing
        self.verdict.value = _BUILDING
        value, problem = self.apply()
        if self.verdict.value == _BUILDING:
            self.verdict.value = ""
        if problem is not None:
            self._set_toggle(JSON)
            self.verdict.value = self._error_html([problem, "fix the JSON to go back to the form (nothing was lost)"])
            return False
        self._set_toggle(FORM)
        self.box.layout.display = "none"
        self._on_mode(False)
        return True

    def apply(self) -> tuple[Optional[dict], Optional[str]]:
        """Fill the fields from the editor: ``(the input, None)`` or ``(None, why not)``."""
        value, problem = parse_input(self.editor.value, self.parameters, self.spec.name)
        if problem is not None:
            return None, problem
        try:
            self._write(value)  # type: ignore[arg-type]
        except (KeyError, ValueError, TypeError) as exc:
            return None, f"the form cannot show this input: {exc}"
        return value, None

    # -- checking ------------------------------------------------------------------------------------
    def check(self) -> list[str]:
        """Check the editor's text now; shows and returns the problems (empty: a valid input)."""
        value, problem = parse_input(self.editor.value, self.parameters, self.spec.name)
        problems = [problem] if problem else []
        if value is not None:
            try:
                self.spec.check_inputs(value)
            except ToolInputError as exc:
                problems = [
                    f"{err.get('field') or '$'}: {without_path(err.get('field') or '$', err['message'])}"
                    for err in exc.errors
                ]
            except ValueError as exc:
                problems = [str(exc)]
        self.verdict.value = (
            self._error_html(problems)
            if problems
            else (
                f"<div style='color:{STATUS_COLOURS['success']};font-size:0.9em'>valid input for "
                f"<code>{_e(self.spec.name)}</code> — Run sends it as shown</div>"
            )
        )
        return problems

    @staticmethod
    def _error_html(problems: list[str]) -> str:
        items = "".join(f"<li>{_e(p)}</li>" for p in problems)
        return (
            f"<div style='{ERROR_BOX_STYLE};font-size:0.9em'><ul style='margin:0;padding-left:18px'>{items}</ul>"
            f"<div style='color:{MUTED}'>nothing is sent while the input has errors</div></div>"
        )
