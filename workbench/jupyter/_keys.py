"""``FormKeys``: the form's keyboard shortcuts — Enter in a one-line box or Ctrl/Cmd+Enter in any field runs
it, Esc cancels.

An invisible anywidget inside the form. Its front end finds the form's DOM container (the nearest
``.workbench-form``) and listens to ``keydown`` there in the *capture* phase: ipywidgets' text boxes
stop their key events from bubbling (so JupyterLab's own shortcuts do not fire while typing), and
capturing sees them first. Before asking to run, it fires ``change`` on the focused input, so a box
that syncs on change (not on every keystroke) sends what was typed; and it asks to run only once the
kernel answered a first message (``sync`` → ``synced``): ipywidgets holds back a box's changes while its
previous one is unanswered, so a run sent at once could overtake what was typed last.
Esc is taken only while a call runs (or waits for approval); otherwise JupyterLab keeps it. Plain Enter
runs only from a one-line box (an ``<input>`` of a text-like type without suggestions): in a multi-line
box (long text, JSON) it starts a new line, on a button it presses that button, in a list of suggestions
it picks one. Keys typed in a form nested in this one (a tool's question) belong to that form.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import anywidget
import traitlets

__all__ = ["FormKeys"]

_STATIC = Path(__file__).with_name("_static")

_ESM = r"""
// one-line boxes where Enter runs the form; a textarea (multi-line) keeps Enter for a new line
const ONE_LINE = new Set(["text", "number", "email", "password", "search", "url", "tel", "date", "time",
                          "datetime-local", "month", "week"]);

function runsOnEnter(target) {
  if (!(target instanceof HTMLInputElement) || !ONE_LINE.has(target.type)) return false;
  // a box with suggestions (a combobox's datalist) picks one with Enter
  return !target.hasAttribute("list") && target.getAttribute("role") !== "combobox";
}

function render({ model, el }) {
  let form = null, tries = 0, frame = 0;
  const onKey = (event) => {
    if (event.target.closest && event.target.closest(".workbench-form") !== form) return;  // a form inside this one
    const modifier = event.ctrlKey || event.metaKey;
    const plainEnter = !modifier && !event.altKey && !event.shiftKey && !event.isComposing && runsOnEnter(event.target);
    if (event.key === "Enter" && ((modifier && !event.altKey && !event.shiftKey) || plainEnter)) {
      event.preventDefault();
      event.stopPropagation();
      const active = document.activeElement;
      if (active && form.contains(active) && ("value" in active)) {
        active.dispatchEvent(new Event("change", { bubbles: true }));  // sync what was typed first
      }
      // ipywidgets holds back a box's later changes while its previous one is unanswered, and a custom
      // message is not held: ask the kernel first, and run on its answer, by when those changes were sent
      setTimeout(() => model.send({ action: "sync" }), 0);
    } else if (event.key === "Escape" && model.get("busy")) {
      event.preventDefault();
      event.stopPropagation();
      model.send({ action: "cancel" });
    }
  };
  const onMessage = (message) => {
    if (message && message.action === "synced") model.send({ action: "run" });
  };
  model.on("msg:custom", onMessage);
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
    model.off("msg:custom", onMessage);
    if (form) form.removeEventListener("keydown", onKey, true);
  };
}
export default { render };
"""


class FormKeys(anywidget.AnyWidget):
    """Keyboard shortcuts of one form: ``on_run`` for Enter (one-line boxes) and Ctrl/Cmd+Enter, ``on_cancel`` for Esc (only while
    ``busy``, which the form sets while a call runs). Every form has one, so it also carries the
    form's stylesheet (``_static/form.css``) and the saved-copy rules of every view (``saved_copy.css``)."""

    _esm = _ESM
    # the form's rules, and those of a saved copy of any workbench view (loaded wherever a form or prompt is)
    _css: str | Path = "\n".join(
        (_STATIC / name).read_text(encoding="utf-8") for name in ("form.css", "saved_copy.css")
    )
    busy = traitlets.Bool(False).tag(sync=True)

    def __init__(self, on_run: Callable[[], Any], on_cancel: Callable[[], Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # "sync": the front end's question before a run, answered once the kernel got to it
        self._actions = {"run": on_run, "cancel": on_cancel, "sync": lambda: self.send({"action": "synced"})}
        self.on_msg(self._on_message)

    def _on_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        action = self._actions.get(str(content.get("action"))) if isinstance(content, dict) else None
        if action is not None:
            action()

    def press(self, action: str) -> None:
        """What the front end does on a shortcut (``"run"`` or ``"cancel"``), for tests and scripts."""
        self._on_message(self, {"action": action}, [])
