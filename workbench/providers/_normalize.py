"""normalize_arguments: undo an export's schema rewrites on a call's input."""

from __future__ import annotations

import copy
from typing import Any

from workbench._errors import ToolSpecError
from workbench._json_text import loads
from workbench.providers._common import PROVIDER_NAMES, Schema, _as_spec, _is_nullable, _is_object, _provider_key, _resolve_pointer
from workbench.providers._gemini_schema import _free_array


def normalize_arguments(spec: Any, arguments: dict[str, Any], provider: str, *, strict: bool = False) -> dict[str, Any]:
    """Undo what ``to_provider_format(spec, provider, strict=strict)`` changed about the input shape.

    * openai / openai-responses with ``strict=True``: a ``null`` sent for a property that was
      optional and not nullable in the original schema is removed (so its default applies);
    * gemini: a free-form object / untyped list declared as JSON text is parsed back.

    Other values pass unchanged; the input is not modified (a new dict is returned).
    """
    spec = _as_spec(spec)
    key = _provider_key(provider, PROVIDER_NAMES, "normalize_arguments")
    drop_nulls = strict and key in ("openai", "openai-responses")  # the strict modes that make everything required
    parse_json = key == "gemini"
    if not (drop_nulls or parse_json) or not isinstance(arguments, dict):
        return arguments
    return _normalize(spec.parameters, copy.deepcopy(arguments), spec.parameters, drop_nulls, parse_json, 0)


def _normalize(schema: Any, value: Any, root: Schema, drop_nulls: bool, parse_json: bool, depth: int) -> Any:
    if not isinstance(schema, dict) or depth > 64:
        return value
    ref = schema.get("$ref")
    if isinstance(ref, str):
        try:
            target = _resolve_pointer(root, ref, "", "")
        except ToolSpecError:
            return value
        schema = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    variants = [m for m in (schema.get("anyOf") or schema.get("oneOf") or []) if isinstance(m, dict) and m.get("type") != "null"]
    if len(variants) == 1:
        schema = {**schema, **variants[0]}
    if _is_object(schema):
        props = schema.get("properties") or {}
        if not props:
            if parse_json and isinstance(value, str):
                try:
                    decoded = loads(value)
                except ValueError:
                    return value
                return decoded if isinstance(decoded, dict) else value
            return value
        if isinstance(value, dict):
            required = set(schema.get("required") or [])
            for name in list(value):
                sub = props.get(name)
                if sub is None:
                    continue
                if value[name] is None and drop_nulls and name not in required and not _is_nullable(_deref(sub, root)):
                    del value[name]
                    continue
                value[name] = _normalize(sub, value[name], root, drop_nulls, parse_json, depth + 1)
        return value
    if parse_json and isinstance(value, str) and _free_array(schema):
        try:
            decoded = loads(value)
        except ValueError:
            return value
        return decoded if isinstance(decoded, list) else value
    items = schema.get("items")
    if isinstance(value, list) and isinstance(items, dict):
        return [_normalize(items, v, root, drop_nulls, parse_json, depth + 1) for v in value]
    return value


def _deref(schema: Any, root: Schema) -> Any:
    if isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
        try:
            return {**_resolve_pointer(root, schema["$ref"], "", ""), **{k: v for k, v in schema.items() if k != "$ref"}}
        except ToolSpecError:
            return schema
    return schema
