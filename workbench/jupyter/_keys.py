"""``FormKeys``: the form's keyboard shortcuts — Ctrl/Cmd+Enter runs it from any field, Esc cancels.

An invisible anywidget inside the form. Its front end finds the form's DOM container (the nearest
``.workbench-form``) and listens to ``keydown`` there in the *capture* phase: ipywidgets' text boxes
stop their key events from bubbling (so JupyterLab's own shortcuts do not fire while typing), and
capturing sees them first. Before asking to run, it fires ``change`` on the focused input, so a box
that syncs on change (not on every keystroke) sends what was typed ahead of the run request.
Esc is taken only while a call runs (or waits for approval); otherwise JupyterLab keeps it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import anywidget
import traitlets

__all__ = ["FormKeys"]

_ESM = r"""
function render({ model, el }) {
  let form = null, tries = 0, frame = 0;
  const onKey = (event) => {
    const modifier = event.ctrlKey || event.metaKey;
    if (event.key === "Enter" && modifier && !event.altKey && !event.shiftKey) {
      event.preventDefault();
      event.stopPropagation();
      const active = document.activeElement;
      if (active && form.contains(active) && ("value" in active)) {
        active.dispatchEvent(new Event("change", { bubbles: true }));  // sync what was typed first
      }
      setTimeout(() => model.send({ action: "run" }), 0);
    } else if (event.key === "Escape" && model.get("busy")) {
      event.preventDefault();
      event.stopPropagation();
      model.send({ action: "cancel" });
    }
  };
  const attach = () => {
    form = el.closest(".workbench-form");
    if (form) {
      form.addEventListener("keydown", onKey, true);
      form.dataset.workbenchKeys = "on";
    } else if (tries++ < 600) {
      frame = requestAnimationFrame(attach);  // the view is rendered before it is attached
    }
  };
  attach();
  return () => {
    cancelAnimationFrame(frame);
    if (form) form.removeEventListener("keydown", onKey, true);
  };
}
export default { render };
"""


class FormKeys(anywidget.AnyWidget):
    """Keyboard shortcuts of one form: ``on_run`` for Ctrl/Cmd+Enter, ``on_cancel`` for Esc (only while
    ``busy``, which the form sets while a call runs). Every form has one, so it also carries the
    form's stylesheet (``_static/form.css``)."""

    _esm = _ESM
    _css = Path(__file__).with_name("_static") / "form.css"
    busy = traitlets.Bool(False).tag(sync=True)

    def __init__(self, on_run: Callable[[], Any], on_cancel: Callable[[], Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._actions = {"run": on_run, "cancel": on_cancel}
        self.on_msg(self._on_message)

    def _on_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        action = self._actions.get(str(content.get("action"))) if isinstance(content, dict) else None
        if action is not None:
            action()

    def press(self, action: str) -> None:
        """What the front end does on a shortcut (``"run"`` or ``"cancel"``), for tests and scripts."""
        self._on_message(self, {"action": action}, [])
