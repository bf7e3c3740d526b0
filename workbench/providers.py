"""Provider formats: tool specs out, tool calls in, tool results out (DESIGN.md §6).

Every direction is table-driven: ``_EXPORTERS``, ``_CHOICE_CONVERTERS``, ``_PARSERS`` and
``_FORMATTERS`` map a provider name to one small function. Provider names:

* ``openai`` — Chat Completions ``{"type": "function", "function": {...}}``;
* ``openai-responses`` — Responses API ``{"type": "function", "name", ..., "strict"}``;
* ``anthropic`` — Messages API ``{"name", "description", "input_schema"}``;
* ``bedrock`` — Converse ``{"toolSpec": {"name", "description", "inputSchema": {"json": ...}}}``;
* ``gemini`` — a ``FunctionDeclaration`` whose schema is reduced to the subset Gemini accepts;
* ``mcp`` — an MCP ``Tool`` ``{"name", "description", "inputSchema", "outputSchema"}``.

Schema rewrites (never applied to the spec itself, always to a copy):

* **OpenAI strict mode** (``strict=True``): every object gets ``additionalProperties: false``
  and lists every property in ``required``; properties that were optional become nullable
  (``anyOf: [..., {"type": "null"}]``); ``default`` is removed; ``oneOf`` becomes ``anyOf``;
  keywords strict mode rejects are moved into the field's description as hints
  (``(minLength: 3, default: 10)``). Open objects (``dict[str, Any]``, ``additionalProperties``
  true or a schema) and values of any type (``Any``, a bare ``list``) cannot be expressed →
  ``ToolSpecError`` naming the tool and the field. A model answering in strict mode sends ``null`` for "not given";
  :func:`normalize_arguments` (or ``parse_tool_calls(..., tools=..., strict=True)``) drops
  those nulls again for parameters that were optional and not nullable.
* **Anthropic strict tool use** (``strict=True`` for ``anthropic``): objects closed with
  ``additionalProperties: false``, optional properties stay optional, unsupported keywords
  move into the description (as Anthropic's own SDK does).
* **Gemini**: ``$ref`` inlined (a recursive schema → ``ToolSpecError``), ``anyOf`` with null →
  ``nullable: true``, type lists with null → ``nullable``, ``const`` → one-value ``enum``,
  ``oneOf`` → ``anyOf``, only string enums kept (others are described), only the ``format``
  values Gemini accepts kept (others, and non-string enums, are described), and every key
  outside an explicit allow-list (:data:`GEMINI_SCHEMA_KEYS`) dropped. A free-form object (no
  properties — Gemini rejects an ``OBJECT`` without properties) or a list without an item type
  is declared as a string holding JSON; :func:`normalize_arguments` parses it back (and the
  tools' ``check_inputs`` accepts JSON text for top-level list/dict parameters anyway).
* **MCP**: ``outputSchema`` must have ``type: "object"`` at its root (through protocol
  2025-11-25), so a non-object return schema is wrapped as
  ``{"type": "object", "properties": {"result": <returns>}, "required": ["result"]}`` — what the
  MCP SDKs do for structured output — and the ``structuredContent`` produced by
  ``format_tool_results("mcp", ..., tools=...)`` is wrapped the same way.

This module imports no provider SDK: it works on plain dicts, and on SDK response objects
through their ``model_dump()``.
"""

from __future__ import annotations

import base64
import copy
import json
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional

from workbench._content import json_text
from workbench._errors import ToolSpecError
from workbench._validation import json_type_name
from workbench.spec import ToolSpec
from workbench.types import ToolResult, ToolUse, new_tool_use_id

__all__ = [
    "PROVIDERS",
    "to_provider_format",
    "tool_choice_to_provider",
    "parse_tool_calls",
    "format_tool_results",
    "normalize_arguments",
    "openai_strict_schema",
    "gemini_schema",
    "mcp_output_schema",
    "GEMINI_SCHEMA_KEYS",
]

Schema = dict[str, Any]


# =====================================================================================================
# helpers shared by every direction
# =====================================================================================================
def _provider_key(provider: str, table: Mapping[str, Any], what: str) -> str:
    key = str(provider).strip().lower().replace("_", "-")
    if key not in table:
        raise ValueError(f"Unknown provider {provider!r} for {what}: expected one of {', '.join(table)}")
    return key


def _as_spec(obj: Any) -> ToolSpec:
    """A ``ToolSpec`` from a spec, a tool (anything with ``.spec``) or a dict."""
    if isinstance(obj, ToolSpec):
        return obj
    if isinstance(obj, dict):
        return ToolSpec.coerce(obj)
    inner = getattr(obj, "spec", None)
    if isinstance(inner, (ToolSpec, dict)):
        return ToolSpec.coerce(inner)
    raise ToolSpecError(f"Expected a ToolSpec, a tool or a spec dict, got {type(obj).__name__}: {obj!r}")


def _plain(obj: Any) -> Any:
    """A provider SDK object (pydantic ``model_dump``/``to_dict``) as plain dicts and lists."""
    if isinstance(obj, (dict, list, tuple, str, int, float, bool)) or obj is None:
        return obj
    dump = getattr(obj, "model_dump", None)
    if callable(dump):
        try:
            return dump(by_alias=True, exclude_none=True)
        except TypeError:
            return dump()
    to_dict = getattr(obj, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    return obj


def _get(mapping: Any, *keys: str, default: Any = None) -> Any:
    """``mapping[key]`` for the first of ``keys`` present (camelCase / snake_case variants)."""
    if not isinstance(mapping, dict):
        return default
    for key in keys:
        if key in mapping and mapping[key] is not None:
            return mapping[key]
    return default


def _describe(schema: Schema, notes: list[str]) -> None:
    """Append ``notes`` to the schema's description: ``desc (note, note)``."""
    if not notes:
        return
    text = ", ".join(notes)
    desc = schema.get("description")
    schema["description"] = f"{desc} ({text})" if desc else f"({text})"


def _field(path: str) -> str:
    return path or "(parameters)"


# =====================================================================================================
# JSON Schema navigation
# =====================================================================================================
def _resolve_pointer(root: Schema, ref: str, tool: str, path: str) -> Schema:
    if not isinstance(ref, str) or not ref.startswith("#"):
        raise ToolSpecError(f"Tool '{tool}': field '{_field(path)}' has a $ref {ref!r} that is not local (only '#/...' refs are supported)")
    node: Any = root
    for part in [p for p in ref[1:].split("/") if p]:
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            raise ToolSpecError(f"Tool '{tool}': field '{_field(path)}' refers to {ref!r}, which is not defined in the schema")
        node = node[part]
    if not isinstance(node, dict):
        raise ToolSpecError(f"Tool '{tool}': {ref!r} (used by field '{_field(path)}') does not resolve to a schema object")
    return node


def _merge_all_of(node: Schema, tool: str, path: str) -> Schema:
    """Fold ``allOf`` into the node: one member is merged; several object members are combined."""
    parts = node.pop("allOf")
    merged: Schema = {}
    for part in parts:
        if not isinstance(part, dict):
            raise ToolSpecError(f"Tool '{tool}': field '{_field(path)}' has a non-object allOf member {part!r}")
        for key, value in part.items():
            if key == "properties" and isinstance(merged.get("properties"), dict):
                merged["properties"] = {**merged["properties"], **value}
            elif key == "required" and isinstance(merged.get("required"), list):
                merged["required"] = merged["required"] + [r for r in value if r not in merged["required"]]
            elif key in merged and merged[key] != value and len(parts) > 1:
                raise ToolSpecError(f"Tool '{tool}': field '{_field(path)}' uses allOf with conflicting '{key}' values; "
                                    "this provider format cannot express it")
            else:
                merged[key] = value
    return {**merged, **node}


def _is_nullable(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    t = schema.get("type")
    if t == "null" or (isinstance(t, list) and "null" in t):
        return True
    if schema.get("nullable") is True:
        return True
    if "enum" in schema and None in (schema.get("enum") or []):
        return True
    if "const" in schema and schema["const"] is None:
        return True
    return any(_is_nullable(m) for m in schema.get("anyOf") or schema.get("oneOf") or [])


def _is_object(schema: Schema) -> bool:
    t = schema.get("type")
    return t == "object" or (isinstance(t, list) and "object" in t) or (t is None and "properties" in schema)


def _tuple_to_items(node: Schema) -> list[str]:
    """``prefixItems`` (a tuple) → ``items`` (one schema, or an ``anyOf`` of the distinct ones).

    Returns the description notes that keep the positional types visible to the model.
    """
    notes: list[str] = []
    prefix = node.pop("prefixItems")
    extra = node.pop("items", None)
    members: list[Any] = []
    for m in list(prefix) + ([extra] if isinstance(extra, dict) else []):
        if m not in members:
            members.append(m)
    if len(members) == 1:
        node["items"] = members[0]
    elif members:
        node["items"] = {"anyOf": members}
        kinds = ", ".join(str(m.get("type", "value")) if isinstance(m, dict) else "value" for m in prefix)
        notes.append(f"items in order: {kinds}")
    if extra is False or extra is None:
        node.setdefault("minItems", len(prefix))
        node.setdefault("maxItems", len(prefix))
    return notes


# =====================================================================================================
# strict-mode rewrite (OpenAI, Anthropic)
# =====================================================================================================
_ALWAYS = lambda value: True  # noqa: E731

_OPENAI_STRING_FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"})
_ANTHROPIC_STRING_FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"})


@dataclass(frozen=True)
class _StrictProfile:
    """What one provider's strict mode keeps; everything else is moved into the description."""

    label: str
    all_required: bool
    keep: Mapping[str, Callable[[Any], bool]]
    string_formats: frozenset[str]


# Structural keys handled by the walker itself; never described or dropped by the profile.
_STRUCTURAL = frozenset({"type", "properties", "required", "additionalProperties", "items", "anyOf", "$ref", "$defs",
                         "definitions", "enum", "const", "description", "title", "format", "default", "oneOf",
                         "allOf", "prefixItems", "discriminator", "nullable"})

_STRICT_PROFILES: dict[str, _StrictProfile] = {
    "openai": _StrictProfile(
        label="OpenAI strict mode",
        all_required=True,
        keep={k: _ALWAYS for k in ("pattern", "multipleOf", "minimum", "maximum", "exclusiveMinimum",
                                   "exclusiveMaximum", "minItems", "maxItems")},
        string_formats=_OPENAI_STRING_FORMATS,
    ),
    "anthropic": _StrictProfile(
        label="Anthropic strict tool use",
        all_required=False,
        keep={"minItems": lambda v: v in (0, 1)},
        string_formats=_ANTHROPIC_STRING_FORMATS,
    ),
}


@dataclass
class _Walk:
    tool: str
    root: Schema
    stack: list[str] = field(default_factory=list)


def _open_object_error(walk: _Walk, path: str, label: str) -> ToolSpecError:
    return ToolSpecError(
        f"Tool '{walk.tool}': field '{_field(path)}' is an open object (dict[str, ...] or additionalProperties); "
        f"{label} requires every object to declare its properties with additionalProperties: false. "
        "Give it a pydantic model / TypedDict type, or export with strict=False."
    )


def _strict_node(node: Any, path: str, walk: _Walk, profile: _StrictProfile) -> Schema:
    if node is True or node == {} or not isinstance(node, dict):
        raise ToolSpecError(f"Tool '{walk.tool}': field '{_field(path)}' accepts any value (no type); {profile.label} "
                            "needs a type for every field. Annotate it with a concrete type, or export with strict=False.")
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
        raise ToolSpecError(f"Tool '{walk.tool}': field '{_field(path)}' accepts any value (no type); {profile.label} "
                            "needs a type for every field. Annotate it with a concrete type, or export with strict=False.")

    if "format" in node:
        if node["format"] in profile.string_formats:
            out["format"] = node["format"]
        else:
            notes.append(f"format: {node['format']}")

    if _is_object(node):
        props = node.get("properties") or {}
        extra = node.get("additionalProperties")
        # ``{"type": "object"}`` (dict) is open; ``"properties": {}`` (no parameters, an empty model) is not
        if ("properties" not in node and extra is not False) or extra not in (None, False) or "patternProperties" in node:
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
        raise ToolSpecError(f"Tool '{walk.tool}': field '{_field(path)}' is a list of any values; {profile.label} needs "
                            "an item type (e.g. list[str]). Annotate the items, or export with strict=False.")
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
    outer = {k: schema[k] for k in ("title", "description") if k in schema}
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


# =====================================================================================================
# Gemini rewrite
# =====================================================================================================
#: the keys a Gemini ``Schema`` may carry (JSON names); everything else is dropped
GEMINI_SCHEMA_KEYS = frozenset({
    "type", "format", "description", "nullable", "enum", "properties", "required", "items", "minItems",
    "maxItems", "minimum", "maximum", "minLength", "maxLength", "pattern", "anyOf", "propertyOrdering",
})
_GEMINI_FORMATS = {"string": frozenset({"date-time", "enum"}), "integer": frozenset({"int32", "int64"}),
                   "number": frozenset({"float", "double"})}
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
        cleaned = []
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
                kinds = {json_type_name(v) for v in values}
                if len(kinds) == 1:
                    out["type"] = kinds.pop()

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
            return _finish_gemini({"type": "string", "description": node.get("description", "")}, [_JSON_OBJECT_NOTE] + notes, nullable)
        out["type"] = "object"
        out["properties"] = {name: _gemini_node(sub, f"{path}.{name}" if path else name, walk) for name, sub in props.items()}
        required = [r for r in node.get("required") or [] if r in props]
        if required:
            out["required"] = required

    if _free_array(node):
        # Gemini needs an item type: ask for the list as JSON text instead
        return _finish_gemini({"type": "string", "description": node.get("description", "")}, [_JSON_ARRAY_NOTE] + notes, nullable)
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
    root = copy.deepcopy(parameters)
    return _gemini_node(root, "", _Walk(tool=tool_name, root=root))


# =====================================================================================================
# MCP output schema
# =====================================================================================================
def mcp_output_schema(returns: Schema) -> Optional[Schema]:
    """``returns`` as an MCP ``outputSchema``: ``None`` when unspecified, wrapped under ``result``
    when its root is not ``type: "object"`` (``$defs`` move to the wrapper so refs still resolve)."""
    if not returns:
        return None
    returns = copy.deepcopy(returns)
    if returns.get("type") == "object":
        return returns
    defs = {k: returns.pop(k) for k in ("$defs", "definitions") if k in returns}
    return {"type": "object", "properties": {"result": returns}, "required": ["result"], **defs}


def _mcp_structured(value: Any, returns: Optional[Schema]) -> Any:
    """``structuredContent`` for a result value, wrapped exactly when ``mcp_output_schema`` wraps."""
    if returns:
        return value if returns.get("type") == "object" else {"result": value}
    return value if isinstance(value, dict) else {"result": value}


# =====================================================================================================
# exporters: spec → provider tool definition
# =====================================================================================================
def _parameters(spec: ToolSpec, provider: str, strict: bool) -> Schema:
    if strict:
        return _strict_schema(spec.parameters, spec.name, _STRICT_PROFILES[provider])
    return copy.deepcopy(spec.parameters)


def _export_openai(spec: ToolSpec, strict: bool) -> dict[str, Any]:
    function: dict[str, Any] = {"name": spec.name, "description": spec.description,
                                "parameters": _parameters(spec, "openai", strict)}
    if strict:
        function["strict"] = True
    return {"type": "function", "function": function}


def _export_openai_responses(spec: ToolSpec, strict: bool) -> dict[str, Any]:
    return {"type": "function", "name": spec.name, "description": spec.description,
            "parameters": _parameters(spec, "openai", strict), "strict": bool(strict)}


def _export_anthropic(spec: ToolSpec, strict: bool) -> dict[str, Any]:
    out = {"name": spec.name, "description": spec.description, "input_schema": _parameters(spec, "anthropic", strict)}
    if strict:
        out["strict"] = True
    return out


def _reject_strict(provider: str, strict: bool) -> None:
    if strict:
        raise ValueError(f"strict=True is not supported for provider '{provider}' "
                         f"(supported: {', '.join(p for p in PROVIDERS if p in _STRICT_CAPABLE)})")


def _export_bedrock(spec: ToolSpec, strict: bool) -> dict[str, Any]:
    _reject_strict("bedrock", strict)
    return {"toolSpec": {"name": spec.name, "description": spec.description,
                         "inputSchema": {"json": copy.deepcopy(spec.parameters)}}}


def _export_gemini(spec: ToolSpec, strict: bool) -> dict[str, Any]:
    _reject_strict("gemini", strict)
    out: dict[str, Any] = {"name": spec.name, "description": spec.description}
    if spec.parameters.get("properties"):
        out["parameters"] = gemini_schema(spec.parameters, spec.name)
    return out


def _export_mcp(spec: ToolSpec, strict: bool) -> dict[str, Any]:
    _reject_strict("mcp", strict)
    out: dict[str, Any] = {"name": spec.name, "description": spec.description,
                           "inputSchema": copy.deepcopy(spec.parameters)}
    output = mcp_output_schema(spec.returns)
    if output is not None:
        out["outputSchema"] = output
    return out


_EXPORTERS: dict[str, Callable[[ToolSpec, bool], dict[str, Any]]] = {
    "openai": _export_openai,
    "openai-responses": _export_openai_responses,
    "anthropic": _export_anthropic,
    "bedrock": _export_bedrock,
    "gemini": _export_gemini,
    "mcp": _export_mcp,
}
_STRICT_CAPABLE = frozenset({"openai", "openai-responses", "anthropic"})

#: the provider names ``to_provider_format`` knows
PROVIDERS: tuple[str, ...] = tuple(_EXPORTERS)


def to_provider_format(spec: Any, provider: str, *, strict: bool = False) -> dict[str, Any]:
    """A tool's definition in ``provider``'s format.

    ``spec`` is a ``ToolSpec``, a tool (anything with a ``.spec``) or a spec dict. ``provider`` is
    one of :data:`PROVIDERS`. ``strict=True`` (openai, openai-responses, anthropic) emits the
    provider's strict variant and raises ``ToolSpecError`` for schemas it cannot express. The
    spec is never modified: the result is a fresh copy.
    """
    key = _provider_key(provider, _EXPORTERS, "to_provider_format")
    return _EXPORTERS[key](_as_spec(spec), bool(strict))


# =====================================================================================================
# ToolChoice
# =====================================================================================================
def _choice_parts(choice: Any) -> tuple[str, Optional[str]]:
    """``("auto"|"any"|"tool", name)`` from a Spark ToolChoice (or a bare ``"auto"``/``"any"``)."""
    if isinstance(choice, str) and choice in ("auto", "any"):
        return choice, None
    if isinstance(choice, dict) and len(choice) == 1:
        (kind, body), = choice.items()
        if kind in ("auto", "any"):
            return kind, None
        if kind == "tool" and isinstance(body, dict) and isinstance(body.get("name"), str) and body["name"]:
            return kind, body["name"]
    raise ValueError(f"Invalid ToolChoice {choice!r}: expected {{'auto': {{}}}}, {{'any': {{}}}} or {{'tool': {{'name': ...}}}}")


_CHOICE_CONVERTERS: dict[str, Callable[[str, Optional[str]], Any]] = {
    "openai": lambda kind, name: {"auto": "auto", "any": "required"}.get(kind)
    or {"type": "function", "function": {"name": name}},
    "openai-responses": lambda kind, name: {"auto": "auto", "any": "required"}.get(kind)
    or {"type": "function", "name": name},
    "anthropic": lambda kind, name: {"type": kind} if name is None else {"type": "tool", "name": name},
    "bedrock": lambda kind, name: {kind: {}} if name is None else {"tool": {"name": name}},
    "gemini": lambda kind, name: {"function_calling_config": {"mode": "AUTO"} if kind == "auto" else
                                  {"mode": "ANY"} if name is None else
                                  {"mode": "ANY", "allowed_function_names": [name]}},
}


def tool_choice_to_provider(choice: Any, provider: str) -> Any:
    """A Spark ``ToolChoice`` (``{"auto": {}}``, ``{"any": {}}``, ``{"tool": {"name": ...}}``) in
    ``provider``'s form: OpenAI ``"auto"``/``"required"``/named function, Anthropic
    ``{"type": ...}``, Bedrock (unchanged shape), Gemini ``function_calling_config``."""
    key = _provider_key(provider, _CHOICE_CONVERTERS, "tool_choice_to_provider")
    kind, name = _choice_parts(choice)
    return _CHOICE_CONVERTERS[key](kind, name)


# =====================================================================================================
# parse_tool_calls: provider response → ToolUse list
# =====================================================================================================
def _arguments(raw: Any) -> Any:
    """A call's arguments as a dict — or, when they are not a JSON object, as received: executors
    answer such a call with an error result under its id (a ``ToolInputError`` naming the tool and
    saying the arguments are not valid JSON / not an object), so its valid siblings still run."""
    if raw is None or raw == "":
        return {}
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except ValueError:
            return raw
        return value if isinstance(value, dict) else raw
    return raw


def _use(call_id: Any, name: Any, raw_args: Any) -> ToolUse:
    cid = str(call_id) if call_id not in (None, "") else new_tool_use_id()
    return {"toolUseId": cid, "name": name or "", "input": _arguments(raw_args)}


def _shape_error(provider: str, response: Any, expected: str) -> ValueError:
    text = repr(response)
    return ValueError(f"parse_tool_calls('{provider}'): cannot read {text[:200]}; expected {expected}")


def _parse_openai(response: Any) -> list[ToolUse]:
    data = _plain(response)
    if isinstance(data, dict) and "choices" in data:
        choices = data.get("choices") or []
        data = _plain(choices[0]).get("message", {}) if choices else {}
    if isinstance(data, dict) and ("tool_calls" in data or "role" in data or "content" in data):
        data = data.get("tool_calls") or []
    if isinstance(data, dict) and "function" in data:
        data = [data]
    if not isinstance(data, list):
        raise _shape_error("openai", response, "a ChatCompletion, a message or a list of tool_calls")
    uses = []
    for call in map(_plain, data):
        if call.get("type", "function") != "function":
            continue  # custom / built-in tool calls are not function tools
        function = call.get("function") or {}
        uses.append(_use(call.get("id"), function.get("name"), function.get("arguments")))
    return uses


def _parse_openai_responses(response: Any) -> list[ToolUse]:
    data = _plain(response)
    if isinstance(data, dict):
        data = data.get("output") if "output" in data else [data]
    if not isinstance(data, list):
        raise _shape_error("openai-responses", response, "a Response, or its output items")
    return [_use(item.get("call_id") or item.get("id"), item.get("name"), item.get("arguments"))
            for item in map(_plain, data) if isinstance(item, dict) and item.get("type") == "function_call"]


def _parse_anthropic(response: Any) -> list[ToolUse]:
    data = _plain(response)
    if isinstance(data, dict):
        data = data.get("content") if "content" in data else [data]
    if not isinstance(data, list):
        raise _shape_error("anthropic", response, "a Message, or its content blocks")
    return [_use(block.get("id"), block.get("name"), block.get("input"))
            for block in map(_plain, data) if isinstance(block, dict) and block.get("type") == "tool_use"]


def _parse_bedrock(response: Any) -> list[ToolUse]:
    data = _plain(response)
    if isinstance(data, dict) and "output" in data:
        data = (data.get("output") or {}).get("message") or {}
    if isinstance(data, dict):
        data = data.get("content") if "content" in data else [data]
    if not isinstance(data, list):
        raise _shape_error("bedrock", response, "a Converse response, a message or its content blocks")
    uses = []
    for block in data:
        call = block.get("toolUse") if isinstance(block, dict) else None
        if isinstance(call, dict):
            uses.append(_use(call.get("toolUseId"), call.get("name"), call.get("input")))
    return uses


def _parse_gemini(response: Any) -> list[ToolUse]:
    data = _plain(response)
    if isinstance(data, dict) and "candidates" in data:
        candidates = data.get("candidates") or []
        data = (candidates[0] or {}).get("content") or {} if candidates else {}
    if isinstance(data, dict):
        data = data.get("parts") if "parts" in data else [data]
    if not isinstance(data, list):
        raise _shape_error("gemini", response, "a GenerateContentResponse, a Content or its parts")
    uses = []
    for part in map(_plain, data):
        call = _get(part, "functionCall", "function_call")
        if isinstance(call, dict):
            uses.append(_use(call.get("id"), call.get("name"), call.get("args") or {}))
    return uses


def _parse_mcp(response: Any) -> list[ToolUse]:
    data = _plain(response)
    items = data if isinstance(data, list) else [data]
    uses = []
    for item in map(_plain, items):
        if not isinstance(item, dict):
            raise _shape_error("mcp", response, "a tools/call request or its params")
        params = item.get("params") if "params" in item else item
        if "method" in item and item["method"] != "tools/call":
            continue
        uses.append(_use(item.get("id"), params.get("name"), params.get("arguments") or {}))
    return uses


_PARSERS: dict[str, Callable[[Any], list[ToolUse]]] = {
    "openai": _parse_openai,
    "openai-responses": _parse_openai_responses,
    "anthropic": _parse_anthropic,
    "bedrock": _parse_bedrock,
    "gemini": _parse_gemini,
    "mcp": _parse_mcp,
}


def parse_tool_calls(provider: str, response: Any, *, tools: Any = None, strict: bool = False) -> list[ToolUse]:
    """The tool calls in a provider response, as ``ToolUse`` dicts (in order).

    Accepted inputs (dicts or SDK objects): openai — a ChatCompletion, a message or its
    ``tool_calls`` (JSON ``arguments`` are parsed); openai-responses — a Response or its ``output`` items
    (``function_call``); anthropic — a Message or its content (``tool_use`` blocks); bedrock — a
    Converse response, its message or content (``toolUse``); gemini — a GenerateContentResponse,
    a Content or its parts (``functionCall``; ids generated when absent); mcp — ``tools/call``
    requests or their params.

    A call whose ``arguments`` are not valid JSON, or not a JSON object, is kept with its
    ``input`` as received (the string): an executor answers it with an error result under the
    same id (``ToolInputError`` naming the tool and saying the arguments are not valid JSON), so
    the model gets an answer for every call and the valid siblings still run.

    With ``tools`` (specs, tools or a registry), each call's input is passed through
    :func:`normalize_arguments` for its tool, undoing the rewrites of that provider's export
    (``strict`` as used for the export).
    """
    key = _provider_key(provider, _PARSERS, "parse_tool_calls")
    uses = _PARSERS[key](response)
    if tools is not None:
        specs = _spec_index(tools)
        for use in uses:
            spec = specs.get(use.get("name", ""))
            if spec is not None and isinstance(use["input"], dict):
                use["input"] = normalize_arguments(spec, use["input"], key, strict=strict)
    return uses


def _spec_index(tools: Any) -> dict[str, ToolSpec]:
    if isinstance(tools, Mapping):
        tools = tools.values()
    elif isinstance(tools, (ToolSpec, dict)) or hasattr(tools, "spec"):
        tools = [tools]
    specs = [_as_spec(t) for t in tools]
    return {s.name: s for s in specs}


# =====================================================================================================
# normalize_arguments: undo the export rewrites on a call's input
# =====================================================================================================
def normalize_arguments(spec: Any, arguments: dict[str, Any], provider: str, *, strict: bool = False) -> dict[str, Any]:
    """Undo what ``to_provider_format(spec, provider, strict=strict)`` changed about the input shape.

    * openai / openai-responses with ``strict=True``: a ``null`` sent for a property that was
      optional and not nullable in the original schema is removed (so its default applies);
    * gemini: a free-form object / untyped list declared as JSON text is parsed back.

    Other values pass unchanged; the input is not modified (a new dict is returned).
    """
    spec = _as_spec(spec)
    key = _provider_key(provider, _EXPORTERS, "normalize_arguments")
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
                    decoded = json.loads(value)
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
            decoded = json.loads(value)
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


# =====================================================================================================
# format_tool_results: ToolResult list → provider tool-result messages
# =====================================================================================================
_MEDIA_TYPES = {"png": "image/png", "jpeg": "image/jpeg", "jpg": "image/jpeg", "gif": "image/gif", "webp": "image/webp"}


def _as_result(obj: Any) -> ToolResult:
    if isinstance(obj, ToolResult):
        result = obj
    elif isinstance(obj, dict):
        result = ToolResult.model_validate(obj)
    else:
        raise TypeError(f"Expected a ToolResult (or its dict form), got {type(obj).__name__}: {obj!r}")
    if result.status == "in_progress":
        raise ValueError(f"Tool result '{result.tool_use_id}' is still in progress: only final results "
                         "(status 'success' or 'error') can be sent to a provider")
    return result


def _error_text(result: ToolResult) -> str:
    text = result.text
    message = result.metadata.get("error")
    if message and str(message) not in text:
        return f"Error: {message}" + (f"\n{text}" if text else "")
    return text or "Error: the tool call failed"


def _redundant_json(block_json: Any, texts: list[str]) -> bool:
    """True when a text block already is this json block's serialisation (structured results carry both)."""
    for text in texts:
        try:
            if json.loads(text) == block_json:
                return True
        except ValueError:
            continue
    return False


def _image_bytes(block: dict[str, Any]) -> tuple[str, str]:
    image = block.get("image") or {}
    fmt = str(image.get("format") or "png").lower()
    data = (image.get("source") or {}).get("bytes") or ""
    if isinstance(data, (bytes, bytearray)):
        data = base64.b64encode(bytes(data)).decode("ascii")
    return fmt, data


def _image_note(block: dict[str, Any]) -> str:
    fmt, data = _image_bytes(block)
    size = len(base64.b64decode(data)) if data else 0
    return f"[image: {fmt}, {size} bytes]"


def _text_parts(result: ToolResult) -> list[str]:
    """The result's content as text pieces: text blocks, un-duplicated json blocks, image notes."""
    if result.status == "error":
        return [_error_text(result)]
    texts = [b["text"] for b in result.content if "text" in b]
    parts: list[str] = []
    for block in result.content:
        if "text" in block:
            parts.append(str(block["text"]))
        elif "json" in block:
            if not _redundant_json(block["json"], texts):
                parts.append(json_text(block["json"]))
        elif "image" in block:
            parts.append(_image_note(block))
    return parts


def _result_text(result: ToolResult) -> str:
    return "\n".join(_text_parts(result))


def _format_openai(results: list[ToolResult]) -> list[dict[str, Any]]:
    return [{"role": "tool", "tool_call_id": r.tool_use_id, "content": _result_text(r)} for r in results]


def _responses_output(result: ToolResult) -> Any:
    """``function_call_output.output``: the text, or — when the result holds images — a list of
    ``input_text`` / ``input_image`` items (images as base64 data URLs), which the Responses API accepts."""
    if result.status == "error" or not any("image" in block for block in result.content):
        return _result_text(result)
    items: list[dict[str, Any]] = []
    texts = [b["text"] for b in result.content if "text" in b]
    for block in result.content:
        if "text" in block:
            items.append({"type": "input_text", "text": str(block["text"])})
        elif "json" in block:
            if not _redundant_json(block["json"], texts):
                items.append({"type": "input_text", "text": json_text(block["json"])})
        elif "image" in block:
            fmt, data = _image_bytes(block)
            media = _MEDIA_TYPES.get(fmt, f"image/{fmt}")
            items.append({"type": "input_image", "image_url": f"data:{media};base64,{data}", "detail": "auto"})
    return items


def _format_openai_responses(results: list[ToolResult]) -> list[dict[str, Any]]:
    return [{"type": "function_call_output", "call_id": r.tool_use_id, "output": _responses_output(r)}
            for r in results]


def _anthropic_blocks(result: ToolResult) -> list[dict[str, Any]]:
    if result.status == "error":
        return [{"type": "text", "text": _error_text(result)}]
    texts = [b["text"] for b in result.content if "text" in b]
    blocks: list[dict[str, Any]] = []
    for block in result.content:
        if "text" in block:
            blocks.append({"type": "text", "text": str(block["text"])})
        elif "json" in block:
            if not _redundant_json(block["json"], texts):
                blocks.append({"type": "text", "text": json_text(block["json"])})
        elif "image" in block:
            fmt, data = _image_bytes(block)
            media = _MEDIA_TYPES.get(fmt)
            if media is None:
                blocks.append({"type": "text", "text": _image_note(block)})
            else:
                blocks.append({"type": "image", "source": {"type": "base64", "media_type": media, "data": data}})
    return blocks


def _format_anthropic(results: list[ToolResult]) -> list[dict[str, Any]]:
    content = [{"type": "tool_result", "tool_use_id": r.tool_use_id, "content": _anthropic_blocks(r),
                "is_error": r.status == "error"} for r in results]
    return [{"role": "user", "content": content}]


def _bedrock_blocks(result: ToolResult) -> list[dict[str, Any]]:
    if result.status == "error":
        return [{"text": _error_text(result)}]
    blocks: list[dict[str, Any]] = []
    for block in result.content:
        if "text" in block:
            blocks.append({"text": str(block["text"])})
        elif "json" in block:
            blocks.append({"json": block["json"]})
        elif "image" in block:
            fmt, data = _image_bytes(block)
            fmt = "jpeg" if fmt == "jpg" else fmt
            blocks.append({"image": {"format": fmt, "source": {"bytes": base64.b64decode(data)}}})
    return blocks


def _format_bedrock(results: list[ToolResult]) -> list[dict[str, Any]]:
    content = [{"toolResult": {"toolUseId": r.tool_use_id, "content": _bedrock_blocks(r),
                               "status": "error" if r.status == "error" else "success"}} for r in results]
    return [{"role": "user", "content": content}]


def _gemini_response(result: ToolResult) -> dict[str, Any]:
    name = result.metadata.get("tool_name")
    if not name:
        raise ValueError(f"Tool result '{result.tool_use_id}' has no metadata['tool_name']: Gemini function "
                         "responses are matched to calls by name")
    if result.status == "error":
        body: dict[str, Any] = {"error": _error_text(result)}
    else:
        value = result.json
        body = {"output": value if value is not None else _result_text(result)}
    response: dict[str, Any] = {"name": name, "response": body}
    if not result.tool_use_id.startswith("tooluse_"):  # ids made up by parse_tool_calls never reach Gemini
        response["id"] = result.tool_use_id
    return {"functionResponse": response}


def _format_gemini(results: list[ToolResult]) -> list[dict[str, Any]]:
    return [{"role": "user", "parts": [_gemini_response(r) for r in results]}]


def _format_mcp(results: list[ToolResult], specs: Mapping[str, ToolSpec]) -> list[dict[str, Any]]:
    out = []
    for r in results:
        content: list[dict[str, Any]] = []
        if r.status == "error":
            content.append({"type": "text", "text": _error_text(r)})
        else:
            for block in r.content:
                if "image" in block:
                    fmt, data = _image_bytes(block)
                    content.append({"type": "image", "data": data, "mimeType": _MEDIA_TYPES.get(fmt, f"image/{fmt}")})
            text = "\n".join(p for p in _text_parts(r) if not p.startswith("[image: "))
            if text or not content:
                content.insert(0, {"type": "text", "text": text})
        item: dict[str, Any] = {"content": content, "isError": r.status == "error"}
        if r.status != "error" and r.json is not None:
            spec = specs.get(r.metadata.get("tool_name") or "")
            item["structuredContent"] = _mcp_structured(r.json, spec.returns if spec is not None else None)
        out.append(item)
    return out


_FORMATTERS: dict[str, Callable[[list[ToolResult], Mapping[str, ToolSpec]], list[dict[str, Any]]]] = {
    "openai": lambda results, specs: _format_openai(results),
    "openai-responses": lambda results, specs: _format_openai_responses(results),
    "anthropic": lambda results, specs: _format_anthropic(results),
    "bedrock": lambda results, specs: _format_bedrock(results),
    "gemini": lambda results, specs: _format_gemini(results),
    "mcp": _format_mcp,
}


def format_tool_results(provider: str, results: Any, *, tools: Any = None) -> list[dict[str, Any]]:
    """Tool results as the messages/items ``provider`` expects next in the conversation.

    openai — one ``{"role": "tool", ...}`` message per result; openai-responses — one
    ``function_call_output`` item per result; anthropic, bedrock, gemini — a single user
    message holding every result; mcp — one ``CallToolResult`` per result (a non-object
    ``json`` value goes into ``structuredContent`` as ``{"result": value}``). Error results
    carry their error message as the content. Text-only formats render json blocks as JSON
    text (once: a structured result's text block already is its JSON) and describe images.
    ``tools`` (specs, tools or a registry) lets mcp wrap ``structuredContent`` exactly as the
    tool's ``outputSchema`` was wrapped.
    """
    key = _provider_key(provider, _FORMATTERS, "format_tool_results")
    if isinstance(results, (ToolResult, dict)):
        results = [results]
    specs = _spec_index(tools) if tools is not None else {}
    return _FORMATTERS[key]([_as_result(r) for r in results], specs)
