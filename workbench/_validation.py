"""Runtime input validation behind ``ToolSpec.check_inputs``.

Two engines share one error format:

* function tools validate through their pydantic model in *strict JSON*
  semantics (``bool`` is never a number, ``"5"`` is not an integer, but an ISO
  string is a ``date``), returning converted Python values;
* schema-only tools validate with ``jsonschema`` (Draft 2020-12) and return
  the input unchanged.

Both list their errors in the order of ``workbench._error_order``, refuse inputs nested deeper
than ``MAX_INPUT_DEPTH`` levels before validating (so never hit ``RecursionError``), and refuse
``NaN``/``Infinity`` (JSON has neither): the schema engine anywhere in the input, the function
engine for ``float`` fields unless the field or its model says ``allow_inf_nan=True``.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Mapping
from functools import cached_property
from typing import Any, Callable, Optional

from pydantic import ValidationError
from pydantic_core import SchemaValidator

from workbench._error_order import SchemaOrder, input_location
from workbench._errors import ToolInputError, ToolSpecError
from workbench._json_text import MAX_JSON_DEPTH, JSONTooDeepError
from workbench._json_text import loads as load_json
from workbench._refs import resolved
from workbench._schema import INF_NAN_MARK, FunctionInfo, schema_type_of

__all__ = [
    "FunctionInputValidator",
    "SchemaInputValidator",
    "PydanticErrorReport",
    "json_type_name",
    "describe_value",
    "MAX_INPUT_DEPTH",
]

#: How deeply an input may nest objects and arrays, the arguments object being level 1. Real tool
#: inputs stay far below; jsonschema recurses in Python (several frames per level) and pydantic
#: stops at 255 levels, so a deeper input is refused up front rather than failing inside either.
MAX_INPUT_DEPTH = MAX_JSON_DEPTH

_NESTED = (dict, list, tuple)
# one-time builds of fast checks (FunctionInputValidator._prepare); reentrant, as a build may, through
# pydantic, reach code that validates; held only until a validator is built, never on the hot path
_PREPARE_LOCK = threading.RLock()
_SCALARS = frozenset({str, int, bool, type(None)})
_FINITE_EXPECTED = "a finite number (JSON has no NaN or Infinity)"

_JSON_TYPE_NAMES: dict[type, str] = {
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
    tuple: "array",
    dict: "object",
    type(None): "null",
}


def json_type_name(value: Any) -> str:
    """The JSON type of a Python value (``bool`` before ``int``), or its Python type name."""
    return _JSON_TYPE_NAMES.get(type(value), type(value).__name__)


def describe_value(value: Any, limit: int = 60) -> str:
    if value is None:
        return "null"  # the JSON name alone: "None (null)" said it twice
    text = repr(value)
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return f"{text} ({json_type_name(value)})"


def _path(loc: tuple | list) -> tuple[str, str]:
    """(``$.a[0].b``, ``a[0].b``) for a location tuple."""
    field = ""
    for part in loc:
        if isinstance(part, int):
            field += f"[{part}]"
        else:
            field += ("." if field else "") + str(part)
    return ("$." + field if field else "$"), (field or "$")


def _error(
    field_loc: tuple | list, expected: str, received: Any, *, missing: bool = False, unexpected: bool = False
) -> dict:
    path, field = _path(field_loc)
    if missing:
        message = f"{field}: required field is missing (expected {expected})"
        received_text = "nothing"
    elif unexpected:
        message = f"{field}: unexpected field (expected {expected}), received {describe_value(received)}"
        received_text = describe_value(received)
    else:
        received_text = describe_value(received)
        message = f"{field}: expected {expected}, received {received_text}"
    return {"path": path, "field": field, "expected": expected, "received": received_text, "message": message}


def _not_an_object(tool_name: str, raw: Any) -> ToolInputError:
    error = _error((), "an object mapping parameter names to values", raw)
    if isinstance(raw, str):  # a model's arguments string that did not parse (see parse_tool_calls)
        try:
            parsed = load_json(raw)
        except JSONTooDeepError:
            return _too_deep(tool_name, None)
        except ValueError as exc:
            error["message"] += f" — the arguments are not valid JSON ({exc})"
        else:
            error["message"] += f" — the arguments are a JSON {json_type_name(parsed)}, not an object"
    return ToolInputError(tool_name, [error])


def _too_deep(tool_name: str, key: Any) -> ToolInputError:
    """The input (``key`` None: the arguments themselves, as JSON text) nests deeper than the limit."""
    path, field = _path([] if key is None else [key])
    expected = f"at most {MAX_INPUT_DEPTH} levels of objects and arrays"
    message = (
        f"{field}: input nests deeper than {MAX_INPUT_DEPTH} levels (objects and arrays inside each other, "
        f"the arguments object being level 1)"
    )
    return ToolInputError(
        tool_name,
        [
            {
                "path": path,
                "field": field,
                "expected": expected,
                "received": f"more than {MAX_INPUT_DEPTH} levels",
                "message": message,
            }
        ],
    )


def _scan(tool_name: str, raw: dict) -> bool:
    """Raise if ``raw`` nests deeper than ``MAX_INPUT_DEPTH``; say whether it holds a NaN or ±Infinity.

    Iterative, so an input of any depth is measured without recursing. Runs on every call: kept lean.
    """
    non_finite = False
    for key, value in raw.items():
        kind = type(value)
        if kind in _SCALARS:
            continue
        if kind is float:
            non_finite = non_finite or value - value != 0.0  # NaN and ±Infinity give NaN
            continue
        if not isinstance(value, _NESTED):
            continue
        stack = [(value, 2)]
        while stack:
            node, depth = stack.pop()
            if depth > MAX_INPUT_DEPTH:
                raise _too_deep(tool_name, key)
            for child in node.values() if isinstance(node, dict) else node:
                if isinstance(child, _NESTED):
                    stack.append((child, depth + 1))
                elif isinstance(child, float) and child - child != 0.0:
                    non_finite = True
    return non_finite


def _non_finite(raw: dict) -> list[list]:
    """Paths of the NaN and ±Infinity floats in ``raw``, in no particular order."""
    found: list[list] = []
    stack: list[tuple[Any, list]] = [(raw, [])]
    while stack:
        node, path = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, child in items:
            if isinstance(child, float) and not math.isfinite(child):
                found.append(path + [key])
            elif isinstance(child, _NESTED):
                stack.append((child, path + [key]))
    return found


def _parse_json_strings(tool_name: str, raw: dict, names: frozenset[str]) -> dict:
    """Models often send list/dict arguments as JSON text; parse those (never for string parameters)."""
    if not names:
        return raw
    parsed = None
    for key in names:
        value = raw.get(key)
        if isinstance(value, str):
            try:
                decoded = load_json(value)
            except JSONTooDeepError:
                raise _too_deep(tool_name, key) from None
            except ValueError:
                continue
            if isinstance(decoded, (list, dict)):
                if parsed is None:
                    parsed = dict(raw)
                parsed[key] = decoded
    return raw if parsed is None else parsed


def _sorted(tool_name: str, found: list[tuple[list, dict]], order: SchemaOrder, raw: Any) -> ToolInputError:
    """``ToolInputError`` listing ``(location, error)`` pairs in the documented order (``_error_order``)."""
    found.sort(key=lambda item: (order.key(item[0], raw), item[1]["message"]))
    return ToolInputError(tool_name, [error for _, error in found])


class FunctionInputValidator:
    """Strict-JSON validation through a function tool's pydantic model (``lax=True``: pydantic's lax mode).

    Strict: JSON Schema's rules that pydantic bends (``workbench._strict_json``) are checked against
    the tool's schema as well, for the tools whose schema has such a rule. Lax: the model's own
    verdict in pydantic's lax mode (``"6"`` is 6 for an ``int``), as frameworks that validate tool
    input with ``model_validate`` give it; inputs nested too deeply are still refused first.
    """

    __slots__ = (
        "_validator",
        "_fields",
        "_json_params",
        "_param_list",
        "_expected",
        "_order",
        "_parameters",
        "_rules",
        "_inf_nan_places",
        "_names",
        "_count",
        "_defaults",
        "_fast",
        "_flat_check",
        "_pending",
        "_scalar_only",
        "_publish",
        "_info",
        "_lax",
        "_sibling",
        "_complete",
    )

    def __init__(
        self,
        info: FunctionInfo,
        publish: Optional[Callable[[Any, Callable[[Any], dict]], None]] = None,
        *,
        lax: bool = False,
    ) -> None:
        """``publish(self, check)`` is told the flat check once it is built, if it gives every parameter
        (the spec's ``check_inputs`` then calls it first: one call less on its hot path)."""
        self._info = info  # kept for the validator of the other mode (for_mode), made when first asked for
        self._lax = lax
        self._sibling: Optional[FunctionInputValidator] = None
        self._complete = False
        self._validator: Any = None  # the input model's, from _prepare: the model is built on the first call
        self._fields = info.field_names
        self._json_params = info.json_string_params
        self._param_list = ", ".join(info.param_names) or "no parameters"
        self._parameters = info.parameters
        self._names = [name for name, _annotation, _default in info.input_fields]
        self._count = len(self._names)
        self._defaults = tuple((name, default) for name, _annotation, default in info.input_fields)
        # the rest is built on the first call, not at decoration (a catalog builds 1,000 tools and
        # calls a few): the input model, the fast path's TypedDict validator (its core schema costs
        # about as much as the rest of a tool's build) and what error messages are made from
        self._expected: dict[str, str] = {}
        self._order: Any = None
        self._rules: Any = None
        self._inf_nan_places: Any = None
        self._scalar_only = False
        self._fast: Optional[SchemaValidator] = None
        self._pending: Any = info
        # the flat check of a scalar-only tool (see __call__); until the first call, a stand-in that builds it
        self._flat_check: Optional[Callable[[Any], dict]] = None if lax else self._prepare_then_check
        self._publish = publish

    def for_mode(self, mode: str) -> Callable[[str, Any], dict]:
        """This tool's validator for ``mode`` (``"strict"`` or ``"lax"``): this one, or its sibling of the
        other mode (made on first need, then kept)."""
        if (mode == "lax") == self._lax:
            return self.__call__
        if self._sibling is None:
            sibling = FunctionInputValidator(self._info, lax=not self._lax)
            sibling._sibling = self
            self._sibling = sibling
        return self._sibling.for_mode(mode)

    def _prepare(self) -> None:
        """Build the checks, once: threads calling a fresh tool together wait for the one building it.

        ``_pending`` is cleared last, after everything else is in place, so a thread that sees it
        ``None`` (on the lock-free hot path or here) sees the finished set-up."""
        from workbench._strict_json import SchemaRules

        if self._pending is None:
            return
        with _PREPARE_LOCK:
            info = self._pending
            if info is None:  # another thread built it while this one waited
                return
            props = info.parameters.get("properties", {})
            defs = info.parameters.get("$defs")
            self._expected = {name: _expected_from_schema(sub, defs) for name, sub in props.items()}
            self._order = SchemaOrder(info.parameters)
            self._rules = SchemaRules.for_schema(info.parameters)
            self._inf_nan_places = SchemaOrder(info.inf_nan_schema) if info.inf_nan_schema is not None else None
            self._scalar_only = (
                not self._json_params
                and self._rules is None
                and all(
                    schema_type_of(sub, defs) and schema_type_of(sub, defs) <= _SCALAR_JSON_TYPES
                    for sub in props.values()
                )
            )
            self._validator = info.input_model.__pydantic_validator__
            # (lax mode has no fast check: the TypedDict is strict, and lax calls take the model path)
            fast, complete = _typed_dict_validator(info) if not self._lax else (None, False)
            flat_check = fast.validate_python if fast is not None and self._scalar_only else None
            self._fast = fast
            self._flat_check = flat_check
            self._complete = flat_check is not None and complete
            self._pending = None
        if self._complete and self._publish is not None and flat_check is not None:
            self._publish(self, flat_check)

    @property
    def published_check(self) -> Optional[Callable[[Any], dict]]:
        """The flat check this validator publishes (built and giving every parameter), else ``None``."""
        return self._flat_check if self._complete else None

    def _prepare_then_check(self, raw: Any) -> dict:
        self._prepare()
        flat_check = self._flat_check
        if flat_check is None or flat_check == self._prepare_then_check:
            # not a flat tool (__call__ goes on to the full path); never this stand-in again
            raise ValidationError.from_exception_data("arguments", [])
        return flat_check(raw)

    def __call__(self, tool_name: str, raw: Any) -> dict:
        flat_check = self._flat_check
        if flat_check is not None and type(raw) is dict:
            # Scalar parameters only (numbers, strings, booleans, enums, null): nothing can nest or hide a
            # NaN where pydantic does not look, and no argument is JSON text to parse, so valid input
            # needs no scan first; whatever the fast check refuses takes the full path below. Inlined
            # (not _fast_values): this is every call of the commonest tools.
            try:
                values = flat_check(raw)
            except ValidationError:
                pass
            else:
                return values if len(values) == self._count else self._with_defaults(values)
        elif self._pending is not None:
            self._prepare()
        if not isinstance(raw, dict):
            raise _not_an_object(tool_name, raw)
        raw = _parse_json_strings(tool_name, raw, self._json_params)
        if self._lax:
            return self._lax_values(tool_name, raw)
        if _scan(tool_name, raw):
            return self._with_rules(tool_name, raw, self._refused_non_finite(raw))
        if self._rules is not None:
            return self._with_rules(tool_name, raw, [])
        if self._fast is not None:
            checked = self._fast_values(raw)
            if checked is not None:
                return checked
        try:
            values = self._validator.validate_python(raw, strict=True).__dict__
        except ValidationError:
            values, found = self._pydantic(raw)
            if found:
                raise _sorted(tool_name, found, self._order, raw) from None
            return values
        return {name: values[internal] for internal, name in self._fields}

    def _lax_values(self, tool_name: str, raw: dict) -> dict:
        """The model's verdict in pydantic's lax mode (NaN and infinity refused by the model's config,
        as in strict mode, unless a field allows them)."""
        _scan(tool_name, raw)  # refuses an input nested too deeply, before pydantic recurses into it
        try:
            values = self._validator.validate_python(raw, strict=False).__dict__
        except ValidationError as exc:
            raise _sorted(tool_name, self._convert(exc, raw), self._order, raw) from None
        return {name: values[internal] for internal, name in self._fields}

    def _fast_values(self, raw: dict) -> Optional[dict]:
        """The common case, valid JSON-like arguments: a TypedDict of the same annotations checks them
        like the input model (same per-field core schemas, strict, extra keys forbidden) without building
        a model instance. ``None`` when it refuses them: the model path then explains the errors."""
        try:
            # strict=True as well as the config's: the config does not reach nested models
            values = self._fast.validate_python(raw, strict=True)  # type: ignore[union-attr]
        except ValidationError:
            return None
        # the TypedDict gives its fields in parameter order, whatever order the input had
        return values if len(values) == self._count else self._with_defaults(values)

    def _with_defaults(self, values: dict) -> dict:
        """Every parameter, in order: the validated values and, for the ones left out, their defaults."""
        return {name: values[name] if name in values else _default_value(default) for name, default in self._defaults}

    def _refused_non_finite(self, raw: dict) -> list[list]:
        """Where ``raw`` has NaN/Infinity that no ``allow_inf_nan=True`` lets in."""
        places = self._inf_nan_places
        if places is None:
            return _non_finite(raw)
        return [loc for loc in _non_finite(raw) if not any(s.get(INF_NAN_MARK) for s in places.schemas_at(loc))]

    def _with_rules(self, tool_name: str, raw: dict, non_finite: list[list]) -> dict:
        """pydantic's verdict and the schema's rules; where both speak of one place, the schema's words."""
        values, by_pydantic = self._pydantic(raw)
        by_schema = _from_jsonschema(
            self._rules.errors(raw) if self._rules is not None else [], non_finite, raw, self._parameters
        )
        schema_places = {tuple(loc) for loc, _ in by_schema}
        pydantic_places = {tuple(loc) for loc, _ in by_pydantic}
        found = [(loc, e) for loc, e in by_schema if not _inside(tuple(loc), pydantic_places)]
        found += [
            (loc, e)
            for loc, e in by_pydantic
            if tuple(loc) not in schema_places and not _inside(tuple(loc), schema_places)
        ]
        if found:
            raise _sorted(tool_name, found, self._order, raw)
        return values

    def _pydantic(self, raw: dict) -> tuple[dict, list[tuple[list, dict]]]:
        """(converted arguments, []) or ({}, errors as (location, error) pairs)."""
        try:
            instance = self._validator.validate_python(raw, strict=True)
        except ValidationError as python_error:
            try:
                text = json.dumps(raw)
            except (TypeError, ValueError):
                return {}, self._convert(python_error, raw)
            try:
                instance = self._validator.validate_json(text, strict=True)
            except ValidationError as json_error:
                if not _only_integral_floats(json_error):
                    return {}, self._convert(json_error, raw)
                # JSON Schema counts 1.0 as an integer (models do send it); pydantic's strict mode does not
                instance = self._validator.validate_json(text, strict=False)
        values = instance.__dict__
        return {name: values[internal] for internal, name in self._fields}, []

    def _convert(self, exc: ValidationError, raw: dict) -> list[tuple[list, dict]]:
        return _convert_errors(exc, raw, self._expected, self._order, self._param_list)


def _convert_errors(
    exc: ValidationError, raw: dict, expected_at_top: dict[str, str], order: SchemaOrder, param_list: str
) -> list[tuple[list, dict]]:
    """pydantic's errors about ``raw`` as (location, error) pairs in the workbench's words: what was
    expected said in JSON Schema terms (``expected_at_top``: a top-level field's; ``order`` finds a
    nested one's schema), one error per place."""
    found: list[tuple[list, dict]] = []
    merged: dict[tuple, int] = {}  # one error per place: a union's members each report their own
    for err in exc.errors(include_url=False):
        kind = err["type"]
        loc = input_location(err["loc"], raw, missing=kind == "missing")
        if kind == "missing":
            expected = expected_at_top.get(loc[0], "a value") if len(loc) == 1 else _expected_at(order, loc)
            found.append((loc, _error(loc, expected, None, missing=True)))
        elif kind == "extra_forbidden":
            expected = f"one of the parameters ({param_list})" if len(loc) == 1 else "no extra keys"
            found.append((loc, _error(loc, expected, err["input"], unexpected=True)))
        else:
            expected = _expected_for(kind, loc, dict(err), expected_at_top, order)
            place = tuple(loc)
            if place in merged:
                index = merged[place]
                before = found[index][1]["expected"]
                if expected not in before.split(" or "):
                    found[index] = (loc, _error(loc, f"{before} or {expected}", err["input"]))
                continue
            merged[place] = len(found)
            found.append((loc, _error(loc, expected, err["input"])))
    return found


def _expected_for(kind: str, loc: list, err: dict, expected_at_top: dict[str, str], order: SchemaOrder) -> str:
    """Say what was expected in JSON Schema terms, as the schema-only engine does."""
    if kind in ("literal_error", "enum"):
        if len(loc) == 1 and loc[0] in expected_at_top:
            return expected_at_top[loc[0]]
        if len(loc) > 1:  # a nested Enum / Literal: its values in JSON, as at the top level
            expected = _expected_at(order, loc)
            if expected != "a value":
                return expected
    json_type = _JSON_TYPE_BY_ERROR.get(kind)
    if json_type is not None:
        return json_type
    return err["msg"].removeprefix("Input should be ").removeprefix("Value error, ")


class PydanticErrorReport:
    """A ``ToolInputError`` from a pydantic ``ValidationError`` about a tool's input, worded and ordered
    as the workbench's own validators word and order theirs; ``parameters`` is the tool's JSON Schema
    (what was expected is read from it). For validators that are not the workbench's (an adapted
    tool's framework model)."""

    __slots__ = ("_expected", "_order", "_param_list")

    def __init__(self, parameters: dict) -> None:
        props = parameters.get("properties") or {}
        defs = parameters.get("$defs")
        self._expected = {name: _expected_from_schema(sub, defs) for name, sub in props.items()}
        self._order = SchemaOrder(parameters)
        self._param_list = ", ".join(props) or "no parameters"

    def error(self, tool_name: str, exc: ValidationError, raw: dict) -> ToolInputError:
        found = _convert_errors(exc, raw, self._expected, self._order, self._param_list)
        if not found:  # a validator that raised with no line items (e.g. a model validator's own error)
            found = [([], _error([], "input this tool accepts", raw) | {"message": str(exc)})]
        return _sorted(tool_name, found, self._order, raw)


#: pydantic error type → the JSON type it means (the rest keep pydantic's own wording)
_JSON_TYPE_BY_ERROR: dict[str, str] = {
    "int_type": "integer",
    "int_parsing": "integer",
    "int_from_float": "integer",
    "float_type": "number",
    "float_parsing": "number",
    "string_type": "string",
    "bool_type": "boolean",
    "bool_parsing": "boolean",
    "none_required": "null",
    "list_type": "array",
    "tuple_type": "array",
    "set_type": "array",
    "frozen_set_type": "array",
    "dict_type": "object",
    "model_type": "object",
    "model_attributes_type": "object",
    "dataclass_type": "object",
    "finite_number": _FINITE_EXPECTED,
}


_SCALAR_JSON_TYPES = frozenset({"integer", "number", "string", "boolean", "null"})


def _typed_dict_validator(info: FunctionInfo) -> "tuple[Any, bool]":
    """A core validator of a TypedDict with the function's parameters (``None`` if one cannot be
    built — the input model then validates every call), and whether it fills in the defaults itself
    (then its output has every parameter)."""
    import inspect as _inspect

    from pydantic import ConfigDict, TypeAdapter
    from typing_extensions import NotRequired, Required, TypedDict

    if not info.input_fields:
        return None, False
    try:
        fields = {
            name: (Required[annotation] if default is _inspect.Parameter.empty else NotRequired[annotation])
            for name, annotation, default in info.input_fields
        }
        # the functional form with a name known only at run time: mypy wants a literal to define a type statically
        arguments = TypedDict(f"{info.name}_arguments", fields)  # type: ignore[misc]
        # strict in its config, so a call passes no keyword (pydantic-core parses keywords on every call)
        # (mypy knows no such attribute of a TypedDict class; pydantic reads it there)
        arguments.__pydantic_config__ = ConfigDict(  # type: ignore[attr-defined]
            extra="forbid",
            arbitrary_types_allowed=False,
            allow_inf_nan=False,
            strict=True,
        )
        adapter = TypeAdapter(arguments)
    except Exception:  # noqa: BLE001 - an annotation only a model takes: the model path handles it
        return None, False
    defaults = {
        name: default for name, _annotation, default in info.input_fields if default is not _inspect.Parameter.empty
    }
    if not defaults:
        return adapter.validator, True
    try:
        return SchemaValidator(_with_defaults_schema(adapter.core_schema, defaults)), True
    except Exception:  # noqa: BLE001 - a core schema of another shape: __call__ adds the defaults
        return adapter.validator, False


def _with_defaults_schema(schema: Mapping[str, Any], defaults: dict) -> dict:
    """A TypedDict's core schema whose optional fields fall back to their defaults, as the input model's
    do (pydantic-core deep-copies an unhashable default per call, as ``_default_value`` does)."""
    from pydantic_core import core_schema

    if schema["type"] == "definitions":
        return {**schema, "schema": _with_defaults_schema(schema["schema"], defaults)}
    if schema["type"] != "typed-dict":
        raise ValueError(f"not a typed-dict schema: {schema['type']}")
    fields = {
        name: (
            {**field, "schema": core_schema.with_default_schema(field["schema"], default=defaults[name])}
            if name in defaults
            else field
        )
        for name, field in schema["fields"].items()
    }
    return {**schema, "fields": fields}


def _default_value(default: Any) -> Any:
    """A parameter's default as the input model gives it: unhashable defaults are copied per call."""
    try:
        hash(default)
    except TypeError:
        import copy

        return copy.deepcopy(default)
    return default


def _inside(place: tuple, places: set[tuple]) -> bool:
    """Whether ``place`` lies strictly within one of ``places`` (already explained from outside)."""
    return any(len(other) < len(place) and place[: len(other)] == other for other in places)


def _only_integral_floats(exc: ValidationError) -> bool:
    return all(
        e["type"] == "int_type" and type(e["input"]) is float and e["input"].is_integer()
        for e in exc.errors(include_url=False)
    )


def _in_defs(schema: Any, defs: dict | None) -> Any:
    """``schema`` through its ``$ref`` s into ``defs`` (``{}`` for one that cannot be followed)."""
    if defs is None or not isinstance(schema, dict) or "$ref" not in schema:
        return schema
    target = resolved(schema, {"$defs": defs})
    return {} if target is None else target


def _expected_from_schema(schema: dict, defs: dict | None = None) -> str:
    schema = _in_defs(schema, defs)
    if not isinstance(schema, dict):
        return "a value"
    if "const" in schema:
        return f"exactly {json.dumps(schema['const'])}"
    if "enum" in schema:
        return "one of " + ", ".join(json.dumps(v) for v in schema["enum"])
    branches = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(branches, list) and any(_has_choices(branch, defs) for branch in branches):
        # Optional[SomeEnum] and friends: name the allowed values, as the schema-only engine does,
        # rather than the bare types ("null or string") the branches reduce to
        parts = [_expected_from_schema(branch, defs) for branch in branches]
        return " or ".join(dict.fromkeys(part for part in parts if part != "a value")) or "a value"
    types = sorted(schema_type_of(schema, defs))
    if not types:
        return "a value"
    if types == ["string"] and schema.get("format") in FORMAT_EXPECTED:
        return FORMAT_EXPECTED[schema["format"]]
    return " or ".join(types)


def _has_choices(schema: Any, defs: dict | None) -> bool:
    """Whether ``schema`` (through one ``$ref``) lists its allowed values (``enum`` / ``const``)."""
    schema = _in_defs(schema, defs)
    return isinstance(schema, dict) and ("enum" in schema or "const" in schema)


def _expected_at(order: SchemaOrder, loc: list) -> str:
    """What a nested field expects (its schema found through ``$ref`` and unions), as for top-level ones."""
    defs = order.defs
    for schema in order.schemas_at(loc):
        expected = _expected_from_schema(schema, defs)
        if expected != "a value":
            return expected
    return "a value"


#: string format → what it expects, in messages ("a date (YYYY-MM-DD)" rather than "string")
FORMAT_EXPECTED: dict[str, str] = {
    "date": "a date (YYYY-MM-DD)",
    "date-time": "a date-time (YYYY-MM-DDTHH:MM[:SS])",
    "time": "a time (HH:MM[:SS])",
    "email": "an email address",
    "uuid": "a UUID",
    "uri": "a URI",
    "duration": "an ISO 8601 duration (e.g. PT30S)",
}


#: jsonschema keyword → how to say what was expected
_EXPECTED_BY_KEYWORD: dict[str, Callable[[Any], str]] = {
    "type": lambda v: " or ".join(v) if isinstance(v, list) else str(v),
    "enum": lambda v: "one of " + ", ".join(json.dumps(x) for x in v),
    "const": lambda v: f"exactly {json.dumps(v)}",
    "minimum": lambda v: f"a number >= {v}",
    "maximum": lambda v: f"a number <= {v}",
    "exclusiveMinimum": lambda v: f"a number > {v}",
    "exclusiveMaximum": lambda v: f"a number < {v}",
    "minLength": lambda v: f"a string of at least {v} characters",
    "maxLength": lambda v: f"a string of at most {v} characters",
    "pattern": lambda v: f"a string matching /{v}/",
    "minItems": lambda v: f"at least {v} items",
    "maxItems": lambda v: f"at most {v} items",
    "uniqueItems": lambda v: "unique items",
    "multipleOf": lambda v: f"a multiple of {v}",
    "format": lambda v: FORMAT_EXPECTED.get(v, f"a string in {v} format"),
}


class SchemaInputValidator:
    """``jsonschema`` validation for tools defined by a JSON Schema only."""

    def __init__(self, parameters: dict) -> None:
        self._parameters = parameters
        self._order = SchemaOrder(parameters)
        props = parameters.get("properties", {}) or {}
        defs = parameters.get("$defs")
        self._json_params = frozenset(
            name
            for name, sub in props.items()
            if isinstance(sub, dict)
            and schema_type_of(sub, defs) & {"array", "object"}
            and "string" not in schema_type_of(sub, defs)
        )

    @cached_property
    def _validator(self):
        import jsonschema

        schema = dict(self._parameters)
        # Tool parameters are closed unless the schema says otherwise (neurosurfer's "no extras").
        schema.setdefault("additionalProperties", False)
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        try:
            cls.check_schema(schema)
        except jsonschema.SchemaError as exc:
            raise ToolSpecError(f"parameters is not a valid JSON Schema: {exc.message}") from None
        return cls(schema, format_checker=cls.FORMAT_CHECKER)

    def __call__(self, tool_name: str, raw: Any) -> dict:
        if not isinstance(raw, dict):
            raise _not_an_object(tool_name, raw)
        raw = _parse_json_strings(tool_name, raw, self._json_params)
        non_finite = _scan(tool_name, raw)
        try:
            validator = self._validator
        except ToolSpecError as exc:
            raise ToolSpecError(f"Tool '{tool_name}': {exc}") from None
        try:
            errors = list(validator.iter_errors(raw))
        except RecursionError:  # a schema heavy enough to exhaust the stack within the depth limit
            raise ToolInputError(
                tool_name,
                [
                    {
                        "path": "$",
                        "field": "$",
                        "expected": "an input this tool's schema can be checked against",
                        "received": "an input nested too deeply for its schema",
                        "message": f"input nests too deeply to be checked against this tool's schema (at most {MAX_INPUT_DEPTH} "
                        f"levels, fewer for schemas with many references)",
                    }
                ],
            ) from None
        except Exception as exc:  # noqa: BLE001 - e.g. a $ref that points nowhere: the spec's fault, said plainly
            raise ToolSpecError(
                f"Tool '{tool_name}': its parameters schema cannot be applied: {type(exc).__name__}: {exc}"
            ) from None
        if errors or non_finite:
            found = _from_jsonschema(errors, _non_finite(raw) if non_finite else [], raw, self._parameters)
            raise _sorted(tool_name, found, self._order, raw)
        return raw


def _from_jsonschema(errors: list, non_finite: list[list], raw: dict, parameters: dict) -> list[tuple[list, dict]]:
    """jsonschema's errors, and the places of NaN/Infinity, as (location, error) pairs."""
    found: list[tuple[list, dict]] = [(loc, _error(loc, _FINITE_EXPECTED, _value_at(raw, loc))) for loc in non_finite]
    explained = {tuple(loc) for loc in non_finite}  # NaN > 3 and the like need no second word
    defs = parameters.get("$defs")
    seen: set[tuple] = set()
    for err in errors:
        err = _most_telling(err)
        loc = list(err.absolute_path)
        if tuple(loc) in explained:
            continue
        if err.validator == "required":
            # one error per missing name (jsonschema's messages quote the name; the schema names it plainly)
            for missing in _missing(err):
                sub = (err.schema.get("properties") or {}).get(missing, {})
                expected = _expected_from_schema(sub, defs) if sub else "a value"
                found.append((loc + [missing], _error(loc + [missing], expected, None, missing=True)))
        elif err.validator in ("additionalProperties", "unevaluatedProperties"):
            declared = err.schema.get("properties") or {}
            allowed = ", ".join(declared) or "no parameters"
            for key in err.instance:
                if key not in declared and _is_extra(err, key):
                    found.append(
                        (
                            loc + [key],
                            _error(
                                loc + [key], f"one of the parameters ({allowed})", err.instance[key], unexpected=True
                            ),
                        )
                    )
        else:
            found.append((loc, _error(loc, _expected_by_keyword(err), err.instance)))
    unique = []
    for loc, error in found:  # "required" errors each see every missing name
        if (error["path"], error["message"]) not in seen:
            seen.add((error["path"], error["message"]))
            unique.append((loc, error))
    return unique


def _most_telling(err: Any) -> Any:
    """An ``anyOf``/``oneOf`` error whose alternatives failed deeper in: the alternative's error that tells most."""
    while err.validator in ("anyOf", "oneOf") and err.context and any(e.relative_path for e in err.context):
        from jsonschema.exceptions import relevance

        # the most relevant alternative among those that got inside the value (best_match would prefer
        # the shallow "expected null" of an Optional[Model] whose model failed on one field, and would
        # descend into that error's own alternatives, losing "… or null" there)
        err = max((e for e in err.context if e.relative_path), key=relevance)
    return err


def _expected_by_keyword(err: Any) -> str:
    if err.validator in ("anyOf", "oneOf") and err.context:
        said: list[str] = []
        for alternative in err.context:  # all at this place (see _most_telling): "number or string matching …"
            text = _expected_by_keyword(alternative)
            if text not in said:
                said.append(text)
        return " or ".join(said)
    describe = _EXPECTED_BY_KEYWORD.get(err.validator)
    return describe(err.validator_value) if describe else err.message


def _missing(err: Any) -> list[str]:
    required = err.validator_value if isinstance(err.validator_value, list) else []
    instance = err.instance if isinstance(err.instance, dict) else {}
    return [name for name in required if isinstance(name, str) and name not in instance]


def _is_extra(err: Any, key: str) -> bool:
    """Whether ``key`` is one of the keys the additionalProperties error is about (not a patternProperties one)."""
    import re

    patterns = err.schema.get("patternProperties") or {}
    return not any(re.search(pattern, key) for pattern in patterns)


def _value_at(raw: Any, loc: list) -> Any:
    for part in loc:
        raw = raw[part]
    return raw
