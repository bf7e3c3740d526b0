"""The schema → widget table.

``WIDGET_RULES`` is an ordered list of rows ``(name, matches(schema, name), factory, widget)``; the first
row whose predicate matches a (``$ref``-resolved) schema builds the field — magicgui style, not an
if-chain. Add rows with ``register_widget_rule``; give a Python type a widget with ``register_widget_type``
(looked up on the type a function tool declares, before the schema rows). ``WidgetTable.copy()`` is a table
of one's own for a form or a test (``ToolForm(tool, widgets=table)``). A schema no row fits, or a row whose factory fails,
falls back to a JSON box **for that field only**.

=====================  ==========================================================  =============================
row                    matches                                                     widget
=====================  ==========================================================  =============================
nullable               ``anyOf``/``oneOf`` with null, ``type: [X, "null"]``         *none* Checkbox + field for X
const                  ``const`` (one-value ``Literal``)                           fixed value (HTML)
enum                   ``enum`` (``Literal``, ``Enum``)                            Dropdown
variant                ``anyOf``/``oneOf`` (≥ 2, no null), ``type: [X, Y]``        Dropdown + selected variant
date                   string, ``format: date``                                    DatePicker
date-time              string, ``format: date-time``                               NaiveDatetimePicker
time                   string, ``format: time``                                    TimePicker
password               string, ``format: password`` or ``writeOnly`` (SecretStr)   SecretInput (password box)
long text              string and ``is_long_text`` (format/maxLength/name/desc)     Textarea
string                 string (uuid, path, email, binary… get a placeholder)       Text
integer                integer                                                     Text, read as a JSON integer
number                 number                                                      Text, read as a JSON number
boolean                boolean                                                     Checkbox
multi-select           array whose items are an ``enum``                           SelectMultiple
tuple                  array with ``prefixItems``                                  one field per position
list                   array                                                       editable list (add/remove rows)
object                 object with ``properties``                                  nested group
mapping                object with a schema in ``additionalProperties`` only       key/value rows (add/remove)
free-form object       any other object (``dict[str, Any]``)                       JSON Textarea
json (fallback)        anything else (``Any``, ``not``, unknown types…)            JSON Textarea
=====================  ==========================================================  =============================

Numbers are typed into a ``Text`` box, not ``IntText``/``BoundedIntText``: those rewrite what was typed
in the browser (``3.7`` → ``37``, ``200`` clamped to the maximum, ``abc`` → ``0``); here the text stays as
typed and what is wrong with it is said inline (see ``NumberField``).

A recursive model's inner occurrence of itself (a ``$ref`` already being expanded above the field)
becomes a JSON box (rule ``json (recursive)``), and so does anything nested deeper than ``MAX_DEPTH``
(rule ``json (depth)``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional

from workbench.jupyter._containers import (
    ListField,
    MappingField,
    MultiSelectField,
    NullableField,
    ObjectField,
    TupleField,
    VariantField,
)
from workbench.jupyter._fields import (
    BoolField,
    ConstField,
    DateField,
    DateTimeField,
    EnumField,
    Field,
    FieldContext,
    FloatField,
    IntField,
    JSONField,
    PasswordField,
    StringField,
    TextareaField,
    TimeField,
)
from workbench.jupyter._schema_utils import is_long_text, json_types, resolve, split_nullable, variants_of
from workbench.secrets import is_secret_schema

__all__ = [
    "Where",
    "WidgetRule",
    "WIDGET_RULES",
    "MAX_DEPTH",
    "build_field",
    "register_widget_rule",
    "widget_table",
    "FALLBACK_RULE",
    "TypeWidget",
    "WidgetTable",
    "WIDGETS",
    "register_widget_type",
]

MAX_DEPTH = 6
FALLBACK_RULE = "json (fallback)"


@dataclass
class WidgetRule:
    """One row of the table. ``matches(schema, where)`` gets the resolved schema and a ``Where``
    (``.name`` of the field, ``.root`` schema for ``$defs``); ``factory(schema, ctx, name, required=, parent=)``
    returns a ``Field``."""

    name: str
    matches: Callable[[dict, Any], bool]
    factory: Callable[..., Field]
    widget: str = ""


@dataclass(frozen=True)
class Where:
    """Where a schema sits: the field's name (``str``, list index, or ``None``) and the root schema."""

    name: Any
    root: dict


def _only(schema: dict, *types: str) -> bool:
    found = json_types(schema)
    return bool(found) and found <= set(types)


def _string_format(fmt: str) -> Callable[[dict, Any], bool]:
    return lambda s, name: _only(s, "string") and s.get("format") == fmt


def _nullable_factory(schema: dict, ctx: FieldContext, name: Any, **kw: Any) -> Field:
    return NullableField(schema, ctx, name, inner=split_nullable(schema), **kw)  # type: ignore[arg-type]


def _enum_items(schema: dict, where: Where) -> bool:
    items = schema.get("items")
    if not isinstance(items, dict):
        return False
    items = resolve(items, where.root)
    return isinstance(items.get("enum"), list) and bool(items["enum"])


WIDGET_RULES: list[WidgetRule] = [
    WidgetRule("nullable", lambda s, n: split_nullable(s) is not None, _nullable_factory, "Checkbox 'none' + field"),
    WidgetRule("const", lambda s, n: "const" in s, ConstField, "HTML (fixed value)"),
    WidgetRule("enum", lambda s, n: isinstance(s.get("enum"), list) and bool(s["enum"]), EnumField, "Dropdown"),
    WidgetRule("variant", lambda s, n: variants_of(s) is not None, VariantField, "Dropdown + variant field"),
    WidgetRule("date", _string_format("date"), DateField, "DatePicker"),
    WidgetRule("date-time", _string_format("date-time"), DateTimeField, "NaiveDatetimePicker"),
    WidgetRule("time", _string_format("time"), TimeField, "TimePicker"),
    WidgetRule(
        "password", lambda s, n: _only(s, "string") and is_secret_schema(s), PasswordField, "password box (SecretInput)"
    ),
    WidgetRule("long text", lambda s, n: _only(s, "string") and is_long_text(n.name, s), TextareaField, "Textarea"),
    WidgetRule("string", lambda s, n: _only(s, "string"), StringField, "Text"),
    WidgetRule("integer", lambda s, n: _only(s, "integer"), IntField, "Text (JSON integer)"),
    WidgetRule("number", lambda s, n: _only(s, "number", "integer"), FloatField, "Text (JSON number)"),
    WidgetRule("boolean", lambda s, n: _only(s, "boolean"), BoolField, "Checkbox"),
    WidgetRule(
        "multi-select", lambda s, n: _only(s, "array") and _enum_items(s, n), MultiSelectField, "SelectMultiple"
    ),
    WidgetRule(
        "tuple",
        lambda s, n: _only(s, "array") and isinstance(s.get("prefixItems"), list),
        TupleField,
        "one field per position",
    ),
    WidgetRule("list", lambda s, n: _only(s, "array"), ListField, "editable list (add/remove rows)"),
    WidgetRule("object", lambda s, n: _only(s, "object") and bool(s.get("properties")), ObjectField, "nested group"),
    WidgetRule(
        "mapping",
        lambda s, n: (
            _only(s, "object")
            and not s.get("properties")
            and isinstance(s.get("additionalProperties"), dict)
            and bool(s["additionalProperties"])
        ),
        MappingField,
        "key/value rows",
    ),
    WidgetRule("free-form object", lambda s, n: _only(s, "object"), JSONField, "JSON Textarea"),
]


@dataclass
class TypeWidget:
    """A widget for a Python type: fields whose declared type is ``type`` (or a subclass) get ``factory``."""

    type: type
    factory: Callable[..., Field]
    widget: str = ""


class WidgetTable:
    """Which field a form builds for each parameter: by the Python type the tool declares first (rows
    added with :meth:`register_type`, looked up along the annotation's MRO, so a subclass finds its base
    class's widget), then the first JSON Schema row that matches (:attr:`rules`).

    The package's table is :data:`WIDGETS` (``register_widget_rule``/``register_widget_type`` add to it);
    :meth:`copy` gives a table of one's own, for a form (``ToolForm(tool, widgets=table)``) or a test,
    whose additions stay out of the package's.
    """

    def __init__(self, rules: Optional[list[WidgetRule]] = None, types: Optional[list[TypeWidget]] = None) -> None:
        self.rules: list[WidgetRule] = rules if rules is not None else []
        self.types: list[TypeWidget] = types if types is not None else []

    def copy(self) -> "WidgetTable":
        """A table with the same rows; adding to either leaves the other as it is."""
        return WidgetTable(list(self.rules), list(self.types))

    def register_rule(
        self,
        name: str,
        matches: Callable[[dict, Any], bool],
        factory: Callable[..., Field],
        *,
        widget: str = "",
        before: Optional[str] = None,
    ) -> WidgetRule:
        """Add a schema row (before the row called ``before``, else at the top). Returns it."""
        rule = WidgetRule(name, matches, factory, widget)
        index = next((i for i, r in enumerate(self.rules) if r.name == before), 0) if before else 0
        self.rules.insert(index, rule)
        return rule

    def register_type(
        self,
        tp: type,
        factory: Optional[Callable[..., Field]] = None,
        *,
        widget: Any = None,
        to_json: Optional[Callable[[Any], Any]] = None,
        from_json: Optional[Callable[[Any], Any]] = None,
    ) -> TypeWidget:
        """Give fields declared as ``tp`` (a class: a pydantic model, a dataclass, an ``Enum``, ``Path``…,
        or a subclass of it) a widget of one's own, replacing ``tp``'s earlier one.

        Either ``factory`` — a ``Field`` subclass (or anything called as one) — or ``widget``, a callable
        making an ipywidget with a ``value`` (``W.ColorPicker``, ``lambda: W.Dropdown(options=...)``),
        with ``to_json`` (widget value → the JSON sent; default as is) and ``from_json`` (the reverse).
        """
        if not isinstance(tp, type):
            raise TypeError(
                f"register_type needs a class (a pydantic model, a dataclass, an Enum, pathlib.Path…), got {tp!r}"
            )
        if (factory is None) == (widget is None):
            raise TypeError(
                f"register_type({tp.__name__}): give either factory= (a Field class) or widget= "
                "(a callable making an ipywidget with a value), not both nor neither"
            )
        if widget is not None:
            from workbench.jupyter._widget_types import widget_field

            factory = widget_field(widget, to_json=to_json, from_json=from_json, name=f"{tp.__name__}Field")
            label = getattr(widget, "__name__", "custom widget")
        else:
            label = getattr(factory, "__name__", "custom field")
        row = TypeWidget(tp, factory, label)  # type: ignore[arg-type]
        self.types = [r for r in self.types if r.type is not tp] + [row]
        return row

    def factory_for(self, annotation: Any) -> Optional[TypeWidget]:
        """The row for ``annotation`` (its own class first, then its bases), or ``None``."""
        if not self.types or not isinstance(annotation, type):
            return None
        by_type = {row.type: row for row in self.types}
        return next((by_type[klass] for klass in annotation.__mro__ if klass in by_type), None)

    def builder(self, annotations: Optional[dict[str, Any]] = None) -> Callable[..., Field]:
        """The field builder a form uses (``FieldContext.build``): this table, with the tool's declared
        types (``{parameter: annotation}``, see ``_widget_types.tool_annotations``)."""
        hints = annotations or {}

        def build(
            schema: Any, ctx: FieldContext, name: Any, *, required: bool = False, parent: Optional[Field] = None
        ) -> Field:
            return self.build_field(schema, ctx, name, required=required, parent=parent, annotations=hints)

        return build

    def build_field(
        self,
        schema: Any,
        ctx: FieldContext,
        name: Any,
        *,
        required: bool = False,
        parent: Optional[Field] = None,
        annotations: Optional[dict[str, Any]] = None,
    ) -> Field:
        """The field for ``schema``: the widget of its declared type, else the first matching row, else a JSON box."""
        schema = schema if isinstance(schema, dict) else {}
        ref = schema.get("$ref")
        recursive = isinstance(ref, str) and ref in ctx.refs
        if isinstance(ref, str) and not recursive:
            ctx = ctx.with_ref(ref)
        resolved = resolve(schema, ctx.root)
        if annotations and self.types:
            field = self._typed_field(resolved, ctx, name, required, parent, annotations)
            if field is not None:
                return field
        where = Where(name, ctx.root)
        too_deep = ctx.depth > MAX_DEPTH or "$ref" in resolved  # still a $ref: cyclic or unresolvable
        if not (too_deep or recursive):
            for rule in self.rules:
                try:
                    matched = rule.matches(resolved, where)
                except Exception:  # noqa: BLE001 - a broken predicate must not break the form
                    matched = False
                if not matched:
                    continue
                try:
                    field = rule.factory(resolved, ctx, name, required=required, parent=parent)
                except Exception:  # noqa: BLE001 - this field falls back to JSON, the form survives
                    break
                field.rule = rule.name
                return field
        field = JSONField(resolved, ctx, name, required=required, parent=parent)
        field.rule = "json (recursive)" if recursive else "json (depth)" if too_deep else FALLBACK_RULE
        return field

    def _typed_field(
        self,
        schema: dict,
        ctx: FieldContext,
        name: Any,
        required: bool,
        parent: Optional[Field],
        annotations: dict[str, Any],
    ) -> Optional[Field]:
        from workbench.jupyter._widget_types import annotation_at, strip_optional

        path = (parent.path if parent is not None else ()) + (() if name is None else (name,))
        annotation, optional = strip_optional(annotation_at(annotations, path))
        if optional and split_nullable(schema) is not None:
            return None  # the nullable row wraps it; its inner field (same path) gets the type's widget
        row = self.factory_for(annotation)
        if row is None:
            return None
        try:
            field = row.factory(schema, ctx, name, required=required, parent=parent)
        except Exception:  # noqa: BLE001 - like a schema row's factory: the schema's own field instead
            return None
        field.rule = f"type {row.type.__name__}"
        return field

    def rows(self) -> list[tuple[str, str]]:
        """``(row name, widget)`` for every row, in match order (types first), plus the fallback."""
        return (
            [(f"type {r.type.__name__}", r.widget) for r in self.types]
            + [(r.name, r.widget) for r in self.rules]
            + [(FALLBACK_RULE, "JSON Textarea")]
        )


#: the package's table: every form uses it unless given its own (``ToolForm(tool, widgets=WIDGETS.copy())``)
WIDGETS = WidgetTable(WIDGET_RULES)


def build_field(
    schema: Any, ctx: FieldContext, name: Any, *, required: bool = False, parent: Optional[Field] = None
) -> Field:
    """The field for ``schema`` from the package's table (no declared types): the first matching row of
    ``WIDGET_RULES``, else a JSON box."""
    return WIDGETS.build_field(schema, ctx, name, required=required, parent=parent)


def register_widget_rule(
    name: str,
    matches: Callable[[dict, Any], bool],
    factory: Callable[..., Field],
    *,
    widget: str = "",
    before: Optional[str] = None,
) -> WidgetRule:
    """Add a row to the package's table (before the row called ``before``, else at the top). Returns it."""
    return WIDGETS.register_rule(name, matches, factory, widget=widget, before=before)


def register_widget_type(tp: type, factory: Optional[Callable[..., Field]] = None, **options: Any) -> TypeWidget:
    """Give every form's fields declared as ``tp`` (or a subclass) a widget of one's own (see
    :meth:`WidgetTable.register_type`; a table of one's own: ``WIDGETS.copy().register_type(...)``)."""
    return WIDGETS.register_type(tp, factory, **options)


def widget_table() -> list[tuple[str, str]]:
    """``(row name, widget)`` for every schema row of the package's table, in match order, plus the fallback."""
    return [(r.name, r.widget) for r in WIDGET_RULES] + [(FALLBACK_RULE, "JSON Textarea")]
