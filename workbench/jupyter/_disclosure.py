"""``Disclosure``: a collapsible section whose header is a real ``<button aria-expanded>``.

Why not ``ipywidgets.Accordion``: its header is a ``<div>`` that Tab never reaches and screen readers do
not announce as expandable, so fields inside a collapsed one would be out of a keyboard user's reach.
The header is a tiny anywidget (``_static/disclosure.js``); the section is an ordinary box that Python
shows or hides when ``expanded`` changes.
"""

from __future__ import annotations

import uuid
from typing import Any

import anywidget
import ipywidgets as W
import traitlets

from workbench.jupyter._field_label import STATIC, module_text

__all__ = ["Disclosure", "DisclosureHeader"]


class DisclosureHeader(anywidget.AnyWidget):
    """The button: ``title``, ``expanded`` (toggled by a click, Enter or Space), ``controls`` (the class of the
    section). Not ``open``: that is ``Widget.open()``."""

    _esm = module_text(STATIC / "disclosure.js")

    title = traitlets.Unicode("").tag(sync=True)
    expanded = traitlets.Bool(False).tag(sync=True)
    controls = traitlets.Unicode("").tag(sync=True)


class Disclosure(W.VBox):
    """A header button and the section it shows or hides (collapsed unless ``expanded=True``)."""

    def __init__(self, body: W.Widget, title: str, *, expanded: bool = False, **kwargs: Any) -> None:
        self.body = body
        mark = f"workbench-section-{uuid.uuid4().hex[:12]}"
        body.add_class(mark)
        body.add_class("workbench-disclosure-body")
        self.header = DisclosureHeader(title=title, expanded=expanded, controls=mark)
        self.header.observe(lambda _change: self._show(), names="expanded")
        super().__init__([self.header, body], **kwargs)
        self.add_class("workbench-disclosure-section")
        self._show()

    def _show(self) -> None:
        self.body.layout.display = None if self.header.expanded else "none"

    @property
    def title(self) -> str:
        return self.header.title

    @title.setter
    def title(self, value: str) -> None:
        self.header.title = value

    @property
    def is_open(self) -> bool:
        return self.header.expanded

    def expand(self) -> None:
        self.header.expanded = True

    def collapse(self) -> None:
        self.header.expanded = False
