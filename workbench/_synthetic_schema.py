"""Schema preparation for synthetic values (pure dict work; no hypothesis, no jsonschema).

``hypothesis-jsonschema`` speaks Draft 4-7 and cannot follow recursive ``$ref``s, while tool specs
are Draft 2020-12. :func:`prepare` rewrites a ``returns`` schema into a self-contained Draft-7
equivalent: every local ``$ref`` inlined (a recursive one unrolled a few levels, then ``false``, so
only values that end within that depth are generated), ``prefixItems`` → ``items`` list +
``additionalItems``, ``dependentRequired``/``dependentSchemas`` → ``dependencies``.

:func:`readable` narrows a prepared schema towards values a person prototyping against an
interface expects (any value it allows is still valid for the original): objects without
undeclared extra keys, short collections, and readable strings for common formats. It may make a
schema unsatisfiable (e.g. closing an object another ``allOf`` part extends); callers then fall
back to the prepared schema.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from workbench._refs import RefError, follow, lookup_schema

__all__ = ["prepare", "readable", "UnusableSchema", "READABLE_FORMATS", "FORMAT_PREFIX"]

#: how many times one ``$ref`` may be open inside itself before its next expansion becomes ``false``
RECURSION_DEPTH = 2
#: stop inlining (``$ref`` → ``false``) past this many schema nodes: a guard against ref-heavy schemas
MAX_NODES = 5000
#: formats given readable strategies in ``_synthetic_draw`` (renamed to ``FORMAT_PREFIX + name``)
READABLE_FORMATS = frozenset(
    {
        "date-time",
        "date",
        "time",
        "uuid",
        "email",
        "idn-email",
        "uri",
        "iri",
        "uri-reference",
        "iri-reference",
        "hostname",
        "idn-hostname",
        "ipv4",
        "duration",
        "json-pointer",
        "path",
    }
)
FORMAT_PREFIX = "x-workbench-"
#: what "any value" becomes in a readable schema: a scalar, not a random nest of lists and dicts
ANY_READABLE = {"type": ["string", "integer", "boolean"]}
#: extra items/properties a readable open collection may have beyond its minimum
EXTRA_ITEMS = 3

_DROPPED = frozenset(
    {
        "$schema",
        "$id",
        "$anchor",
        "$dynamicAnchor",
        "$dynamicRef",
        "$vocabulary",
        "$defs",
        "definitions",
        "$comment",
        "minContains",
        "maxContains",
        "unevaluatedItems",
        "unevaluatedProperties",
    }
)
_ANNOTATIONS = frozenset(
    {"title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly", "$comment"}
)
_ONE = ("items", "additionalItems", "contains", "additionalProperties", "propertyNames", "not", "if", "then", "else")
_MANY = ("allOf", "anyOf", "oneOf")
_MAP = ("properties", "patternProperties")


class UnusableSchema(ValueError):
    """A ``$ref`` that is not a local JSON pointer into the schema or points nowhere, or a
    ``pattern`` Python's ``re`` (which validation uses too) cannot compile."""


def prepare(schema: Any, *, draft_2020: bool = True) -> Any:
    """A self-contained Draft-7 schema accepting the same values (recursion unrolled, see module doc).

    Raises ``UnusableSchema`` for a ``$ref`` it cannot follow or a ``pattern`` that does not compile.
    """
    return _Inliner(schema, draft_2020).node(schema, ())


class _Inliner:
    def __init__(self, root: Any, draft_2020: bool) -> None:
        self.root = root
        self.draft_2020 = draft_2020
        self.nodes = 0

    def node(self, schema: Any, open_refs: tuple[str, ...]) -> Any:
        if not isinstance(schema, dict):
            return schema  # true / false (anything else was rejected by the meta-schema check)
        self.nodes += 1
        if "$ref" in schema:
            return self.ref(schema, open_refs)
        out: dict[str, Any] = {}
        for key, value in schema.items():
            if key in _DROPPED:
                continue
            if key in _ONE and not (key == "items" and isinstance(value, list)):
                out[key] = self.node(value, open_refs)
            elif key in _MANY or (key == "items" and isinstance(value, list)):
                out[key] = [self.node(v, open_refs) for v in value]
            elif key in _MAP:
                out[key] = {name: self.node(v, open_refs) for name, v in value.items()}
                if key == "patternProperties":
                    for pattern in value:
                        _check_pattern(pattern)
            elif key == "pattern":
                out[key] = _check_pattern(value)
            elif key == "dependencies":
                out[key] = {name: v if isinstance(v, list) else self.node(v, open_refs) for name, v in value.items()}
            elif key == "dependentSchemas":
                out.setdefault("dependencies", {}).update({name: self.node(v, open_refs) for name, v in value.items()})
            elif key == "dependentRequired":
                out.setdefault("dependencies", {}).update(value)
            elif key == "prefixItems" and self.draft_2020:
                continue  # handled with items below
            else:
                out[key] = value
        if self.draft_2020 and "prefixItems" in schema:
            out["items"] = [self.node(v, open_refs) for v in schema["prefixItems"]]
            out.pop("additionalItems", None)
            if "items" in schema:
                out["additionalItems"] = self.node(schema["items"], open_refs)
        return out

    def ref(self, schema: dict, open_refs: tuple[str, ...]) -> Any:
        ref = schema["$ref"]
        if isinstance(ref, str) and (open_refs.count(ref) >= RECURSION_DEPTH or self.nodes > MAX_NODES):
            return False  # the recursion ends here: only values that stop before this level are generated
        try:
            resolved = lookup_schema(self.root, ref)
            if isinstance(resolved, dict) and "$ref" in resolved:
                follow(schema, self.root)  # a chain of bare refs that loops names no schema: CyclicRef
        except RefError as exc:
            raise UnusableSchema(str(exc)) from None
        target = self.node(resolved, open_refs + (ref,))
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        if all(k in _ANNOTATIONS or k in _DROPPED for k in rest):
            return target
        return {"allOf": [target, self.node(rest, open_refs)]}  # 2020-12: $ref applies alongside its siblings


def _check_pattern(pattern: Any) -> Any:
    try:
        re.compile(pattern)
    except (re.error, TypeError) as exc:
        raise UnusableSchema(f"pattern {pattern!r} is not a valid regular expression ({exc})") from None
    return pattern


def readable(schema: Any) -> Any:
    """``schema`` (prepared) narrowed towards short, readable values; see the module doc."""
    return _narrow(schema, closable=True)


def _narrow(schema: Any, closable: bool) -> Any:
    """``closable``: narrowing cannot clash with a sibling schema (it is not an ``allOf`` part, nor a
    branch of a schema with object keywords of its own)."""
    if schema is True or schema == {}:
        return dict(ANY_READABLE) if closable else schema
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    for rule in _RULES:
        rule(out, closable and not any(k in out for k in _MANY))
    for key in ("items", "additionalItems", "additionalProperties", "contains"):
        value = out.get(key)
        if isinstance(value, list):
            out[key] = [_narrow(v, True) for v in value]
        elif isinstance(value, (dict, bool)):
            out[key] = _narrow(value, True)
    for key in _MAP:
        if key in out:
            out[key] = {name: _narrow(v, True) for name, v in out[key].items()}
    has_object_keywords = any(k in out for k in ("properties", "required", "additionalProperties", "patternProperties"))
    if "allOf" in out:
        out["allOf"] = [_narrow(v, False) for v in out["allOf"]]  # parts extend each other: closing one breaks the rest
    for key in ("anyOf", "oneOf"):
        if key in out:
            out[key] = [_narrow(v, closable and not has_object_keywords) for v in out[key]]
    return out


def _format(schema: dict, closable: bool) -> None:
    fmt = schema.get("format")
    if fmt in READABLE_FORMATS:
        schema["format"] = FORMAT_PREFIX + fmt


def _close_object(schema: dict, closable: bool) -> None:
    """Only the declared properties: undeclared extra keys are noise in a prototype's value."""
    props = schema.get("properties")
    if (
        closable
        and isinstance(props, dict)
        and schema.get("additionalProperties", True) in (True, {})
        and "patternProperties" not in schema
        and set(schema.get("required", ())) <= set(props)
        and schema.get("minProperties", 0) <= len(props)
    ):
        schema["additionalProperties"] = False


def _short_collections(schema: dict, closable: bool) -> None:
    items = schema.get("items")
    if ("items" in schema or schema.get("type") == "array") and "maxItems" not in schema:
        prefix = len(items) if isinstance(items, list) else 0
        schema["maxItems"] = max(schema.get("minItems", 0), prefix) + EXTRA_ITEMS
    if (
        schema.get("type") == "object"
        and "maxProperties" not in schema
        and schema.get("additionalProperties") is not False
    ):
        known = len(schema.get("properties", {}))
        schema["maxProperties"] = (
            max(schema.get("minProperties", 0), len(schema.get("required", ())), known) + EXTRA_ITEMS
        )


def _scalar_members(schema: dict, closable: bool) -> None:
    """Members of an array or dict that may be anything get readable scalars, not random nests."""
    if not closable:
        return
    if schema.get("type") == "array" and "items" not in schema:
        schema["items"] = True  # narrowed to ANY_READABLE with the other members
    if (
        schema.get("type") == "object"
        and "additionalProperties" not in schema
        and "properties" not in schema
        and "patternProperties" not in schema
    ):
        schema["additionalProperties"] = True


_RULES: tuple[Callable[[dict, bool], None], ...] = (_format, _close_object, _scalar_members, _short_collections)
