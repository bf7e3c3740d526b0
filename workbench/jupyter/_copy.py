"""``CopyButton``: a small button that puts a text on the clipboard (``navigator.clipboard``).

An anywidget: the text lives in the ``text`` trait (the form updates it), the click is handled in the
browser, so copying needs no round trip to the kernel. Where the Clipboard API is missing or refused
(an insecure origin), it falls back to a hidden textarea and ``document.execCommand("copy")``. The
button says "Copied" (or "Copy failed") for a moment, with the outcome also in ``data-copied``. It
carries the classes of an ipywidgets ``Button`` (``jupyter-button widget-button``), so it looks like
the Run / Reset / Save buttons beside it in every theme.
"""

from __future__ import annotations

from typing import Any

import anywidget
import traitlets

__all__ = ["CopyButton"]

_ESM = r"""
async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch (error) {
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    let ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    area.remove();
    return ok;
  }
}

function render({ model, el }) {
  const button = document.createElement("button");
  button.type = "button";
  // the classes of an ipywidgets Button: the same size, colours and focus ring as Run, Reset…
  button.className = "jupyter-widgets jupyter-button widget-button workbench-copy-button";
  const label = () => model.get("label");
  const say = (text) => {
    const icon = document.createElement("i");
    icon.className = "fa fa-copy";
    button.replaceChildren(icon, document.createTextNode(text));
  };
  const show = () => {
    say(label());
    button.title = model.get("hint");
    button.setAttribute("aria-label", model.get("hint"));
    button.disabled = !model.get("text");
  };
  let timer = 0;
  button.addEventListener("click", async (event) => {
    event.preventDefault();
    event.stopPropagation();
    const ok = await copyText(model.get("text"));
    say(ok ? "Copied" : "Copy failed");
    button.dataset.copied = ok ? "yes" : "no";
    clearTimeout(timer);
    timer = setTimeout(show, 1500);
  });
  model.on("change:text", show);
  model.on("change:label", show);
  model.on("change:hint", show);
  show();
  el.appendChild(button);
  return () => clearTimeout(timer);
}
export default { render };
"""

_CSS = """
.workbench-copy-button { margin: 2px 4px 2px 0; }
"""


class CopyButton(anywidget.AnyWidget):
    """A "Copy" button for ``text`` (empty text: the button is disabled)."""

    _esm = _ESM
    _css = _CSS
    text = traitlets.Unicode("").tag(sync=True)
    label = traitlets.Unicode("Copy").tag(sync=True)
    #: the button's title and accessible name (not ``tooltip``: DOMWidget's own trait, read by every view)
    hint = traitlets.Unicode("Copy to the clipboard").tag(sync=True)

    def __init__(self, label: str = "Copy", hint: str = "Copy to the clipboard", text: str = "", **kwargs: Any) -> None:
        super().__init__(label=label, hint=hint, text=text, **kwargs)
