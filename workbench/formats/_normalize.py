"""normalize_arguments: undo an export's schema rewrites on a call's input."""

from __future__ import annotations

import copy
from typing import Any

from workbench._errors import ToolSpecError
from workbench._json_text import loads
from workbench._refs import RefError, follow
from workbench.formats._common import PROVIDER_NAMES, Schema, _as_spec, _field, _is_nullable, _is_object, _provider_key
from workbench.formats._gemini_schema import _free_array


def normalize_arguments(spec: Any, arguments: dict[str, Any], provider: str, *, strict: bool = False) -> dict[str, Any]:
    """Undo what ``to_provider_format(spec, provider, strict=strict)`` changed about the input shape.

    * openai / openai-responses with ``strict=True``: a ``null`` sent for a property that was
      optional and not nullable in the original schema is removed (so its default applies);
    * gemini: a free-form object / untyped list declared as JSON text is parsed back.

    Other values pass unchanged; the input is not modified (a new dict is returned). A ``$ref`` in
    the schema that cannot be followed is a ``ToolSpecError`` naming the tool and the field.
    """
    spec = _as_spec(spec)
    key = _provider_key(provider, PROVIDER_NAMES, "normalize_arguments")
    drop_nulls = strict and key in ("openai", "openai-responses")  # the strict modes that make everything required
    parse_json = key == "gemini"
    if not (drop_nulls or parse_json) or not isinstance(arguments, dict):
        return arguments
    walk = _Walk(spec.name, spec.parameters, drop_nulls, parse_json)
    return _normalize(walk, spec.parameters, copy.deepcopy(arguments), "", 0)


class _Walk:
    """One call's normalising: the tool (for errors), its schema root and what to undo."""

    def __init__(self, tool: str, root: Schema, drop_nulls: bool, parse_json: bool) -> None:
        self.tool, self.root, self.drop_nulls, self.parse_json = tool, root, drop_nulls, parse_json

    def deref(self, schema: Any, path: str) -> Any:
        try:
            return follow(schema, self.root)[0]
        except RefError as exc:
            raise ToolSpecError(f"Tool '{self.tool}': field '{_field(path)}': {exc}") from None


def _normalize(walk: _Walk, schema: Any, value: Any, path: str, depth: int) -> Any:
    if not isinstance(schema, dict) or depth > 64:
        return value
    schema = walk.deref(schema, path)
    if not isinstance(schema, dict):
        return value
    drop_nulls, parse_json = walk.drop_nulls, walk.parse_json
    variants = [
        m for m in (schema.get("anyOf") or schema.get("oneOf") or []) if isinstance(m, dict) and m.get("type") != "null"
    ]
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
                where = f"{path}.{name}" if path else name
                if (
                    value[name] is None
                    and drop_nulls
                    and name not in required
                    and not _is_nullable(walk.deref(sub, where))
                ):
                    del value[name]
                    continue
                value[name] = _normalize(walk, sub, value[name], where, depth + 1)
        return value
    if parse_json and isinstance(value, str) and _free_array(schema):
        try:
            decoded = loads(value)
        except ValueError:
            return value
        return decoded if isinstance(decoded, list) else value
    items = schema.get("items")
    if isinstance(value, list) and isinstance(items, dict):
        return [_normalize(walk, items, v, f"{path}[{i}]", depth + 1) for i, v in enumerate(value)]
    return value
