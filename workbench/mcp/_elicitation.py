"""Schema defaults of form-mode elicitation requests (SEP-1034): what an answer holds for the fields
the user left alone — the values the notebook's elicitation form shows to begin with, and what an
accepting handler's answer is completed with."""

from __future__ import annotations

from typing import Any

__all__ = ["with_defaults", "schema_defaults"]


def schema_defaults(schema: Any) -> dict[str, Any]:
    """``{field: default}`` for the properties of a requested schema that declare a default."""
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        return {}
    return {name: prop["default"] for name, prop in properties.items() if isinstance(prop, dict) and "default" in prop}


def with_defaults(content: dict[str, Any], params: Any) -> dict[str, Any]:
    """``content`` completed with the request's schema defaults for the fields it leaves out."""
    return {**schema_defaults(getattr(params, "requested_schema", None)), **content}
