"""The Gemini schema rewrite: the subset of JSON Schema Gemini accepts."""

from __future__ import annotations

from typing import Any

from workbench._content import json_text
from workbench._errors import ToolSpecError
from workbench._json_copy import copy_json
from workbench._validation import json_type_name
from workbench.formats._common import (
    Schema,
    _describe,
    _field,
    _is_object,
    _merge_all_of,
    _resolve_pointer,
    _tuple_to_items,
    _Walk,
)

#: the keys a Gemini ``Schema`` may carry (JSON names); everything else is dropped
GEMINI_SCHEMA_KEYS = frozenset(
    {
        "type",
        "format",
        "description",
        "nullable",
        "enum",
        "properties",
        "required",
        "items",
        "minItems",
        "maxItems",
        "minimum",
        "maximum",
        "minLength",
        "maxLength",
        "pattern",
        "anyOf",
        "propertyOrdering",
    }
)


_GEMINI_FORMATS = {
    "string": frozenset({"date-time", "enum"}),
    "integer": frozenset({"int32", "int64"}),
    "number": frozenset({"float", "double"}),
}


_JSON_OBJECT_NOTE = "a JSON object, sent as a string"


_JSON_ARRAY_NOTE = "a JSON array, sent as a string"


def _free_array(schema: Schema) -> bool:
    """An array whose items are unconstrained (``list`` / ``list[Any]``)."""
    t = schema.get("type")
    is_array = t == "array" or (isinstance(t, list) and "array" in t)
    return is_array and "prefixItems" not in schema and schema.get("items", {}) in ({}, True)


def _gemini_node(node: Any, path: str, walk: _Walk) -> Schema:
    if node is True or not isinstance(node, dict):
        return {}
    node = dict(node)
    node.pop("$defs", None)
    node.pop("definitions", None)

    while "$ref" in node or "allOf" in node:
        ref = node.pop("$ref", None)
        if ref is not None:
            if ref in walk.stack:
                raise ToolSpecError(
                    f"Tool '{walk.tool}': field '{_field(path)}' is recursive ({ref} refers to itself); Gemini function "
                    "declarations cannot express recursive schemas. Limit the nesting depth with a non-recursive type."
                )
            target = _resolve_pointer(walk.root, ref, walk.tool, path)
            walk.stack.append(ref)
            try:
                return _gemini_node({**target, **node}, path, walk)
            finally:
                walk.stack.pop()
        node = _merge_all_of(node, walk.tool, path)

    notes: list[str] = []
    nullable = bool(node.get("nullable"))
    members = list(node.get("anyOf") or []) + list(node.get("oneOf") or [])
    out: Schema = {}

    # type lists: ["string", "null"] → string + nullable; ["string", "integer"] → anyOf
    t = node.get("type")
    if isinstance(t, list):
        kinds = [k for k in t if k != "null"]
        nullable = nullable or len(kinds) != len(t)
        if len(kinds) == 1:
            t = kinds[0]
        else:
            t = None
            members += [{"type": k} for k in kinds]
    elif t == "null":
        nullable, t = True, None

    if members:
        non_null = []
        for m in members:
            if isinstance(m, dict) and (m.get("type") == "null" or m == {"const": None} or m == {"enum": [None]}):
                nullable = True
            else:
                non_null.append(m)
        if len(non_null) == 1 and isinstance(non_null[0], dict):
            # anyOf [X, null] → X (+ nullable); the node's own keys (description, default…) win
            rest = {k: v for k, v in node.items() if k not in ("anyOf", "oneOf", "type", "nullable")}
            merged = _gemini_node({**non_null[0], **rest}, path, walk)
            if nullable:
                merged["nullable"] = True
            return merged
        cleaned: list[Any] = []
        for m in non_null:
            c = _gemini_node(m, path, walk)
            nullable = nullable or bool(c.pop("nullable", False))
            cleaned.extend(c["anyOf"] if set(c) == {"anyOf"} else [c])
        if cleaned:
            out["anyOf"] = cleaned

    if t is not None:
        out["type"] = t
    if "description" in node:
        out["description"] = node["description"]

    # const / enum: Gemini enums are strings only
    values = None
    if "const" in node:
        values = [node["const"]]
    elif isinstance(node.get("enum"), list):
        values = list(node["enum"])
    if values is not None:
        if None in values:
            nullable = True
            values = [v for v in values if v is not None]
        if values and all(isinstance(v, str) for v in values):
            out["enum"] = values
            out.setdefault("type", "string")
        elif values:
            notes.append("one of: " + ", ".join(json_text(v) for v in values))
            if "type" not in out:
                value_kinds = {json_type_name(v) for v in values}
                if len(value_kinds) == 1:
                    out["type"] = value_kinds.pop()

    fmt = node.get("format")
    if fmt is not None:
        if fmt in _GEMINI_FORMATS.get(out.get("type", ""), frozenset()):
            out["format"] = fmt
        else:
            notes.append(f"format: {fmt}")

    if _is_object(node):
        props = node.get("properties") or {}
        if not props:
            # Gemini rejects an OBJECT without properties: ask for the object as JSON text instead
            return _finish_gemini(
                {"type": "string", "description": node.get("description", "")}, [_JSON_OBJECT_NOTE] + notes, nullable
            )
        out["type"] = "object"
        out["properties"] = {
            name: _gemini_node(sub, f"{path}.{name}" if path else name, walk) for name, sub in props.items()
        }
        required = [r for r in node.get("required") or [] if r in props]
        if required:
            out["required"] = required

    if _free_array(node):
        # Gemini needs an item type: ask for the list as JSON text instead
        return _finish_gemini(
            {"type": "string", "description": node.get("description", "")}, [_JSON_ARRAY_NOTE] + notes, nullable
        )
    if "items" in node or "prefixItems" in node:
        if "prefixItems" in node:
            notes += _tuple_to_items(node)
        if isinstance(node.get("items"), dict):
            out["items"] = _gemini_node(node["items"], f"{path}[]", walk)
        out.setdefault("type", "array")

    for key in ("minItems", "maxItems", "minimum", "maximum", "minLength", "maxLength", "pattern"):
        if key in node:
            out[key] = node[key]
    if node.get("default") is not None:
        notes.append(f"default: {json_text(node['default'])}")
    return _finish_gemini(out, notes, nullable)


def _finish_gemini(out: Schema, notes: list[str], nullable: bool) -> Schema:
    if not out.get("description"):
        out.pop("description", None)
    _describe(out, notes)
    if nullable:
        out["nullable"] = True
    return {k: v for k, v in out.items() if k in GEMINI_SCHEMA_KEYS}


def gemini_schema(parameters: Schema, tool_name: str = "tool") -> Schema:
    """``parameters`` reduced to the OpenAPI-3 subset Gemini accepts (see the module docstring).

    Raises ``ToolSpecError`` naming ``tool_name`` and the field for a recursive schema.
    """
    root = copy_json(parameters)
    return _gemini_node(root, "", _Walk(tool=tool_name, root=root))
