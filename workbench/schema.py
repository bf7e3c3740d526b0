"""Public schema helpers (locus' ``generate_schema`` and ``pydantic_to_json_schema``)."""

from __future__ import annotations

from typing import Any, Callable

from pydantic import BaseModel

from workbench._schema import clean_schema, inspect_function

__all__ = ["generate_schema", "pydantic_to_json_schema"]


def generate_schema(fn: Callable[..., Any], description: str | None = None) -> dict[str, Any]:
    """An OpenAI-format function schema for ``fn`` (same generator as ``@tool``)."""
    info = inspect_function(fn, description=description)
    return {
        "type": "function",
        "function": {"name": info.name, "description": info.description, "parameters": info.parameters},
    }


def pydantic_to_json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A pydantic model's JSON Schema, without pydantic's ``title`` noise."""
    return clean_schema(model.model_json_schema())
