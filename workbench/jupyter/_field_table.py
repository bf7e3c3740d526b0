"""The schema → widget table.

``WIDGET_RULES`` is an ordered list of rows ``(name, matches(schema, name), factory, widget)``; the first
row whose predicate matches a (``$ref``-resolved) schema builds the field — magicgui style, not an
if-chain. Add rows with ``register_widget_rule``. A schema no row fits, or a row whose factory fails,
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

__all__ = ["Where", "WidgetRule", "WIDGET_RULES", "MAX_DEPTH", "build_field", "register_widget_rule", "widget_table",
           "FALLBACK_RULE"]

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
    WidgetRule("password", lambda s, n: _only(s, "string") and is_secret_schema(s), PasswordField,
               "password box (SecretInput)"),
    WidgetRule("long text", lambda s, n: _only(s, "string") and is_long_text(n.name, s), TextareaField, "Textarea"),
    WidgetRule("string", lambda s, n: _only(s, "string"), StringField, "Text"),
    WidgetRule("integer", lambda s, n: _only(s, "integer"), IntField, "Text (JSON integer)"),
    WidgetRule("number", lambda s, n: _only(s, "number", "integer"), FloatField, "Text (JSON number)"),
    WidgetRule("boolean", lambda s, n: _only(s, "boolean"), BoolField, "Checkbox"),
    WidgetRule("multi-select", lambda s, n: _only(s, "array") and _enum_items(s, n),
               MultiSelectField, "SelectMultiple"),
    WidgetRule("tuple", lambda s, n: _only(s, "array") and isinstance(s.get("prefixItems"), list), TupleField,
               "one field per position"),
    WidgetRule("list", lambda s, n: _only(s, "array"), ListField, "editable list (add/remove rows)"),
    WidgetRule("object", lambda s, n: _only(s, "object") and bool(s.get("properties")), ObjectField, "nested group"),
    WidgetRule("mapping", lambda s, n: _only(s, "object") and not s.get("properties")
               and isinstance(s.get("additionalProperties"), dict) and bool(s["additionalProperties"]),
               MappingField, "key/value rows"),
    WidgetRule("free-form object", lambda s, n: _only(s, "object"), JSONField, "JSON Textarea"),
]


def build_field(schema: Any, ctx: FieldContext, name: Any, *, required: bool = False,
                parent: Optional[Field] = None) -> Field:
    """The field for ``schema``: the first matching row of ``WIDGET_RULES``, else a JSON box."""
    schema = schema if isinstance(schema, dict) else {}
    ref = schema.get("$ref")
    recursive = isinstance(ref, str) and ref in ctx.refs
    if isinstance(ref, str) and not recursive:
        ctx = ctx.with_ref(ref)
    resolved = resolve(schema, ctx.root)
    where = Where(name, ctx.root)
    too_deep = ctx.depth > MAX_DEPTH or "$ref" in resolved  # still a $ref: cyclic or unresolvable
    if not (too_deep or recursive):
        for rule in WIDGET_RULES:
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


def register_widget_rule(name: str, matches: Callable[[dict, Any], bool], factory: Callable[..., Field], *,
                         widget: str = "", before: Optional[str] = None) -> WidgetRule:
    """Add a row to the table (before the row called ``before``, else at the top). Returns it."""
    rule = WidgetRule(name, matches, factory, widget)
    index = next((i for i, r in enumerate(WIDGET_RULES) if r.name == before), 0) if before else 0
    WIDGET_RULES.insert(index, rule)
    return rule


def widget_table() -> list[tuple[str, str]]:
    """``(row name, widget)`` for every row, in match order, plus the fallback."""
    return [(r.name, r.widget) for r in WIDGET_RULES] + [(FALLBACK_RULE, "JSON Textarea")]
