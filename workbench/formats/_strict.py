"""The strict-mode schema rewrite (OpenAI, Anthropic)."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from workbench._content import json_text
from workbench._errors import ToolSpecError
from workbench.formats._common import (
    _ALWAYS,
    Schema,
    _describe,
    _field,
    _is_nullable,
    _is_object,
    _merge_all_of,
    _open_object_error,
    _resolve_pointer,
    _tuple_to_items,
    _Walk,
)
from workbench.formats._gemini_schema import _free_array

_OPENAI_STRING_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)


_ANTHROPIC_STRING_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"}
)


@dataclass(frozen=True)
class _StrictProfile:
    """What one provider's strict mode keeps; everything else is moved into the description."""

    label: str
    all_required: bool
    keep: Mapping[str, Callable[[Any], bool]]
    string_formats: frozenset[str]


# Structural keys handled by the walker itself; never described or dropped by the profile.
_STRUCTURAL = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "anyOf",
        "$ref",
        "$defs",
        "definitions",
        "enum",
        "const",
        "description",
        "title",
        "format",
        "default",
        "oneOf",
        "allOf",
        "prefixItems",
        "discriminator",
        "nullable",
    }
)


_STRICT_PROFILES: dict[str, _StrictProfile] = {
    "openai": _StrictProfile(
        label="OpenAI strict mode",
        all_required=True,
        keep={
            k: _ALWAYS
            for k in (
                "pattern",
                "multipleOf",
                "minimum",
                "maximum",
                "exclusiveMinimum",
                "exclusiveMaximum",
                "minItems",
                "maxItems",
            )
        },
        string_formats=_OPENAI_STRING_FORMATS,
    ),
    "anthropic": _StrictProfile(
        label="Anthropic strict tool use",
        all_required=False,
        keep={"minItems": lambda v: v in (0, 1)},
        string_formats=_ANTHROPIC_STRING_FORMATS,
    ),
}


def _strict_node(node: Any, path: str, walk: _Walk, profile: _StrictProfile) -> Schema:
    if node is True or node == {} or not isinstance(node, dict):
        raise ToolSpecError(
            f"Tool '{walk.tool}': field '{_field(path)}' accepts any value (no type); {profile.label} "
            "needs a type for every field. Annotate it with a concrete type, or export with strict=False."
        )
    node = dict(node)
    node.pop("$defs", None)
    node.pop("definitions", None)
    node.pop("discriminator", None)
    notes: list[str] = []

    ref = node.get("$ref")
    if ref is not None:
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        if not siblings or ref in walk.stack:
            return {"$ref": ref}  # a bare ref (recursion included) is fine in strict mode
        # strict mode does not allow keys beside $ref: inline the target (as the OpenAI SDK does)
        target = _resolve_pointer(walk.root, ref, walk.tool, path)
        walk.stack.append(ref)
        try:
            return _strict_node({**target, **siblings}, path, walk, profile)
        finally:
            walk.stack.pop()
    if "allOf" in node:
        node = _merge_all_of(node, walk.tool, path)
        if "$ref" in node:
            return _strict_node(node, path, walk, profile)
    if "oneOf" in node:
        node["anyOf"] = list(node.get("anyOf") or []) + list(node.pop("oneOf"))
    if "prefixItems" in node:
        notes += _tuple_to_items(node)

    out: Schema = {}
    for key in ("title", "description"):
        if key in node:
            out[key] = node[key]
    if "type" in node:
        out["type"] = node["type"]
    if "enum" in node:
        out["enum"] = list(node["enum"])
    if "const" in node:
        out["const"] = node["const"]
    if "anyOf" in node:
        out["anyOf"] = [_strict_node(m, path, walk, profile) for m in node["anyOf"]]
    if not any(k in out for k in ("type", "enum", "const", "anyOf")) and "properties" not in node:
        raise ToolSpecError(
            f"Tool '{walk.tool}': field '{_field(path)}' accepts any value (no type); {profile.label} "
            "needs a type for every field. Annotate it with a concrete type, or export with strict=False."
        )

    if "format" in node:
        if node["format"] in profile.string_formats:
            out["format"] = node["format"]
        else:
            notes.append(f"format: {node['format']}")

    if _is_object(node):
        props = node.get("properties") or {}
        extra = node.get("additionalProperties")
        # ``{"type": "object"}`` (dict) is open; ``"properties": {}`` (no parameters, an empty model) is not
        if (
            ("properties" not in node and extra is not False)
            or extra not in (None, False)
            or "patternProperties" in node
        ):
            raise _open_object_error(walk, path, profile.label)
        required = [r for r in node.get("required") or [] if r in props]
        new_props: Schema = {}
        for name, sub in props.items():
            sub_path = f"{path}.{name}" if path else name
            converted = _strict_node(sub, sub_path, walk, profile)
            if profile.all_required and name not in required and not _is_nullable(converted):
                converted = _make_nullable(converted)
            new_props[name] = converted
        out.setdefault("type", "object")
        out["properties"] = new_props
        out["required"] = list(props) if profile.all_required else required
        out["additionalProperties"] = False

    if _free_array(node):
        raise ToolSpecError(
            f"Tool '{walk.tool}': field '{_field(path)}' is a list of any values; {profile.label} needs "
            "an item type (e.g. list[str]). Annotate the items, or export with strict=False."
        )
    if isinstance(node.get("items"), dict):
        out["items"] = _strict_node(node["items"], f"{path}[]", walk, profile)

    if "default" in node and node["default"] is not None:
        notes.append(f"default: {json_text(node['default'])}")
    for key, value in node.items():
        if key in _STRUCTURAL:
            continue
        check = profile.keep.get(key)
        if check is not None and check(value):
            out[key] = value
        else:
            notes.append(f"{key}: {json_text(value)}")
    _describe(out, notes)
    return out


def _make_nullable(schema: Schema) -> Schema:
    """``schema`` that also accepts ``null``; description and title stay on the outside."""
    if "anyOf" in schema:
        out = dict(schema)
        out["anyOf"] = list(schema["anyOf"]) + [{"type": "null"}]
        return out
    outer: dict[str, Any] = {k: schema[k] for k in ("title", "description") if k in schema}
    inner = {k: v for k, v in schema.items() if k not in outer}
    return {**outer, "anyOf": [inner, {"type": "null"}]}


def _strict_schema(parameters: Schema, tool: str, profile: _StrictProfile) -> Schema:
    root = copy.deepcopy(parameters)
    walk = _Walk(tool=tool, root=root)
    out = _strict_node(root, "", walk, profile)
    for defs_key in ("$defs", "definitions"):
        defs = root.get(defs_key)
        if isinstance(defs, dict):
            out[defs_key] = {name: _strict_node(sub, f"{defs_key}.{name}", walk, profile) for name, sub in defs.items()}
    return out


def openai_strict_schema(parameters: Schema, tool_name: str = "tool") -> Schema:
    """``parameters`` rewritten for OpenAI strict mode (see the module docstring).

    Raises ``ToolSpecError`` naming ``tool_name`` and the field for what strict mode cannot express.
    """
    return _strict_schema(parameters, tool_name, _STRICT_PROFILES["openai"])
