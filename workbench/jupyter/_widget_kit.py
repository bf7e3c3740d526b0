"""``WidgetKit``: the ``Layout`` and style objects that the widgets of one form share.

Every ipywidget gets a ``Layout`` and (most) a style object of its own by default, and each of them is a
widget too: a comm, a state message, a model in the page. A form's fields used about 20 widgets each, half
of them layouts and styles that were all alike. One form's fields now share one ``Layout`` per *kind*
(``LAYOUTS``: the label, a text box, an indented group…) and one style object per style class — which
ipywidgets supports: a layout or style is a widget that any number of views may reference.

A shared layout must never be changed in place (every widget using it would change). ``show()`` is the
one way fields hide or show a widget: it swaps a shared layout for its hidden (or shown) twin, and only
changes a layout of the widget's own in place. The kit is per form (``FieldContext``), so
``Widget.close_all()`` or a closed form never leaves another form holding a closed layout.

Every message costs the page too (JupyterLab parses it and updates a model and its views): a widget's
classes are given when it is made (``make(..., classes=...)``: in its first message, not one update per
class), and widgets made inside ``batch()`` send what changes afterwards once, when the batch ends.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterable, Iterator, Optional

import ipywidgets as W

__all__ = ["LAYOUTS", "VIEW_CLASS", "WidgetKit", "close_tree", "mark_view", "show"]

LABEL_WIDTH = "180px"
#: the DOM class of every workbench view's outermost widget (see :func:`mark_view`)
VIEW_CLASS = "workbench-view"

#: layout keywords by kind, for the default layouts (``False``) and the compact one (``True``), where labels
#: are narrower and inputs fill what their grid column leaves; ``plain`` is a layout without keywords
_COMMON: dict[str, dict[str, str]] = {
    "plain": {},
    "clear": {"width": "28px", "padding": "0"},
    "checkbox": {"width": "auto"},  # the default 300px pushed the state note and clear button far away
    "none-toggle": {"width": "70px"},
    "add": {"width": "80px"},
    "more": {"width": "auto", "min_width": "80px", "align_self": "flex-start"},  # "show more (290 more)" in full
    "remove": {"width": "36px"},
    "key": {"width": "160px"},
    "selector": {"width": "200px"},
    # the left rule and indent of a nested group (a theme colour, so it shows in dark mode too)
    "indent": {"border_left": "2px solid var(--jp-border-color2)", "padding": "0 0 0 8px", "margin": "2px 0 2px 16px"},
    # the grid area of a field that spans both columns of the compact layout
    "span-both": {"grid_area": "auto / 1 / auto / -1"},
}
LAYOUTS: dict[bool, dict[str, dict[str, str]]] = {
    False: {
        **_COMMON,
        "label": {"width": LABEL_WIDTH, "min_width": LABEL_WIDTH},
        "group-label": {"min_width": LABEL_WIDTH},
        "text": {"width": "360px"},
        "number": {"width": "180px"},
        "choice": {"width": "240px"},
        "area": {"width": "480px"},
    },
    True: {
        **_COMMON,
        "label": {"width": "120px", "min_width": "120px"},
        "group-label": {"min_width": "120px"},
        "text": {"width": "auto", "flex": "1 1 0%", "min_width": "90px"},
        "number": {"width": "auto", "flex": "1 1 0%", "min_width": "90px", "max_width": "200px"},
        "choice": {"width": "auto", "flex": "1 1 0%", "min_width": "90px", "max_width": "240px"},
        "area": {"width": "auto", "flex": "1 1 0%", "min_width": "120px"},
    },
}


class WidgetKit:
    """One form's shared layouts (by kind, shown or hidden) and style objects (by style class)."""

    def __init__(self, compact: bool = False) -> None:
        self.compact = compact
        self._layouts: dict[tuple[str, bool], W.Layout] = {}
        self._styles: dict[type, W.Widget] = {}
        self._held: Optional[contextlib.ExitStack] = None

    def layout(self, kind: str = "plain", hidden: bool = False) -> W.Layout:
        """The shared ``Layout`` of ``kind`` (with ``display: none`` when ``hidden``), made on first use."""
        key = (kind, hidden)
        made = self._layouts.get(key)
        if made is None:
            made = W.Layout(**LAYOUTS[self.compact][kind], **({"display": "none"} if hidden else {}))
            made._workbench_shared = (self, kind)  # lets show() swap it for its twin instead of changing it
            self._layouts[key] = made
        return made

    def style(self, cls: type) -> dict[str, Any]:
        """``{"style": <the shared style object>}`` for a widget class that has a style, else ``{}``."""
        traits: dict = getattr(cls, "class_traits", dict)()  # a traitlets class (any other has none)
        trait = traits.get("style")
        klass = getattr(trait, "klass", None)
        if not isinstance(klass, type):
            return {}
        if klass not in self._styles:
            made = self._styles[klass] = klass()
            made._workbench_shared_style = True  # close_tree() leaves it to close()
        return {"style": self._styles[klass]}

    def make(
        self, cls: type, kind: str = "plain", *, hidden: bool = False, classes: Iterable[str] = (), **kwargs: Any
    ) -> W.Widget:
        """A ``cls`` widget on the shared layout of ``kind`` and the shared style of its class, with the DOM
        ``classes`` given (sent with the widget, not as updates)."""
        if classes:
            kwargs["_dom_classes"] = tuple(classes)
        widget = cls(layout=self.layout(kind, hidden), **self.style(cls), **kwargs)
        if self._held is not None:
            self._held.enter_context(widget.hold_sync())
        return widget

    def close(self) -> None:
        """Close the shared layouts and styles (once no widget of the form uses them: the form was rebuilt)."""
        for widget in [*self._layouts.values(), *self._styles.values()]:
            widget.close()
        self._layouts.clear()
        self._styles.clear()

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Widgets made inside send their changes made before the end of the batch as one update each
        (a list row is made, then filled and labelled: without the batch, one message per change)."""
        if self._held is not None:
            yield
            return
        with contextlib.ExitStack() as held:
            self._held = held
            try:
                yield
            finally:
                self._held = None


def show(widget: W.Widget, shown: bool) -> None:
    """Show or hide ``widget``: a shared layout is swapped for its twin (changing it would change every
    widget that uses it); a layout of the widget's own is changed in place."""
    layout = widget.layout
    shared = getattr(layout, "_workbench_shared", None)
    if shared is None:
        layout.display = None if shown else "none"
        return
    kit, kind = shared
    twin = kit.layout(kind, hidden=not shown)
    if twin is not layout:
        widget.layout = twin


def close_tree(widget: Any) -> None:
    """Close ``widget`` and every widget it holds (children, its layout and style…): their models leave
    the kernel and the page, and are no longer saved with the notebook. For a view replaced by a new one
    (a form's rebuilt fields, an old result): only for widgets shown nowhere else. A ``WidgetKit``'s shared
    layouts and styles are left open (``WidgetKit.close()`` closes them)."""
    seen: set[int] = set()
    stack: list[Any] = [widget]
    while stack:
        item = stack.pop()
        if not isinstance(item, W.Widget) or id(item) in seen:
            continue
        seen.add(id(item))
        for name in item.keys:
            value = getattr(item, name, None)
            if isinstance(value, W.Widget):
                stack.append(value)
            elif isinstance(value, (list, tuple)):
                stack.extend(v for v in value if isinstance(v, W.Widget))
        if not (getattr(item, "_workbench_shared", None) or getattr(item, "_workbench_shared_style", False)):
            item.close()


def mark_view(widget: W.DOMWidget) -> W.DOMWidget:
    """Mark ``widget`` as the outermost widget of a workbench view (a form, log table, playground,
    inspector, dashboard). Reopened from a saved notebook without a kernel, a marked view shows one
    banner saying it is a saved copy and how to make it live, its controls look disabled, and the
    broken-link icon ipywidgets puts on every widget is hidden inside it (``_static/saved_copy.css``,
    loaded with the form's keyboard widget and the log's table). Returns ``widget``."""
    widget.add_class(VIEW_CLASS)
    return widget
