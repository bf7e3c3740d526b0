"""Widgets chosen by the Python type a tool declares (magicgui's ``register_type`` idea).

A form knows its fields by JSON Schema; a function tool also says, for each parameter, the Python type
it takes. :func:`tool_annotations` reads those; :func:`annotation_at` follows one down a field's path
(a pydantic model's or a dataclass's fields, a list's items, a tuple's positions, a mapping's values);
:class:`WidgetField` turns any ipywidget with a ``value`` into a form field. The table that maps types
to fields is ``WidgetTable`` (``_field_table.py``).
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any, Callable, Optional

import ipywidgets as W

from workbench.jupyter._fields import MISSING, Field

__all__ = ["WidgetField", "annotation_at", "strip_optional", "tool_annotations", "widget_field"]

_NONE = type(None)


def tool_annotations(tool: Any) -> dict[str, Any]:
    """``{parameter: annotation}`` of a tool whose body is a Python function (``@tool``, or a tool
    derived from one, in its own argument names); ``{}`` for any other tool or unreadable hints."""
    from workbench.tools import DecoratedFunctionTool
    from workbench.transforms import DerivedTool

    if isinstance(tool, DerivedTool):
        parent = tool_annotations(tool.parent)
        return {new: parent[old] for new, old in tool._plan.to_parent.items() if old in parent}
    if not isinstance(tool, DecoratedFunctionTool):
        return {}
    try:
        hints = typing.get_type_hints(tool.tool_func, include_extras=True)
    except Exception:  # noqa: BLE001 - an unresolvable string annotation: the schema alone decides
        return {}
    hints.pop("return", None)
    if tool.context_param is not None:
        hints.pop(tool.context_param, None)
    return hints


def strip_optional(annotation: Any) -> tuple[Any, bool]:
    """``(X, True)`` for ``Optional[X]`` / ``X | None``, else ``(annotation, False)``; ``Annotated`` is unwrapped."""
    annotation = _unannotated(annotation)
    if _is_union(annotation):
        args = [a for a in typing.get_args(annotation) if a is not _NONE]
        if len(args) == 1 and len(typing.get_args(annotation)) == 2:
            return _unannotated(args[0]), True
    return annotation, False


def annotation_at(hints: dict[str, Any], path: tuple) -> Any:
    """The annotation of the field at ``path`` (``("order", "lines", 0, "sku")``), or ``None`` when the
    types do not say (a union, an untyped container, an unknown name)."""
    if not path or path[0] not in hints:
        return None
    annotation = hints[path[0]]
    for step in path[1:]:
        annotation = _inner(strip_optional(annotation)[0], step)
        if annotation is None:
            return None
    return annotation


def _inner(annotation: Any, step: Any) -> Any:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return args[0]
        return args[step] if isinstance(step, int) and step < len(args) else None
    if origin in (list, set, frozenset) or _is_abc(origin, "Sequence", "Set", "Iterable"):
        return args[0] if args and isinstance(step, int) else None
    if origin is dict or _is_abc(origin, "Mapping"):
        return args[1] if len(args) == 2 else None
    if isinstance(annotation, type) and isinstance(step, str):
        fields = getattr(annotation, "model_fields", None)  # a pydantic model: by name or alias
        if isinstance(fields, dict):
            return next((f.annotation for name, f in fields.items() if step in (name, f.alias)), None)
        if dataclasses.is_dataclass(annotation):
            try:
                return typing.get_type_hints(annotation, include_extras=True).get(step)
            except Exception:  # noqa: BLE001
                return None
    return None


def _is_abc(origin: Any, *names: str) -> bool:
    import collections.abc

    return any(origin is getattr(collections.abc, name) for name in names)


def _is_union(annotation: Any) -> bool:
    import types

    return typing.get_origin(annotation) is typing.Union or isinstance(annotation, types.UnionType)


def _unannotated(annotation: Any) -> Any:
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


class WidgetField(Field):
    """A field around any ipywidget with a ``value`` (made by :func:`widget_field`): ``to_json`` turns
    the widget's value into the JSON the tool is sent, ``from_json`` a JSON value into the widget's."""

    make_widget: Callable[[], W.Widget] = staticmethod(W.Text)
    to_json: Callable[[Any], Any] = staticmethod(lambda value: value)
    from_json: Callable[[Any], Any] = staticmethod(lambda value: value)

    def build(self) -> None:
        self.input = self.make_widget()
        self.input.add_class(self.marks["target"])
        self._empty = self.input.value
        self.observe_value(self.input)

    def current(self) -> Any:
        value = self.input.value
        if value is None or (value == self._empty and not (self.touched or self.explicit)):
            return MISSING  # the widget as built: nothing chosen yet
        return self.to_json(value)

    def _load(self, value: Any) -> None:
        self.input.value = self.from_json(value)

    def _reset_widget(self) -> None:
        self.input.value = self._empty


def widget_field(
    widget: Callable[[], W.Widget],
    *,
    to_json: Optional[Callable[[Any], Any]] = None,
    from_json: Optional[Callable[[Any], Any]] = None,
    name: str = "",
) -> type[WidgetField]:
    """A :class:`WidgetField` class making its input with ``widget()`` (e.g. ``lambda: W.ColorPicker()``)."""
    attrs: dict[str, Any] = {"make_widget": staticmethod(widget)}
    if to_json is not None:
        attrs["to_json"] = staticmethod(to_json)
    if from_json is not None:
        attrs["from_json"] = staticmethod(from_json)
    return type(name or "CustomWidgetField", (WidgetField,), attrs)
