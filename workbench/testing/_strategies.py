"""Hypothesis strategies of tool inputs: valid ones (:func:`inputs`) and invalid ones (:func:`invalid_inputs`).

Valid inputs come from the tool's JSON Schema through hypothesis-jsonschema, on the schema
``workbench._synthetic_schema.prepare`` rewrites into the Draft-7 form it reads (``$ref``s
inlined — recursive models unrolled two levels —, ``prefixItems`` as item lists), with the object
adapter of ``workbench._synthetic_draw`` for current hypothesis. Every value is then checked by the
tool's own ``check_inputs`` (a filter), so each input a test sees is one the tool accepts.

Why the schema and not ``st.from_type`` on a function tool's pydantic model: hypothesis ignores
pydantic's ``Field`` constraints (``pattern``, ``ge``, ``max_length`` in ``Annotated``) and builds
instances that fail validation, while the schema carries every constraint. The Python types are
still used where they say more than the published schema: for a function tool the schema comes from
its input model directly, which tells which nested objects drop undeclared keys (pydantic's default
``extra="ignore"``: generating extra keys there tests nothing) and which keep them
(``extra="allow"``, shown as ``additionalProperties: true``, which the published schema cleans away).

Invalid inputs start from a valid one and break one thing — a required key removed, an undeclared
key added where the schema closes the object, a value of a JSON type the schema does not allow, a
value past a bound, length, enum, pattern or format — and are kept only if the schema (jsonschema,
Draft 2020-12 with format checking) refuses them too.
"""

from __future__ import annotations

import copy
import functools
import json
import re
import weakref
from typing import Any, Optional

from hypothesis import assume
from hypothesis import strategies as st

__all__ = ["inputs", "invalid_inputs", "resolve_tool", "generation_schema", "oracle"]


def resolve_tool(tool: Any, registry: Any = None) -> Any:
    """A ``BaseTool`` from a tool, a plain function (wrapped with ``@tool``), a ``ToolSpec`` (spec-only)
    or a name (looked up in ``registry``, default: the default registry)."""
    from workbench.registry import ToolRegistry, default_registry
    from workbench.spec import ToolSpec
    from workbench.tools import BaseTool, SpecOnlyTool

    if isinstance(tool, BaseTool):
        return tool
    if isinstance(tool, ToolSpec):
        return SpecOnlyTool(tool)
    if isinstance(tool, str):
        return (registry if registry is not None else default_registry()).get_tool(tool)
    if isinstance(tool, type) and issubclass(tool, BaseTool) or callable(tool):
        return ToolRegistry._as_tool(tool)
    raise TypeError(f"Expected a tool, a function, a ToolSpec or a tool name, got {type(tool).__name__}")


# -- the schema values are generated from -----------------------------------------------------------
_SCHEMAS: "weakref.WeakKeyDictionary[Any, dict]" = weakref.WeakKeyDictionary()


def generation_schema(tool: Any) -> dict[str, Any]:
    """The JSON Schema inputs are generated from (see the module doc)."""
    try:
        return _SCHEMAS[tool]
    except (KeyError, TypeError):
        pass
    schema = _model_schema(tool)
    if schema is None:
        schema = dict(tool.spec.parameters)
        schema.setdefault("additionalProperties", False)  # check_inputs refuses unknown keys unless told otherwise
    try:
        _SCHEMAS[tool] = schema
    except TypeError:
        pass
    return schema


def _model_schema(tool: Any) -> Optional[dict[str, Any]]:
    """A function tool's input-model schema, objects that drop extra keys closed; None for other tools."""
    from workbench._schema import ToolJsonSchema, clean_schema, inspect_function
    from workbench.tools import DecoratedFunctionTool

    spec = tool.spec
    if not isinstance(tool, DecoratedFunctionTool) or not spec.__pydantic_private__.get("_generated"):
        return None  # a class tool, or @tool(parameters=...): the published schema is the contract
    try:
        info = inspect_function(tool.tool_func, name=spec.name, description="", context=tool.context_param or False)
        raw = info.input_model.model_json_schema(by_alias=True, schema_generator=ToolJsonSchema)
    except Exception:  # noqa: BLE001 - e.g. string annotations naming a class local to a test function
        return None
    return clean_schema(_close_ignoring_objects(raw))


def _close_ignoring_objects(schema: Any) -> Any:
    """Objects with declared properties and no ``additionalProperties`` drop extra keys (pydantic's
    ``extra="ignore"``): mark them closed so none are generated."""
    if isinstance(schema, list):
        return [_close_ignoring_objects(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {
        k: _close_ignoring_objects(v) if k not in ("enum", "const", "default", "examples") else v
        for k, v in schema.items()
    }
    if isinstance(schema.get("properties"), dict) and "additionalProperties" not in schema and "$ref" not in schema:
        out["additionalProperties"] = False
    return out


@functools.lru_cache(maxsize=256)
def _schema_strategy(key: str, tool_name: str) -> st.SearchStrategy:
    from hypothesis_jsonschema import from_schema

    from workbench._errors import ToolSpecError
    from workbench._synthetic_draw import MISSING_FORMATS, _patch_object_generation
    from workbench._synthetic_schema import UnusableSchema, prepare

    _patch_object_generation()
    try:
        return from_schema(prepare(json.loads(key)), custom_formats=MISSING_FORMATS)
    except UnusableSchema as exc:
        raise ToolSpecError(f"Tool '{tool_name}': no inputs can be generated from its schema: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - hypothesis-jsonschema refusing a schema
        raise ToolSpecError(
            f"Tool '{tool_name}': no inputs can be generated from its schema "
            f"({type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''})"
        ) from None


def _accepts(spec: Any, value: Any) -> bool:
    from workbench._errors import ToolInputError

    try:
        spec.check_inputs(copy.deepcopy(value))
    except ToolInputError:
        return False
    return True


def inputs(tool: Any, *, registry: Any = None) -> st.SearchStrategy[dict[str, Any]]:
    """A hypothesis strategy of JSON inputs the tool accepts (each passes ``spec.check_inputs``).

    ``tool``: a tool, a function, a ``ToolSpec`` or a tool name (looked up in ``registry``).
    Raises ``ToolSpecError`` naming the tool when its schema cannot be generated from."""
    item = resolve_tool(tool, registry)
    schema = generation_schema(item)
    key = json.dumps(schema, sort_keys=True, separators=(",", ":"), default=str)
    return _schema_strategy(key, item.tool_name).filter(functools.partial(_accepts, item.spec))


# -- invalid inputs ---------------------------------------------------------------------------------
class _Oracle:
    """The tool's parameters schema (closed at the top unless it says otherwise), prepared for walking
    and compiled for checking."""

    def __init__(self, spec: Any) -> None:
        import jsonschema

        from workbench._synthetic_schema import prepare

        schema = dict(spec.parameters)
        schema.setdefault("additionalProperties", False)
        self.schema = schema
        self.prepared = prepare(schema)
        self.validator = jsonschema.Draft202012Validator(
            schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
        )

    def refuses(self, value: Any) -> bool:
        try:
            return not self.validator.is_valid(value)
        except Exception:  # noqa: BLE001 - a value the validator cannot even walk is not valid input
            return True


_ORACLES: "weakref.WeakKeyDictionary[Any, _Oracle]" = weakref.WeakKeyDictionary()


def oracle(tool: Any) -> _Oracle:
    try:
        return _ORACLES[tool]
    except (KeyError, TypeError):
        pass
    made = _Oracle(tool.spec)
    try:
        _ORACLES[tool] = made
    except TypeError:
        pass
    return made


_JSON_TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")


def _not_json_text(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return True
    return False


_VALUES_OF_TYPE: dict[str, st.SearchStrategy] = {
    "null": st.none(),
    "boolean": st.booleans(),
    "integer": st.integers(-(10**6), 10**6),
    "number": st.floats(-1e6, 1e6, allow_nan=False).filter(lambda x: not float(x).is_integer()),
    # never a JSON document: array/object parameters accept JSON text (models send it) and parse it
    "string": st.text(max_size=8).filter(_not_json_text),
    "array": st.lists(st.integers(0, 9), max_size=3),
    "object": st.dictionaries(st.text("abcxyz", min_size=1, max_size=4), st.integers(0, 9), max_size=2),
}


def _admitted(schema: Any) -> Optional[set[str]]:
    """JSON types a prepared schema admits (None: any)."""
    if schema is False:
        return set()
    if not isinstance(schema, dict):
        return None
    declared = schema.get("type")
    if isinstance(declared, str):
        found = {declared}
    elif isinstance(declared, list):
        found = set(declared)
    elif "enum" in schema or "const" in schema:
        values = schema.get("enum", [schema.get("const")])
        found = {
            "null"
            if v is None
            else "boolean"
            if isinstance(v, bool)
            else "integer"
            if isinstance(v, int)
            else "number"
            if isinstance(v, float)
            else "string"
            if isinstance(v, str)
            else "array"
            if isinstance(v, list)
            else "object"
            for v in values
        }
    elif any(k in schema for k in ("anyOf", "oneOf")):
        found = set()
        for branch in schema.get("anyOf", schema.get("oneOf")) or ():
            sub = _admitted(branch)
            if sub is None:
                return None
            found |= sub
    else:
        return None
    if "number" in found:
        found.add("integer")
    if "integer" in found and "number" not in found:
        found.add("number-integral")  # 1.0 is an integer in JSON Schema
    return found


def _sites(value: Any, schema: Any, path: tuple) -> list[tuple]:
    """The places of ``value`` one thing can be broken at: (kind, path, detail)."""
    found: list[tuple] = []
    if not isinstance(schema, dict):
        return found
    if isinstance(value, dict) and isinstance(schema.get("properties"), dict):
        props = schema["properties"]
        for key in schema.get("required", ()):
            if key in value:
                found.append(("missing", path, key))
        extra = schema.get("additionalProperties", True)
        if extra is False:
            found.append(("extra", path, tuple(props)))
        for key, sub in props.items():
            if key not in value:
                continue
            admitted = _admitted(sub)
            if admitted is not None and set(_JSON_TYPES) - admitted:
                found.append(("wrong-type", path + (key,), tuple(sorted(set(_JSON_TYPES) - admitted))))
            if _has_limits(sub):
                found.append(("out-of-range", path + (key,), sub))
            found += _sites(value[key], sub, path + (key,))
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        sub = schema["items"]
        for index, item in enumerate(value[:3]):
            admitted = _admitted(sub)
            if admitted is not None and set(_JSON_TYPES) - admitted:
                found.append(("wrong-type", path + (index,), tuple(sorted(set(_JSON_TYPES) - admitted))))
            found += _sites(item, sub, path + (index,))
    return found


_LIMITS = (
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "enum",
    "const",
    "pattern",
    "format",
)


def _has_limits(schema: Any) -> bool:
    return isinstance(schema, dict) and any(k in schema for k in _LIMITS)


def _out_of_range(schema: dict, current: Any) -> st.SearchStrategy:
    """Values breaking one of ``schema``'s limits (the oracle has the last word)."""
    options: list[st.SearchStrategy] = []
    number = type(current) if isinstance(current, (int, float)) and not isinstance(current, bool) else int
    for key, shift in (("minimum", -1), ("maximum", 1)):
        if isinstance(schema.get(key), (int, float)):
            options.append(st.just(number(schema[key] + shift) if number is int else schema[key] + shift * 0.5))
    for key in ("exclusiveMinimum", "exclusiveMaximum"):
        if isinstance(schema.get(key), (int, float)):
            options.append(st.just(schema[key]))
    if isinstance(schema.get("minLength"), int) and schema["minLength"] > 0:
        options.append(st.just("x" * (schema["minLength"] - 1)))
    if isinstance(schema.get("maxLength"), int):
        options.append(st.just("x" * (schema["maxLength"] + 1)))
    sample = current[0] if isinstance(current, list) and current else 0
    if isinstance(schema.get("minItems"), int) and schema["minItems"] > 0:
        options.append(st.just([copy.deepcopy(sample) for _ in range(schema["minItems"] - 1)]))
    if isinstance(schema.get("maxItems"), int):
        options.append(st.just([copy.deepcopy(sample) for _ in range(schema["maxItems"] + 1)]))
    allowed = schema.get("enum", [schema["const"]] if "const" in schema else None)
    if isinstance(allowed, list):
        if any(isinstance(v, str) for v in allowed):
            options.append(st.text(min_size=1, max_size=8).filter(lambda s: s not in allowed))
        ints = [v for v in allowed if isinstance(v, int) and not isinstance(v, bool)]
        if ints:
            options.append(st.just(max(ints) + 1))
    if isinstance(schema.get("pattern"), str):
        pattern = schema["pattern"]
        options.append(st.text(max_size=8).filter(lambda s: _no_match(pattern, s)))
    if isinstance(schema.get("format"), str):
        options.append(st.sampled_from(["not-a-" + schema["format"], "", "2024-13-45", "12:99"]))
    return st.one_of(options) if options else st.nothing()


def _no_match(pattern: str, text: str) -> bool:
    try:
        return re.search(pattern, text) is None
    except re.error:
        return False


def _apply(value: dict, site: tuple, draw: Any) -> tuple[str, dict]:
    kind, path, detail = site
    out = copy.deepcopy(value)
    parent: Any = out
    for part in path[:-1] if kind in ("wrong-type", "out-of-range") else path:
        parent = parent[part]
    where = "/" + "/".join(str(p) for p in path) if path else ""
    if kind == "missing":
        del parent[detail]
        return f"required key {where}/{detail} removed", out
    if kind == "extra":
        key = draw(st.text("abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=8).filter(lambda k: k not in detail))
        parent[key] = draw(st.integers(0, 9))
        return f"undeclared key {where}/{key} added", out
    last = path[-1]
    if kind == "wrong-type":
        choice = draw(st.sampled_from([t for t in detail if t != "number-integral"]))
        parent[last] = draw(_VALUES_OF_TYPE[choice])
        return f"{where}: a value of type {choice} where the schema does not allow it", out
    parent[last] = draw(_out_of_range(detail, parent[last]))
    return f"{where}: a value outside the schema's limits", out


def invalid_inputs(tool: Any, *, registry: Any = None) -> st.SearchStrategy[tuple[str, dict[str, Any]]]:
    """A strategy of ``(what was broken, input)`` pairs whose input the tool's schema refuses."""
    item = resolve_tool(tool, registry)
    judge = oracle(item)
    valid = inputs(item)

    @st.composite
    def broken(draw: Any) -> tuple[str, dict[str, Any]]:
        value = draw(valid)
        sites = _sites(value, judge.prepared, ())
        assume(sites)
        site = draw(st.sampled_from(sites))
        what, out = _apply(value, site, draw)
        assume(judge.refuses(out))
        return what, out

    return broken()
