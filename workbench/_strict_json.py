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

__all__ = ["SchemaRules"]

_NUMBERS = (int, float)


def _triggers(schema: Any) -> frozenset[type]:
    """The kinds of input scalar that may break a rule of ``schema`` under pydantic: ``bool`` (an
    ``enum``/``const`` with a number), ``int``/``float`` (one with a bool), ``str`` (a ``pattern``)."""
    found: set[type] = set()
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, dict):
            continue
        if isinstance(node.get("pattern"), str):
            found.add(str)
        choices = list(node["enum"]) if isinstance(node.get("enum"), list) else []
        if "const" in node:
            choices.append(node["const"])
        if any(isinstance(v, _NUMBERS) and not isinstance(v, bool) for v in choices):
            found.add(bool)
        if any(isinstance(v, bool) for v in choices):
            found.update((int, float))
        stack.extend(value for key, value in node.items() if key not in ("enum", "const", "default", "examples"))
    return frozenset(found)


def _has_any(value: Any, kinds: frozenset[type]) -> bool:
    stack = [value]
    while stack:
        node = stack.pop()
        if type(node) in kinds:
            return True
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, (list, tuple)):
            stack.extend(node)
    return False


class SchemaRules:
    """jsonschema over a function tool's own parameters schema, for the keywords pydantic bends.

    Everything else the schema says pydantic checks at least as strictly, with two exceptions
    turned off here: ``uniqueItems`` (a ``set`` parameter takes duplicates and drops them) and
    ``oneOf`` exclusivity (pydantic picks one member of a union; read as ``anyOf``).
    """

    def __init__(self, parameters: dict, triggers: frozenset[type]) -> None:
        self._parameters = parameters
        self._triggers = triggers

    @classmethod
    def for_schema(cls, parameters: dict) -> "SchemaRules | None":
        """The rules for ``parameters``, or None when it has no keyword pydantic bends (most schemas)."""
        triggers = _triggers(parameters)
        return cls(parameters, triggers) if triggers else None

    @cached_property
    def _validator(self) -> Any:
        import jsonschema

        base = jsonschema.Draft202012Validator
        lenient = jsonschema.validators.extend(
            base,
            validators={
                "uniqueItems": lambda validator, value, instance, schema: None,
                "oneOf": base.VALIDATORS["anyOf"],
            },
        )
        return lenient(self._parameters)

    def errors(self, raw: dict) -> list:
        """jsonschema's errors for ``raw`` (``ValidationError`` objects); none to look for without a
        scalar of a kind that could break a rule (``Literal[1, 2]`` called with no bool, say)."""
        if not _has_any(raw, self._triggers):
            return []
        return list(self._validator.iter_errors(raw))
