"""BFCL's function documents (``"type": "dict"``, ``"float"``, ``"tuple"``, ``"any"``) as JSON Schema tools.

A ``tuple`` becomes an array marked ``"x-bfcl-type": "tuple"`` (an annotation providers ignore): BFCL's
checker accepts a Python tuple for a tuple parameter, never for an array one, and the scorer does too."""

from __future__ import annotations

import copy
import re
from typing import Any, Mapping

#: the annotation a parameter BFCL types ``tuple`` keeps (its JSON Schema type is ``array``)
TUPLE_MARK = "x-bfcl-type"

#: BFCL's type names → JSON Schema (``any`` has no type: every value is allowed)
BFCL_TYPES: dict[str, dict[str, Any]] = {
    "dict": {"type": "object"},
    "float": {"type": "number"},
    "tuple": {"type": "array", TUPLE_MARK: "tuple"},
    "any": {},
    "integer": {"type": "integer"},
    "number": {"type": "number"},
    "string": {"type": "string"},
    "boolean": {"type": "boolean"},
    "array": {"type": "array"},
    "object": {"type": "object"},
    "null": {"type": "null"},
}

_UNSAFE_NAME = re.compile(r"[^a-zA-Z0-9_-]")


def safe_tool_name(name: str) -> str:
    """A provider-safe tool name, as BFCL makes one for OpenAI-style models (``math.hypot`` → ``math_hypot``)."""
    return _UNSAFE_NAME.sub("_", name)[:64]


def bfcl_schema(schema: Any) -> Any:
    """A BFCL parameter schema as JSON Schema: its types renamed (recursively: ``properties``,
    ``items``, ``additionalProperties``), everything else kept."""
    if not isinstance(schema, Mapping):
        return schema
    out = {k: v for k, v in schema.items() if k != "type"}
    kind = schema.get("type")
    if isinstance(kind, str):
        out.update(BFCL_TYPES.get(kind, {"type": kind}))
    elif kind is not None:
        out["type"] = kind
    if isinstance(schema.get("properties"), Mapping):
        out["properties"] = {name: bfcl_schema(s) for name, s in schema["properties"].items()}
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), Mapping):
            out[key] = bfcl_schema(schema[key])
    return out


def bfcl_function_spec(doc: Mapping[str, Any]) -> dict[str, Any]:
    """A spec dict (``ToolSpec(**...)``) from one BFCL function document."""
    if not isinstance(doc, Mapping) or not isinstance(doc.get("name"), str):
        raise ValueError(f"a BFCL function document has a 'name' and 'parameters': {doc!r:.120}")
    parameters = bfcl_schema(copy.deepcopy(doc.get("parameters") or {"type": "dict", "properties": {}}))
    parameters["type"] = "object"
    parameters.setdefault("properties", {})
    return {"name": safe_tool_name(doc["name"]), "description": doc.get("description", ""), "parameters": parameters}
