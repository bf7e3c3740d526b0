"""Helpers every provider module shares: spec/response coercion and JSON Schema navigation."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Collection, Mapping, Optional

from workbench._errors import ToolSpecError
from workbench._refs import RefError, lookup_schema
from workbench.spec import ToolSpec
from workbench.types import ToolResult, ToolUse

Schema = dict[str, Any]


#: every provider name, in the order of the provider table (``workbench.formats.PROVIDERS``)
PROVIDER_NAMES = ("openai", "openai-responses", "anthropic", "bedrock", "gemini", "mcp")


def _provider_key(provider: str, table: Collection[str], what: str) -> str:
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


def _resolve_pointer(root: Schema, ref: str, tool: str, path: str) -> Schema:
    """The object schema ``ref`` points at (``workbench._refs``), or a ``ToolSpecError`` naming the field."""
    try:
        node = lookup_schema(root, ref)
    except RefError as exc:
        raise ToolSpecError(f"Tool '{tool}': field '{_field(path)}': {exc}") from None
    if not isinstance(node, dict):
        raise ToolSpecError(
            f"Tool '{tool}': {ref!r} (used by field '{_field(path)}') does not resolve to a schema object"
        )
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
                raise ToolSpecError(
                    f"Tool '{tool}': field '{_field(path)}' uses allOf with conflicting '{key}' values; "
                    "this provider format cannot express it"
                )
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


_ALWAYS = lambda value: True  # noqa: E731


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


@dataclass(frozen=True)
class Provider:
    """One provider's four directions (the rows of ``workbench.formats``' table)."""

    export: Callable[[ToolSpec, bool], dict[str, Any]]  #: spec, strict → tool definition
    choice: Optional[Callable[[str, Optional[str]], Any]]  #: ("auto"|"any"|"tool", name) → tool_choice
    parse: Callable[[Any], list[ToolUse]]  #: response → ToolUse list
    format: Callable[[list[ToolResult], Mapping[str, ToolSpec]], list[dict[str, Any]]]  #: results → messages
    strict: bool = False  #: whether export(strict=True) is supported
