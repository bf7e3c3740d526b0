"""JSON Schema's rules where pydantic bends them, for function tools' input validation.

pydantic validates a function tool's inputs (``workbench._validation``), but in places it accepts
what the JSON Schema the model is shown does not:

* ``Literal[True]`` accepts ``1`` and ``1.0``, ``Literal[1, "a"]`` accepts ``True``, and ``Enum``
  members likewise — in JSON Schema a bool is never a number (``enum``/``const``);
* ``Decimal`` accepts any string ``decimal.Decimal`` parses (``"1_000"``, ``" 1"``, Arabic-Indic
  digits) where its schema has a ``pattern``;
* ``float`` accepts ``NaN`` and ``±Infinity``, which JSON has not.

pydantic cannot be told otherwise for nested models (a complete model class always validates
with its own prebuilt validator), so the first two are checked against the schema itself:
``SchemaRules`` runs jsonschema over the input for a tool whose schema has such a keyword (most
have none and pay nothing). For the third, the validator refuses a non-finite number anywhere
in the input except where the schema generator marked a ``float`` with ``allow_inf_nan=True``
(``workbench._schema.INF_NAN_MARK``).
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

__all__ = ["SchemaRules", "needs_schema_rules"]

_NUMBERS = (int, float)


def _bends(values: list[Any]) -> bool:
    """Whether pydantic's equality would let a bool match a number (or back) among these values."""
    return any(isinstance(v, _NUMBERS) for v in values)  # bool is an int: either kind is enough


def needs_schema_rules(schema: Any) -> bool:
    """Whether ``schema`` has an ``enum``/``const`` with bools or numbers, or a ``pattern``, anywhere."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, dict):
            continue
        if "pattern" in node and isinstance(node["pattern"], str):
            return True
        if isinstance(node.get("enum"), list) and _bends(node["enum"]):
            return True
        if "const" in node and _bends([node["const"]]):
            return True
        stack.extend(value for key, value in node.items() if key not in ("enum", "const", "default", "examples"))
    return False


class SchemaRules:
    """jsonschema over a function tool's own parameters schema, for the keywords pydantic bends.

    Everything else the schema says pydantic checks at least as strictly, with two exceptions
    turned off here: ``uniqueItems`` (a ``set`` parameter takes duplicates and drops them) and
    ``oneOf`` exclusivity (pydantic picks one member of a union; read as ``anyOf``).
    """

    def __init__(self, parameters: dict) -> None:
        self._parameters = parameters

    @cached_property
    def _validator(self) -> Any:
        import jsonschema

        base = jsonschema.Draft202012Validator
        lenient = jsonschema.validators.extend(base, validators={
            "uniqueItems": lambda validator, value, instance, schema: None,
            "oneOf": base.VALIDATORS["anyOf"],
        })
        return lenient(self._parameters)

    def errors(self, raw: dict) -> list:
        """jsonschema's errors for ``raw`` (``ValidationError`` objects)."""
        return list(self._validator.iter_errors(raw))
