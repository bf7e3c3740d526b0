"""``ClickableHTML``: server-rendered HTML whose rows, headers and buttons report clicks to Python.

Why a small custom widget (anywidget) rather than ipydatagrid or itables for the log: both want the
whole table in the browser (a DataFrame, serialised on every update), while the log lives in SQLite
and can hold 100,000 rows — here Python queries one page at a time and sends ~50 escaped rows. Row
actions (load into form, re-run) need kernel callbacks, which itables' static mode lacks, and the
same HTML doubles as the static ``text/html`` fallback saved in the notebook. The front end is
~70 lines (``_static/clickable.js``): it only shows the HTML and turns clicks into model changes.

Hooks (data attributes in the HTML): ``data-key`` items set :attr:`ClickableHTML.selected`;
``data-sort`` headers send ``{"event": "sort", "column": ...}`` to :meth:`ClickableHTML.on_event` callbacks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import anywidget
import traitlets

__all__ = ["ClickableHTML", "STATIC", "VIEW_CSS", "ViewStylesheet"]

#: the front-end assets (package data)
STATIC = Path(__file__).with_name("_static")
#: the views' rules (log table, dashboard, inspector) and those of a saved copy of any view
VIEW_CSS = "\n".join((STATIC / name).read_text(encoding="utf-8") for name in ("workbench.css", "saved_copy.css"))


class ViewStylesheet(anywidget.AnyWidget):
    """Shows nothing; loads :data:`VIEW_CSS` into the page. For a view that may hold no
    :class:`ClickableHTML` (which loads them too), such as the MCP inspector."""

    _esm = "export default { render() {} };"
    _css = VIEW_CSS


class ClickableHTML(anywidget.AnyWidget):
    """HTML (rendered and escaped in Python) plus click handling in the browser.

    Attributes:
        value: the HTML shown (every tool-provided string in it must be escaped by the caller).
        selected: the ``data-key`` of the selected item (``""``: none); set by a click or by Python.
    """

    _esm = STATIC / "clickable.js"
    # with the saved-copy rules of every view (a log table or dashboard may be the only view in a notebook)
    _css = VIEW_CSS

    value = traitlets.Unicode("").tag(sync=True)
    selected = traitlets.Unicode("").tag(sync=True)

    def __init__(self, value: str = "", **kwargs: Any) -> None:
        super().__init__(value=value, **kwargs)
        self._event_callbacks: list[Callable[[dict], Any]] = []
        self.on_msg(self._on_msg)

    def on_event(self, callback: Callable[[dict], Any]) -> None:
        """Call ``callback(event_dict)`` for each event (a header click) from the browser."""
        self._event_callbacks.append(callback)

    def emit(self, event: dict) -> None:
        """Deliver ``event`` as if the browser sent it (what a click does; for tests and scripts)."""
        for callback in list(self._event_callbacks):
            callback(event)

    def _on_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if isinstance(content, dict) and isinstance(content.get("event"), str):
            self.emit(content)
