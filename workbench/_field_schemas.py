"""A tool's ``parameters`` put together from per-parameter schemas shared across tools (issue #22).

Reading a tool's JSON Schema through its own pydantic model (``create_model`` then
``model_json_schema``) cost about 2× pydantic's ``TypeAdapter(fn).json_schema()`` per tool, and a
catalog of 1,000 tools paid it 1,000 times for the same few kinds of parameter. A parameter's schema
depends only on its annotation, its default and its description. So the first tool with a parameter of
one kind — ``(annotation, has a default?, has a description?)`` — takes the model path, and its
schema for that parameter is remembered (:func:`remember`); later tools whose parameters are all of
remembered kinds copy them, with their own default and description put in (:func:`shared_parameters`).
Their input model is built when the tool validates its first call (``FunctionInfo.input_model``).

Only parameters whose schema stands alone are remembered: no ``$ref`` (a model or an enum, whose
definition names can collide between parameters), no NaN/Infinity mark, and a default that is a JSON
scalar (pydantic's encoding of those is the value itself). ``tests/test_core/test_field_schemas.py`` checks that
both paths give the same schema, key order included.
"""

from __future__ import annotations

import inspect
import json
import math
import threading
import typing
from typing import Any, Optional

from workbench._json_copy import copy_json

__all__ = ["shared_parameters", "remember", "is_json_scalar"]

_EMPTY = inspect.Parameter.empty
_JSON_NATIVE = frozenset({str, int, bool, type(None)})


def is_json_scalar(value: Any) -> bool:
    """A string, integer, boolean, ``None`` or finite float: a default pydantic's JSON Schema encoding
    leaves as it is (so ``ToolJsonSchema`` writes it directly, and a shared schema takes it as it is)."""
    kind = type(value)
    return kind in _JSON_NATIVE or (kind is float and math.isfinite(value))


#: key → (property schema as first seen, required); bounded: cleared when full
_SHARED: dict[tuple, tuple[dict, bool]] = {}
_SHARED_MAX = 4096
_LOCK = threading.Lock()

#: (name, annotation, default or inspect.Parameter.empty, description or None)
Parameter = tuple[str, Any, Any, Optional[str]]


def _shape(annotation: Any, depth: int = 0) -> Any:
    """``annotation`` as a key that keeps the order of its arguments: ``Union[int, str] == Union[str, int]``
    and ``Literal[1, 2] == Literal[2, 1]``, but their schemas list the members in order; and a literal's
    type counts (``Literal[1]`` is not ``Literal[True]``)."""
    args = typing.get_args(annotation)
    if not args or depth > 8:
        return annotation
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return origin, tuple((type(value), value) for value in args)
    return origin, tuple(_shape(arg, depth + 1) for arg in args)


def _key(annotation: Any, default: Any, described: bool) -> Optional[tuple]:
    """The cache key of one parameter, or None when its default is not a JSON scalar (pydantic encodes
    those per value) or its annotation cannot be hashed."""
    if default is not _EMPTY and not is_json_scalar(default):
        return None
    key = (_shape(annotation), default is not _EMPTY, described)
    try:
        hash(key)
    except TypeError:  # unhashable Annotated metadata
        return None
    return key


def shared_parameters(fields: list[Parameter]) -> Optional[dict]:
    """``parameters`` for ``fields`` from remembered schemas, or None when one of them is of a kind not
    remembered (the caller then takes the model path, and :func:`remember` its schema)."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, annotation, default, description in fields:
        key = _key(annotation, default, description is not None)
        entry = _SHARED.get(key) if key is not None else None
        if entry is None:
            return None
        schema, is_required = entry
        schema = copy_json(schema)
        # these keys are there (the key says so): assigning keeps their place in the schema
        if description is not None:
            schema["description"] = description
        if default is not _EMPTY:
            schema["default"] = default
        properties[name] = schema
        if is_required:
            required.append(name)
    parameters: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        parameters["required"] = required
    return parameters


def remember(fields: list[Parameter], parameters: dict) -> None:
    """Remember the schema of each parameter of ``fields`` that stands alone in ``parameters`` (a tool's
    schema from the model path, without NaN/Infinity marks)."""
    properties = parameters.get("properties") or {}
    required = parameters.get("required") or ()
    for name, annotation, default, description in fields:
        key = _key(annotation, default, description is not None)
        schema = properties.get(name)
        if key is None or key in _SHARED or not isinstance(schema, dict) or "$ref" in json.dumps(schema):
            continue
        # the description and default at the top are this parameter's own, or it is not remembered
        if description is not None and schema.get("description") != description:
            continue
        if default is not _EMPTY and (
            schema.get("default") != default or type(schema.get("default")) is not type(default)
        ):
            continue
        with _LOCK:
            if len(_SHARED) >= _SHARED_MAX:
                _SHARED.clear()
            _SHARED[key] = (copy_json(schema), name in required)
