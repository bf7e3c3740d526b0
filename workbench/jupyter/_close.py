"""``close_widgets``: close views that are gone for good — every widget they show, and their layouts.

A widget lives in ipywidgets' registry (and the front end keeps its model) until ``close()``d, and
so do its ``Layout`` and ``Style`` (widgets themselves). Dropping a box from the page closes none of
them: a view cleared again and again (New chat) would grow the kernel and the saved notebook.
"""

from __future__ import annotations

from typing import Any, Iterator

import ipywidgets as W
from ipywidgets.widgets import widget as _registry

__all__ = ["close_widgets", "widget_tree"]

#: the traits whose value is a widget a view owns (besides its children)
_OWNED_TRAITS = ("layout", "style")


def widget_tree(*roots: W.Widget) -> Iterator[W.Widget]:
    """``roots`` and every widget they show (children, recursively), each once."""
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        widget = stack.pop()
        if id(widget) in seen or not isinstance(widget, W.Widget):
            continue
        seen.add(id(widget))
        yield widget
        stack.extend(getattr(widget, "children", ()))


def close_widgets(*roots: W.Widget) -> int:
    """Close ``roots``, every widget they show, and the layouts and styles that no widget left open
    uses (a form's fields may share one with widgets elsewhere). Returns how many were closed."""
    tree = list(widget_tree(*roots))
    owned = {
        id(part): part
        for widget in tree
        for name in _OWNED_TRAITS
        if isinstance(part := getattr(widget, name, None), W.Widget)
    }
    for widget in tree:
        widget.close()
    in_use = {
        id(getattr(widget, name, None))
        for widget in list(_registry._instances.values())
        for name in _OWNED_TRAITS
        if not isinstance(widget, (W.Layout,))
    }
    spare: list[Any] = [part for key, part in owned.items() if key not in in_use]
    for part in spare:
        part.close()
    return len(tree) + len(spare)
