"""Provider tool dictionaries in, as spec dicts: the inverse of ``to_provider_format``.

Each provider format is one row of :data:`IMPORTERS` — how to recognise its dict and how to read
the name, description, parameters (and, for MCP, the output schema) out of it. BFCL's function
documents (``"type": "dict"``, ``"float"``, ``"tuple"``, ``"any"``) are one more row, normalised
to JSON Schema by :mod:`workbench.formats._bfcl_schema`.

What an import keeps: name, description, input schema (and MCP's ``outputSchema`` as the return
schema). What it cannot get back: whatever the export dropped — a Gemini declaration's schema is
the reduced Gemini subset (its ``nullable`` becomes ``anyOf [..., null]`` again), a strict OpenAI
schema stays the strict rewrite (every property required, optional ones nullable).
"""

from __future__ import annotations

import copy
from typing import Any, Callable, Mapping, NamedTuple, Optional

from workbench.formats._bfcl_schema import BFCL_TYPES, bfcl_function_spec

__all__ = ["IMPORTERS", "Importer", "detect_format", "spec_dict_from_provider_format"]

Schema = dict[str, Any]

#: BFCL type names that JSON Schema does not have: their presence marks a BFCL document
_BFCL_ONLY = frozenset(BFCL_TYPES) - {"integer", "number", "string", "boolean", "array", "object", "null"}
#: Gemini's (google-genai's) upper-case type names
_GEMINI_TYPES = {"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"}


def _walk_types(schema: Any) -> set[str]:
    """Every ``type`` value anywhere in a schema (strings only)."""
    found: set[str] = set()
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            kind = node.get("type")
            if isinstance(kind, str):
                found.add(kind)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


def _has_key(schema: Any, key: str) -> bool:
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            if key in node:
                return True
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


def _from_gemini_schema(schema: Any) -> Any:
    """A Gemini schema as JSON Schema: upper-case types lowered, ``nullable: true`` → ``anyOf [..., null]``."""
    if isinstance(schema, list):
        return [_from_gemini_schema(s) for s in schema]
    if not isinstance(schema, Mapping):
        return schema
    out = {
        k: _from_gemini_schema(v) if k in ("properties", "items", "anyOf", "additionalProperties") else v
        for k, v in schema.items()
        if k != "nullable"
    }
    if isinstance(out.get("properties"), Mapping):
        out["properties"] = {name: _from_gemini_schema(s) for name, s in schema["properties"].items()}
    if isinstance(out.get("type"), str) and out["type"] in _GEMINI_TYPES:
        out["type"] = out["type"].lower()
    if schema.get("nullable") is True:
        description = out.pop("description", None)
        wrapped: Schema = {"anyOf": [out, {"type": "null"}]}
        if description is not None:
            wrapped["description"] = description
        return wrapped
    return out


def _spec(name: Any, description: Any, parameters: Any, returns: Any = None) -> Schema:
    spec: Schema = {
        "name": name,
        "description": description or "",
        "parameters": copy.deepcopy(parameters) if parameters is not None else {"type": "object", "properties": {}},
    }
    if returns:
        spec["returns"] = copy.deepcopy(returns)
    return spec


def _bedrock_schema(tool_spec: Mapping[str, Any]) -> Any:
    schema = tool_spec.get("inputSchema")
    return schema.get("json") if isinstance(schema, Mapping) else schema


class Importer(NamedTuple):
    """One provider format: does a dict look like it, and the spec dict it holds."""

    matches: Callable[[Mapping[str, Any]], bool]
    read: Callable[[Mapping[str, Any]], Schema]


def _is_bfcl(d: Mapping[str, Any]) -> bool:
    return "name" in d and isinstance(d.get("parameters"), Mapping) and bool(_walk_types(d["parameters"]) & _BFCL_ONLY)


def _is_gemini(d: Mapping[str, Any]) -> bool:
    params = d.get("parameters")
    return (
        "name" in d
        and isinstance(params, Mapping)
        and (bool(_walk_types(params) & _GEMINI_TYPES) or _has_key(params, "nullable"))
    )


#: provider name → its importer; checked in this order by :func:`detect_format`
IMPORTERS: dict[str, Importer] = {
    "openai": Importer(
        lambda d: d.get("type") == "function" and isinstance(d.get("function"), Mapping),
        lambda d: _spec(d["function"].get("name"), d["function"].get("description"), d["function"].get("parameters")),
    ),
    "openai-responses": Importer(
        lambda d: d.get("type") == "function" and "name" in d,
        lambda d: _spec(d["name"], d.get("description"), d.get("parameters")),
    ),
    "bedrock": Importer(
        lambda d: isinstance(d.get("toolSpec"), Mapping),
        lambda d: _spec(d["toolSpec"].get("name"), d["toolSpec"].get("description"), _bedrock_schema(d["toolSpec"])),
    ),
    "anthropic": Importer(
        lambda d: "name" in d and "input_schema" in d,
        lambda d: _spec(d["name"], d.get("description"), d["input_schema"]),
    ),
    "mcp": Importer(
        lambda d: "name" in d and "inputSchema" in d,
        lambda d: _spec(d["name"], d.get("description"), d["inputSchema"], d.get("outputSchema")),
    ),
    "bfcl": Importer(_is_bfcl, bfcl_function_spec),
    "gemini": Importer(
        lambda d: "name" in d and ("parameters" in d or set(d) <= {"name", "description"}),
        lambda d: _spec(d["name"], d.get("description"), _from_gemini_schema(d.get("parameters"))),
    ),
}


def detect_format(d: Any, *, plain: bool = True) -> Optional[str]:
    """The provider format of a tool dict, or ``None``. With ``plain=False`` a dict that is already
    a spec dict (``{"name", "description", "parameters"}`` in JSON Schema — also Gemini's shape)
    counts as no provider format: only dicts ``ToolSpec`` cannot take as they are are recognised."""
    if not isinstance(d, Mapping):
        return None
    for name, importer in IMPORTERS.items():
        if importer.matches(d):
            if name == "gemini" and not plain and not _is_gemini(d):
                return None
            return name
    return None


def spec_dict_from_provider_format(d: Mapping[str, Any], provider: Optional[str] = None) -> Schema:
    """The spec dict (``ToolSpec(**...)``) of one provider tool dict; ``provider`` (one of
    :data:`IMPORTERS`) or detected. ``ValueError`` naming the formats when none fits."""
    if not isinstance(d, Mapping):
        raise TypeError(f"a provider tool dict is a dict, not {type(d).__name__}: {d!r:.120}")
    kind = provider or detect_format(d)
    if kind is None:
        raise ValueError(
            f"{dict(d)!r:.160} is in no provider tool format workbench reads (expected one of "
            f"{', '.join(IMPORTERS)}: e.g. OpenAI's {{'type': 'function', 'function': {{...}}}}, "
            "Anthropic's {'name', 'input_schema'}, Bedrock's {'toolSpec': {...}})"
        )
    importer = IMPORTERS.get(kind)
    if importer is None:
        raise ValueError(f"provider={kind!r}: expected one of {', '.join(IMPORTERS)}")
    if not importer.matches(d) and not (kind == "gemini" and "name" in d):
        raise ValueError(f"{dict(d)!r:.160} is not a {kind} tool dict")
    spec = importer.read(d)
    if not isinstance(spec.get("name"), str) or not spec["name"]:
        raise ValueError(f"the {kind} tool dict {dict(d)!r:.120} has no name")
    if not isinstance(spec.get("parameters"), Mapping):
        raise ValueError(
            f"the {kind} tool '{spec['name']}' has parameters that are not a JSON Schema object: "
            f"{spec.get('parameters')!r:.120}"
        )
    return spec
