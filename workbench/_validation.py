"""Runtime input validation behind ``ToolSpec.check_inputs``.

Two engines share one error format:

* function tools validate through their pydantic model in *strict JSON*
  semantics (``bool`` is never a number, ``"5"`` is not an integer, but an ISO
  string is a ``date``), returning converted Python values;
* schema-only tools validate with ``jsonschema`` (Draft 2020-12) and return
  the input unchanged.
"""

from __future__ import annotations

import json
from functools import cached_property
from typing import Any, Callable

from pydantic import ValidationError

from workbench._errors import ToolInputError, ToolSpecError
from workbench._schema import FunctionInfo, schema_type_of

__all__ = ["FunctionInputValidator", "SchemaInputValidator", "json_type_name", "describe_value"]

_JSON_TYPE_NAMES: dict[type, str] = {
    bool: "boolean", int: "integer", float: "number", str: "string",
    list: "array", tuple: "array", dict: "object", type(None): "null",
}


def json_type_name(value: Any) -> str:
    """The JSON type of a Python value (``bool`` before ``int``), or its Python type name."""
    return _JSON_TYPE_NAMES.get(type(value), type(value).__name__)


def describe_value(value: Any, limit: int = 60) -> str:
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


def _error(field_loc: tuple | list, expected: str, received: Any, *, missing: bool = False, unexpected: bool = False) -> dict:
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
    return ToolInputError(tool_name, [_error((), "an object mapping parameter names to values", raw)])


def _parse_json_strings(raw: dict, names: frozenset[str]) -> dict:
    """Models often send list/dict arguments as JSON text; parse those (never for string parameters)."""
    if not names:
        return raw
    parsed = None
    for key in names:
        value = raw.get(key)
        if isinstance(value, str):
            try:
                decoded = json.loads(value)
            except ValueError:
                continue
            if isinstance(decoded, (list, dict)):
                if parsed is None:
                    parsed = dict(raw)
                parsed[key] = decoded
    return raw if parsed is None else parsed


class FunctionInputValidator:
    """Strict-JSON validation through a function tool's pydantic model."""

    __slots__ = ("_validator", "_fields", "_json_params", "_param_list", "_expected")

    def __init__(self, info: FunctionInfo) -> None:
        self._validator = info.input_model.__pydantic_validator__
        self._fields = info.field_names
        self._json_params = info.json_string_params
        self._param_list = ", ".join(info.param_names) or "no parameters"
        props = info.parameters.get("properties", {})
        defs = info.parameters.get("$defs")
        self._expected = {name: _expected_from_schema(sub, defs) for name, sub in props.items()}

    def __call__(self, tool_name: str, raw: Any) -> dict:
        if not isinstance(raw, dict):
            raise _not_an_object(tool_name, raw)
        raw = _parse_json_strings(raw, self._json_params)
        try:
            instance = self._validator.validate_python(raw, strict=True)
        except ValidationError as python_error:
            try:
                text = json.dumps(raw)
            except (TypeError, ValueError):
                raise self._convert(tool_name, python_error) from None
            try:
                instance = self._validator.validate_json(text, strict=True)
            except ValidationError as json_error:
                if not _only_integral_floats(json_error):
                    raise self._convert(tool_name, json_error) from None
                # JSON Schema counts 1.0 as an integer (models do send it); pydantic's strict mode does not
                instance = self._validator.validate_json(text, strict=False)
        values = instance.__dict__
        return {name: values[internal] for internal, name in self._fields}

    def _convert(self, tool_name: str, exc: ValidationError) -> ToolInputError:
        errors = []
        for err in exc.errors(include_url=False):
            loc, kind = err["loc"], err["type"]
            top = loc[0] if loc else None
            if kind == "missing":
                expected = self._expected.get(top, "a value") if len(loc) == 1 else "a value"
                errors.append(_error(loc, expected, None, missing=True))
            elif kind == "extra_forbidden":
                errors.append(_error(loc, f"one of the parameters ({self._param_list})" if len(loc) == 1 else "no extra keys", err["input"], unexpected=True))
            else:
                errors.append(_error(loc, self._expected_for(kind, loc, err), err["input"]))
        return ToolInputError(tool_name, errors)


    def _expected_for(self, kind: str, loc: tuple, err: dict) -> str:
        """Say what was expected in JSON Schema terms, as the schema-only engine does."""
        if kind in ("literal_error", "enum") and len(loc) == 1 and loc[0] in self._expected:
            return self._expected[loc[0]]
        json_type = _JSON_TYPE_BY_ERROR.get(kind)
        if json_type is not None:
            return json_type
        return err["msg"].removeprefix("Input should be ").removeprefix("Value error, ")


#: pydantic error type → the JSON type it means (the rest keep pydantic's own wording)
_JSON_TYPE_BY_ERROR: dict[str, str] = {
    "int_type": "integer", "int_parsing": "integer", "int_from_float": "integer",
    "float_type": "number", "float_parsing": "number",
    "string_type": "string", "bool_type": "boolean", "bool_parsing": "boolean", "none_required": "null",
    "list_type": "array", "tuple_type": "array", "set_type": "array", "frozen_set_type": "array",
    "dict_type": "object", "model_type": "object", "model_attributes_type": "object", "dataclass_type": "object",
}


def _only_integral_floats(exc: ValidationError) -> bool:
    return all(e["type"] == "int_type" and type(e["input"]) is float and e["input"].is_integer()
               for e in exc.errors(include_url=False))


def _expected_from_schema(schema: dict, defs: dict | None = None) -> str:
    types = sorted(schema_type_of(schema, defs))
    if "enum" in schema:
        return "one of " + ", ".join(json.dumps(v) for v in schema["enum"])
    if not types:
        return "a value"
    return " or ".join(types)


#: jsonschema keyword → how to say what was expected
_EXPECTED_BY_KEYWORD: dict[str, Callable[[Any], str]] = {
    "type": lambda v: (" or ".join(v) if isinstance(v, list) else str(v)),
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
    "format": lambda v: f"a string in {v} format",
}


class SchemaInputValidator:
    """``jsonschema`` validation for tools defined by a JSON Schema only."""

    def __init__(self, parameters: dict) -> None:
        self._parameters = parameters
        props = parameters.get("properties", {}) or {}
        defs = parameters.get("$defs")
        self._json_params = frozenset(
            name for name, sub in props.items()
            if isinstance(sub, dict) and schema_type_of(sub, defs) & {"array", "object"} and "string" not in schema_type_of(sub, defs)
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
        raw = _parse_json_strings(raw, self._json_params)
        try:
            validator = self._validator
        except ToolSpecError as exc:
            raise ToolSpecError(f"Tool '{tool_name}': {exc}") from None
        errors = []
        try:
            found = sorted(validator.iter_errors(raw), key=lambda e: list(e.absolute_path))
        except Exception as exc:  # noqa: BLE001 - e.g. a $ref that points nowhere: the spec's fault, said plainly
            raise ToolSpecError(f"Tool '{tool_name}': its parameters schema cannot be applied: "
                                f"{type(exc).__name__}: {exc}") from None
        for err in found:
            loc = list(err.absolute_path)
            if err.validator == "required":
                missing = err.message.split("'")[1] if "'" in err.message else "?"
                sub = (err.schema.get("properties") or {}).get(missing, {})
                errors.append(_error(loc + [missing], _expected_from_schema(sub) if sub else "a value", None, missing=True))
            elif err.validator in ("additionalProperties", "unevaluatedProperties"):
                allowed = ", ".join((err.schema.get("properties") or {}).keys()) or "no parameters"
                for key in sorted(set(err.instance) - set(err.schema.get("properties") or {})):
                    errors.append(_error(loc + [key], f"one of the parameters ({allowed})", err.instance[key], unexpected=True))
            else:
                describe = _EXPECTED_BY_KEYWORD.get(err.validator)
                expected = describe(err.validator_value) if describe else err.message
                errors.append(_error(loc, expected, err.instance))
        if errors:
            raise ToolInputError(tool_name, errors)
        return raw
