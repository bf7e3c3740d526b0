"""``FieldLabel``: a form field's label as a real ``<label>`` (clicking it focuses the field; it is the
control's accessible name) plus the control's accessible description (help line, error line).

Why a small anywidget: ipywidgets' ``description`` is a real label only inside the same widget, puts a
checkbox's text on the wrong side, has no label for a group (an object, a list) and no way to set
``aria-describedby`` / ``aria-required`` / ``aria-invalid``. Widget DOM ids change with every view, so
Python marks the field's widgets with classes (``target``, ``help``, ``error``) and the front end
(``_static/field_label.js``, ~150 lines) finds them inside its own field box and wires the attributes.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import anywidget
import traitlets

__all__ = ["FieldLabel", "field_marks", "module_text"]

STATIC = Path(__file__).with_name("_static")


def module_text(path: Path) -> str:
    """An ES module's text without comment lines and indentation.

    Every instance of an anywidget carries its module in its state, and a form has one label per field:
    a notebook saved with its widget state keeps one copy per label, so the copy is kept small. (Only
    whole-line ``//`` comments are dropped: the modules have no multi-line strings.)
    """
    lines = (line.strip() for line in path.read_text(encoding="utf-8").splitlines())
    return "\n".join(line for line in lines if line and not line.startswith("//"))


class FieldLabel(anywidget.AnyWidget):
    """The label of one field.

    Attributes:
        value: the field's name (the accessible name of its control).
        required: shows `` *`` after the name (hidden from screen readers: the control says ``aria-required``).
        description: the schema description: the control's tooltip (the help line says it too).
        target: the class marking the labelled widget (its view holds the input, select or textarea).
        group: the target is a group (object, list…): ``role="group"``, labelled by this label.
        help, error: the classes marking the help line and the error line(s) (``aria-describedby``).
        invalid: an error is shown (``aria-invalid``).
    """

    _esm = module_text(STATIC / "field_label.js")

    value = traitlets.Unicode("").tag(sync=True)
    required = traitlets.Bool(False).tag(sync=True)
    description = traitlets.Unicode("").tag(sync=True)
    target = traitlets.Unicode("").tag(sync=True)
    group = traitlets.Bool(False).tag(sync=True)
    help = traitlets.Unicode("").tag(sync=True)
    error = traitlets.Unicode("").tag(sync=True)
    invalid = traitlets.Bool(False).tag(sync=True)

    @property
    def text(self) -> str:
        """What the label shows: ``price *``."""
        return self.value + (" *" if self.required else "")

    def __repr__(self) -> str:
        return f"<FieldLabel {self.text!r} target={self.target!r}>"


def field_marks() -> dict[str, Any]:
    """Fresh, page-unique class names for one field's target, help line and error line(s)."""
    key = uuid.uuid4().hex[:12]
    return {"target": f"workbench-t-{key}", "help": f"workbench-h-{key}", "error": f"workbench-e-{key}"}
