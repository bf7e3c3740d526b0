"""Checking a tool's JSON Schema against the Draft 2020-12 meta-schema, once per shape.

``jsonschema``'s ``check_schema`` costs ~2.5 ms a schema, and a 1,000-tool MCP server lists 1,000
schemas that mostly repeat a few shapes: ``{"type": "string", "description": ...}`` with a different
description. The check is therefore split and remembered:

* a schema's ``properties`` are checked one by one (the meta-schema applies itself to each property
  schema on its own, so the whole is valid exactly when the root without them and each of them is);
* each part is remembered by a *shape key*: its canonical JSON with the string values of
  ``description``/``title``/``$comment`` and the string or number values of ``default`` blanked. Any
  string is as valid there as any other, and where such a key is not a keyword (a property named
  ``description`` inside ``properties``) a string or number is never a valid schema, blank or not, so
  two parts with one key are both valid or both invalid.

Only valid shapes are remembered; a failing schema is checked whole again for the exact error.

Before any of that, :func:`plainly_valid` accepts the schemas made only of everyday keywords with
values of the types the meta-schema asks for, without importing ``jsonschema`` (whose import costs
~1 s when its optional format checkers, rfc3987-syntax, are installed). It only ever says "valid"
for what the meta-schema accepts; everything else goes to ``jsonschema``.
"""

from __future__ import annotations

import json
import re
import threading
from typing import Any, Optional

__all__ = ["meta_schema_error"]

_BLANK_STRINGS = frozenset({"description", "title", "$comment"})
_VALID_SHAPES: set[str] = set()
_MAX_SHAPES = 50_000  # a bound for long-lived processes; clearing only costs re-checks
_LOCK = threading.Lock()


_SIMPLE_TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})
_LOCAL_REF = re.compile(r"#(/[A-Za-z0-9_.$~-]+)*\Z")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _type(value: Any) -> bool:
    if isinstance(value, str):
        return value in _SIMPLE_TYPES
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(t, str) and t in _SIMPLE_TYPES for t in value)
        and len(set(value)) == len(value)
    )


def _schema(value: Any) -> bool:
    return isinstance(value, bool) or plainly_valid(value)


def _schema_map(value: Any) -> bool:
    return isinstance(value, dict) and all(_schema(v) for v in value.values())


def _schema_list(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(_schema(v) for v in value)


def _names(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value) and len(set(value)) == len(value)


def _anything(value: Any) -> bool:
    return True


#: keyword → what the Draft 2020-12 meta-schema accepts as its value (the everyday subset)
_PLAIN_KEYWORDS: dict[str, Any] = {
    "type": _type,
    "description": lambda v: isinstance(v, str),
    "title": lambda v: isinstance(v, str),
    "$comment": lambda v: isinstance(v, str),
    "format": lambda v: isinstance(v, str),
    "default": _anything,
    "const": _anything,
    "examples": lambda v: isinstance(v, list),
    "enum": lambda v: isinstance(v, list),
    "required": _names,
    "properties": _schema_map,
    "$defs": _schema_map,
    "items": _schema,
    "additionalProperties": _schema,
    "not": _schema,
    "contains": _schema,
    "anyOf": _schema_list,
    "oneOf": _schema_list,
    "allOf": _schema_list,
    "prefixItems": _schema_list,
    "minimum": _number,
    "maximum": _number,
    "exclusiveMinimum": _number,
    "exclusiveMaximum": _number,
    "multipleOf": lambda v: _number(v) and v > 0,
    "minLength": _count,
    "maxLength": _count,
    "minItems": _count,
    "maxItems": _count,
    "minProperties": _count,
    "maxProperties": _count,
    "uniqueItems": lambda v: isinstance(v, bool),
    "readOnly": lambda v: isinstance(v, bool),
    "writeOnly": lambda v: isinstance(v, bool),
    "deprecated": lambda v: isinstance(v, bool),
    "$ref": lambda v: isinstance(v, str) and _LOCAL_REF.match(v) is not None,
}

#: the other keywords the meta-schema constrains: a schema using one is checked by ``jsonschema``
_OTHER_KEYWORDS = frozenset(
    {
        "$id",
        "$schema",
        "$anchor",
        "$dynamicRef",
        "$dynamicAnchor",
        "$vocabulary",
        "patternProperties",
        "dependentSchemas",
        "propertyNames",
        "if",
        "then",
        "else",
        "unevaluatedItems",
        "unevaluatedProperties",
        "pattern",
        "maxContains",
        "minContains",
        "dependentRequired",
        "contentEncoding",
        "contentMediaType",
        "contentSchema",
        "definitions",
        "dependencies",
        "$recursiveAnchor",
        "$recursiveRef",
    }
)


def plainly_valid(schema: Any) -> bool:
    """Whether ``schema`` is certainly valid: a dict of everyday keywords with well-typed values
    (unknown keywords are free in 2020-12). False means "not known", not "invalid"."""
    if not isinstance(schema, dict):
        return False
    for key, value in schema.items():
        check = _PLAIN_KEYWORDS.get(key)
        if check is None:
            if key in _OTHER_KEYWORDS:
                return False
        elif not check(value):
            return False
    return True


def _shape(value: Any) -> Any:
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in _BLANK_STRINGS and isinstance(item, str):
                item = ""
            elif key == "default" and isinstance(item, (str, int, float)) and not isinstance(item, bool):
                item = "" if isinstance(item, str) else 0
            else:
                item = _shape(item)
            out[key] = item
        return out
    if isinstance(value, list):
        return [_shape(item) for item in value]
    return value


def _key(schema: Any) -> Optional[str]:
    try:
        return json.dumps(_shape(schema), sort_keys=True, allow_nan=False)
    except (TypeError, ValueError):  # not JSON (a set, NaN…): no key, always checked in full
        return None


def _parts(schema: Any) -> list[Any]:
    """The root (its property schemas replaced by ``{}``) and each property schema."""
    if isinstance(schema, dict) and isinstance(schema.get("properties"), dict):
        properties = schema["properties"]
        return [{**schema, "properties": {name: {} for name in properties}}, *properties.values()]
    return [schema]


def _check(schema: Any) -> Optional[Any]:
    """The first meta-schema error of ``schema`` (a ``jsonschema.SchemaError``), or None."""
    import jsonschema

    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        return exc
    return None


def meta_schema_error(schema: Any) -> Optional[Any]:
    """The ``jsonschema.SchemaError`` of ``schema`` against the Draft 2020-12 meta-schema, or None."""
    try:
        if plainly_valid(schema):
            return None
    except RecursionError:  # absurdly deep: jsonschema decides
        pass
    for part in _parts(schema):
        key = _key(part)
        if key is not None and key in _VALID_SHAPES:
            continue
        if _check(part) is not None:
            return _check(schema)  # the whole schema's error, with its full path
        if key is not None:
            with _LOCK:
                if len(_VALID_SHAPES) >= _MAX_SHAPES:
                    _VALID_SHAPES.clear()
                _VALID_SHAPES.add(key)
    return None
