"""Property tests: the schema a model is shown and the validator that checks its calls agree.

(a) Function tools built from random signatures over the supported annotation types: the spec
    builds and validates, every value generated from its parameters schema passes
    ``check_inputs``, a bool never passes where only numbers may go (nor a number for a bool), and
    NaN/Infinity never pass.
(b) Schema-only tools with random JSON Schemas: ``check_inputs`` accepts exactly what
    ``jsonschema.Draft202012Validator`` accepts (tool parameters are closed unless they say
    otherwise, and a JSON string is parsed for an array/object parameter), except NaN/Infinity,
    which it always refuses.

Example counts are bounded so the file runs in seconds.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import inspect
import json
import math
import typing
import uuid
from decimal import Decimal
from typing import Annotated, Any, Literal, Optional

import jsonschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from pydantic import BaseModel, Field

from workbench import ToolInputError, ToolSpec, tool
from workbench._synthetic_draw import _patch_object_generation
from workbench._synthetic_schema import prepare

_patch_object_generation()  # hypothesis-jsonschema 0.23 generates objects through an API newer hypothesis dropped

FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))


# -- (a) function tools ------------------------------------------------------------------------------
class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Level(enum.Enum):
    LOW = 1
    HIGH = "high"


class Priority(enum.IntEnum):
    LOW = 0
    HIGH = 2


class Address(BaseModel):
    street: str
    number: int = 1
    unit: Optional[str] = None


class Reading(BaseModel):
    value: float
    sure: bool = True
    kind: Literal["a", 1, True] = "a"
    level: Level = Level.LOW
    amount: Optional[Decimal] = None


class Order(typing.TypedDict):
    sku: str
    qty: int


@dataclasses.dataclass
class Point:
    x: float
    y: float = 0.0


SUPPORTED: list[Any] = [
    str,
    int,
    float,
    bool,
    Optional[int],
    Optional[str],
    Optional[float],
    Literal["a", "b"],
    Literal[True],
    Literal[False],
    Literal[1, "a"],
    Literal[0, False],
    Literal[1, 2, 3],
    Literal[1.5, "x"],
    list[int],
    list[str],
    list[float],
    list[bool],
    dict[str, int],
    dict[str, float],
    tuple[int, str],
    set[int],
    set[str],
    Color,
    Level,
    Priority,
    dt.date,
    dt.datetime,
    uuid.UUID,
    Decimal,
    Optional[Decimal],
    Annotated[int, Field(ge=0, le=10)],
    Annotated[float, Field(gt=0, lt=1)],
    Annotated[str, Field(min_length=1, max_length=5)],
    Annotated[str, Field(pattern="^[a-z]+$")],
    Annotated[list[int], Field(max_length=3)],
    Address,
    Reading,
    list[Reading],
    Optional[Address],
    Order,
    Point,
]


#: formats are assertions here, as in check_inputs; hypothesis-jsonschema knows date and date-time itself
FORMATS = {"uuid": st.uuids().map(str)}


def make_function(annotations: list[Any]) -> Any:
    """A function whose parameters ``p0, p1, …`` carry these annotations."""

    def fuzzed(*args: Any, **kwargs: Any) -> None:
        return None

    params = [
        inspect.Parameter(f"p{i}", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=a)
        for i, a in enumerate(annotations)
    ]
    fuzzed.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    fuzzed.__annotations__ = {p.name: p.annotation for p in params}
    fuzzed.__doc__ = "A fuzzed tool."
    return fuzzed


def closed(parameters: dict) -> dict:
    """The parameters as check_inputs reads them: no keys beyond the declared ones."""
    return {**parameters, "additionalProperties": parameters.get("additionalProperties", False)}


def json_paths(value: Any, path: tuple = ()) -> list[tuple[tuple, Any]]:
    """(path, scalar) for every bool and number in a JSON value."""
    if isinstance(value, dict):
        return [found for key, child in value.items() for found in json_paths(child, path + (key,))]
    if isinstance(value, list):
        return [found for index, child in enumerate(value) for found in json_paths(child, path + (index,))]
    return [(path, value)] if isinstance(value, (bool, int, float)) else []


def replaced(value: Any, path: tuple, new: Any) -> Any:
    if not path:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = replaced(value[path[0]], path[1:], new)
    return copy


def accepts(spec: ToolSpec, raw: dict) -> bool:
    try:
        spec.check_inputs(raw)
    except ToolInputError:
        return False
    return True


@FUZZ
@given(annotations=st.lists(st.sampled_from(SUPPORTED), min_size=1, max_size=4), data=st.data())
def test_function_tool_schema_and_validator_agree(annotations, data):
    spec = tool(make_function(annotations)).spec
    spec.validate()
    schema = closed(spec.parameters)
    oracle = jsonschema.Draft202012Validator(schema)
    # prepare: hypothesis-jsonschema reads Draft 7 (tuple[...] is prefixItems in 2020-12)
    value = data.draw(from_schema(prepare(schema), custom_formats=FORMATS), label="inputs from the schema")
    spec.check_inputs(value)  # every value the schema allows passes

    sites = json_paths(value)
    if not sites:
        return
    path, old = data.draw(st.sampled_from(sites), label="a bool or number in it")
    swapped = replaced(value, path, (1 if old else 0) if isinstance(old, bool) else bool(old))
    # a bool where a number was (or back): accepted exactly when the schema says so
    assert accepts(spec, swapped) == oracle.is_valid(swapped), (path, old, swapped)
    if not isinstance(old, bool):
        for bad in (math.nan, math.inf, -math.inf):
            assert not accepts(spec, replaced(value, path, bad)), (path, bad)


# -- (b) schema-only tools ---------------------------------------------------------------------------
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.sampled_from([0.0, 1.0, 1.5, -2.5]),
    st.sampled_from(["", "a", "1", "true"]),
)
PATTERNS = ["^[a-z]+$", "^[0-9]{2,4}$", "a", "^(yes|no)$"]


@st.composite
def bounds(draw, kind: str) -> dict:
    numbers = st.integers(-10, 10) if kind == "integer" else st.sampled_from([-2.5, -1, 0, 0.5, 3])
    low, high = sorted([draw(numbers), draw(numbers)])
    out: dict = {"type": kind}
    if draw(st.booleans()):
        out["minimum"] = low
    if draw(st.booleans()):
        out["maximum"] = high
    return out


@st.composite
def strings(draw) -> dict:
    out: dict = {"type": "string"}
    if draw(st.booleans()):
        out["pattern"] = draw(st.sampled_from(PATTERNS))
    elif draw(st.booleans()):
        low = draw(st.integers(0, 3))
        out.update(minLength=low, maxLength=low + draw(st.integers(0, 3)))
    return out


LEAVES = st.one_of(
    bounds("integer"),
    bounds("number"),
    strings(),
    st.just({"type": "boolean"}),
    st.just({"type": "null"}),
    st.lists(SCALARS, min_size=1, max_size=4, unique_by=lambda v: (type(v) is bool, v)).map(
        lambda values: {"enum": values}
    ),
    SCALARS.map(lambda value: {"const": value}),
)


def objects(children: st.SearchStrategy) -> st.SearchStrategy:
    @st.composite
    def build(draw) -> dict:
        props = draw(st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), children, max_size=3))
        out: dict = {"type": "object", "properties": props}
        if props:
            out["required"] = draw(st.lists(st.sampled_from(sorted(props)), unique=True))
        if draw(st.booleans()):
            out["additionalProperties"] = draw(st.booleans())
        return out

    return build()


SCHEMAS = st.recursive(
    LEAVES,
    lambda children: st.one_of(
        objects(children),
        st.builds(
            lambda items, size: {"type": "array", "items": items, **size},
            children,
            st.sampled_from([{}, {"maxItems": 2}, {"minItems": 1}]),
        ),
        st.lists(children, min_size=2, max_size=3).map(lambda alternatives: {"anyOf": alternatives}),
    ),
    max_leaves=6,
)


@st.composite
def parameters_schemas(draw) -> dict:
    props = draw(st.dictionaries(st.sampled_from(["x", "y", "z"]), SCHEMAS, min_size=1, max_size=3))
    out: dict = {"type": "object", "properties": props}
    required = draw(st.lists(st.sampled_from(sorted(props)), unique=True))
    if required:
        out["required"] = required
    return out


JSON_VALUES = st.recursive(
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(st.sampled_from(["a", "b", "x"]), children, max_size=3)
    ),
    max_leaves=6,
)


def oracle_view(schema: dict, raw: dict) -> dict:
    """``raw`` with the JSON-string arguments check_inputs parses (array/object-only parameters)."""
    out = dict(raw)
    for name, sub in schema["properties"].items():
        kinds = jsonschema_types(sub)
        if isinstance(out.get(name), str) and kinds and kinds <= {"array", "object"}:
            try:
                decoded = json.loads(out[name])
            except ValueError:
                continue
            if isinstance(decoded, (list, dict)):
                out[name] = decoded
    return out


def jsonschema_types(sub: dict) -> set:
    if "type" in sub:
        return {sub["type"]}
    return set().union(*(jsonschema_types(s) for s in sub.get("anyOf", []))) if "anyOf" in sub else set()


def has_non_finite(value: Any) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, dict):
        return any(has_non_finite(v) for v in value.values())
    if isinstance(value, list):
        return any(has_non_finite(v) for v in value)
    return False


@FUZZ
@given(schema=parameters_schemas(), data=st.data())
def test_schema_only_tool_agrees_with_jsonschema(schema, data):
    spec = ToolSpec(name="fuzzed", description="A fuzzed schema-only tool.", parameters=schema)
    spec.validate()
    oracle = jsonschema.Draft202012Validator(closed(schema))
    valid = data.draw(from_schema(closed(schema)), label="valid inputs")
    candidates = [valid]
    sites = json_paths(valid)
    if sites:
        path, old = data.draw(st.sampled_from(sites), label="a bool or number")
        candidates.append(replaced(valid, path, (1 if old else 0) if isinstance(old, bool) else bool(old)))
        candidates.append(
            replaced(valid, path, data.draw(st.sampled_from([math.nan, math.inf, -math.inf]), label="non-finite"))
        )
    candidates.append(
        data.draw(st.dictionaries(st.sampled_from(["x", "y", "z", "w"]), JSON_VALUES, max_size=3), label="any inputs")
    )
    for raw in candidates:
        expected = oracle.is_valid(oracle_view(schema, raw)) and not has_non_finite(raw)
        assert accepts(spec, raw) == expected, raw
