"""``SecretInput``: the password box of a secret parameter (a ``SecretStr``), whose value is never in
the widget state a notebook saves.

Why not ipywidgets' ``Password``: it syncs ``value`` like ``Text`` (ipywidgets 8.1's ``PasswordModel``
only changes the input's type), so JupyterLab writes the typed secret into the notebook's saved widget
state. Here ``value`` is a kernel-side trait only; the browser sends each keystroke as a message
and Python sends a value it sets (``form.set_values``) as a message too (``_static/secret_input.js``).
"""

from __future__ import annotations

from typing import Any

import anywidget
import traitlets

from workbench.jupyter._field_label import STATIC, module_text

__all__ = ["SecretInput"]


class SecretInput(anywidget.AnyWidget):
    """A ``<input type="password">`` whose ``value`` stays in the kernel.

    Attributes:
        value: the secret (not synced: never in the widget's state).
        placeholder: shown while the box is empty.
        disabled: the box cannot be edited.
    """

    _esm = module_text(STATIC / "secret_input.js")

    value = traitlets.Unicode("")  # no sync=True: see the module docstring
    placeholder = traitlets.Unicode("").tag(sync=True)
    disabled = traitlets.Bool(False).tag(sync=True)

    def __init__(self, value: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._from_browser = False
        self.observe(self._send_value, names="value")
        self.on_msg(self._on_msg)
        self.value = value

    def _on_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if isinstance(content, dict) and isinstance(content.get("value"), str):
            self._from_browser = True
            try:
                self.value = content["value"]
            finally:
                self._from_browser = False

    def _send_value(self, change: dict) -> None:
        if not self._from_browser and self.comm is not None:
            self.send({"value": change["new"]})

    def __repr__(self) -> str:
        return f"<SecretInput {'(set)' if self.value else '(empty)'}>"
