"""The order in which ``ToolSpec.check_inputs`` lists its errors, whichever engine found them.

Errors are sorted by where they sit in the input, walking it depth-first:

* at an object, the properties its schema declares come first, in the schema's property order
  (through ``$ref``, ``allOf``, ``anyOf`` and ``oneOf``), missing ones included; then keys the
  schema does not declare, in the order they appear in the input;
* at an array, items by index;
* an error about a value comes before errors inside it; errors at the same place are ordered by
  their message.

pydantic and jsonschema each have an order of their own, which changes between their versions;
this one depends only on the schema and the input.
"""

from __future__ import annotations

from typing import Any, Iterable, Optional, Sequence

from workbench._refs import RefError, lookup

__all__ = ["SchemaOrder", "input_location"]

_COMBINATORS = ("allOf", "anyOf", "oneOf")
_DECLARED, _UNDECLARED, _ELSEWHERE = 0, 1, 2


class SchemaOrder:
    """Sort keys for error locations under one parameters schema."""

    __slots__ = ("_root",)

    def __init__(self, root: dict) -> None:
        self._root = root

    @property
    def defs(self) -> Optional[dict]:
        """The root schema's ``$defs`` (what ``#/$defs/...`` references point into)."""
        defs = self._root.get("$defs") if isinstance(self._root, dict) else None
        return defs if isinstance(defs, dict) else None

    def key(self, loc: Sequence[Any], raw: Any) -> tuple:
        """A sort key for the error at ``loc`` (a path of keys and indices into ``raw``)."""
        return self._walk(loc, raw)[0]

    def schemas_at(self, loc: Sequence[Any]) -> list[dict]:
        """Every (sub)schema that may apply at ``loc``: through references and every alternative."""
        return self._walk(loc, None)[1]

    def _walk(self, loc: Sequence[Any], raw: Any) -> tuple[tuple, list[dict]]:
        parts: list[tuple[int, int]] = []
        schemas: list[Any] = [self._root]
        value = raw
        for part in loc:
            expanded = self._expand(schemas)
            if isinstance(part, int) and not isinstance(part, bool):
                parts.append((_DECLARED, part))
                schemas = [_item_schema(s, part) for s in expanded]
                value = value[part] if isinstance(value, (list, tuple)) and 0 <= part < len(value) else None
                continue
            declared = _property_positions(expanded)
            if part in declared:
                parts.append((_DECLARED, declared[part]))
            elif isinstance(value, dict) and part in value:
                parts.append((_UNDECLARED, list(value).index(part)))
            else:
                parts.append((_ELSEWHERE, 0))
            schemas = [_property_schema(s, part) for s in expanded]
            value = value.get(part) if isinstance(value, dict) else None
        return tuple(parts), self._expand(schemas)

    def _expand(self, schemas: Iterable[Any]) -> list[dict]:
        """The schemas and, depth-first in order, everything they reference or combine (each once)."""
        out: list[dict] = []
        seen: set[int] = set()
        stack = list(reversed([s for s in schemas if isinstance(s, dict)]))
        while stack:
            schema = stack.pop()
            if id(schema) in seen:
                continue
            seen.add(id(schema))
            out.append(schema)
            subs: list[Any] = []
            ref = schema.get("$ref")
            if isinstance(ref, str):
                subs.append(self._resolve(ref))
            for keyword in _COMBINATORS:
                if isinstance(schema.get(keyword), list):
                    subs.extend(schema[keyword])
            stack.extend(reversed([s for s in subs if isinstance(s, dict)]))
        return out

    def _resolve(self, ref: str) -> Optional[Any]:
        """A local JSON-pointer ``$ref`` (``#/$defs/Name``); None for one that cannot be followed (the
        order then leaves that branch out: ordering errors never raises)."""
        try:
            return lookup(self._root, ref)
        except RefError:
            return None


def _property_positions(schemas: list[dict]) -> dict[str, int]:
    positions: dict[str, int] = {}
    for schema in schemas:
        props = schema.get("properties")
        if isinstance(props, dict):
            for name in props:
                positions.setdefault(name, len(positions))
    return positions


def _property_schema(schema: dict, name: str) -> Any:
    props = schema.get("properties")
    if isinstance(props, dict) and name in props:
        return props[name]
    return schema.get("additionalProperties")


def _item_schema(schema: dict, index: int) -> Any:
    prefix = schema.get("prefixItems")
    if isinstance(prefix, list) and index < len(prefix):
        return prefix[index]
    return schema.get("items")


def input_location(loc: Sequence[Any], raw: Any, *, missing: bool = False) -> list[Any]:
    """pydantic's error location as a path into the input: without the union members' tags.

    pydantic puts the member of a union it tried into the location (``('u', 'int')``,
    ``('pet', 'Cat', 'lives')``); such a step names nothing in the input. A missing field is the
    one step that is not in the input and still belongs in the path.
    """
    path: list[Any] = []
    value = raw
    last = len(loc) - 1
    for position, part in enumerate(loc):
        if isinstance(part, int) and isinstance(value, (list, tuple)) and 0 <= part < len(value):
            path.append(part)
            value = value[part]
        elif isinstance(part, str) and isinstance(value, dict) and part in value:
            path.append(part)
            value = value[part]
        elif missing and position == last:
            path.append(part)
    return path
