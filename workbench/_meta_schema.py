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
"""

from __future__ import annotations

import json
import threading
from typing import Any, Optional

__all__ = ["meta_schema_error"]

_BLANK_STRINGS = frozenset({"description", "title", "$comment"})
_VALID_SHAPES: set[str] = set()
_MAX_SHAPES = 50_000  # a bound for long-lived processes; clearing only costs re-checks
_LOCK = threading.Lock()


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
