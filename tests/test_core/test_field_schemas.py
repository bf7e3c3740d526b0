"""Shared per-parameter schemas (issue #22, ``workbench._field_schemas``) give exactly the schema the
tool's own pydantic model gives — key order included — and the model waits for the first call."""

from __future__ import annotations

import datetime
import decimal
import enum
import inspect
import itertools
import json
import typing
import uuid
from typing import Annotated, Any, Literal, Optional, Union

import pytest
from pydantic import BaseModel, Field

from workbench import _field_schemas, tool
from workbench._schema import ToolJsonSchema, _input_model, _parameters_schema

EMPTY = inspect.Parameter.empty


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Point(BaseModel):
    x: int
    y: int = 0


SHAREABLE = [
    str,
    int,
    float,
    bool,
    bytes,
    type(None),
    Any,
    list,
    dict,
    tuple,
    set,
    frozenset,
    list[int],
    list[str],
    dict[str, int],
    dict[str, list[int]],
    tuple[int, str],
    tuple[int, ...],
    set[str],
    frozenset[int],
    Optional[int],
    Union[int, str],
    int | None,
    str | int | None,
    Literal["a", "b"],
    Literal[1, 2],
    Literal["a", None],
    Optional[Literal["x", "y"]],
    Annotated[int, Field(description="own")],
    Annotated[str, "a note"],
    Annotated[int, Field(ge=0, le=9)],
    datetime.date,
    datetime.datetime,
    datetime.time,
    datetime.timedelta,
    decimal.Decimal,
    uuid.UUID,
    list[Optional[float]],
    Optional[list[dict[str, Any]]],
    Literal[True],
]
NOT_SHARED = [Colour, Point, Optional[Point], list[Colour], dict[str, Point]]
DEFAULTS = [EMPTY, None, 0, 7, 1.5, "x", True, False, "", [1], float("inf"), (1, 2)]


def model_path(fields: list[tuple[str, Any, Any, Optional[str]]]) -> dict:
    """The tool's ``parameters`` through one pydantic model of every field (the path before #22)."""
    model_fields = {}
    for index, (name, annotation, default, description) in enumerate(fields):
        kwargs: dict[str, Any] = {"alias": name}
        if default is not EMPTY:
            kwargs["default"] = default
        if description is not None:
            kwargs["description"] = description
        model_fields[f"p{index}"] = (annotation, Field(**kwargs))
    raw = _input_model("probe_inputs", model_fields).model_json_schema(by_alias=True, schema_generator=ToolJsonSchema)
    return _parameters_schema(raw)


def shared_path(fields: list[tuple[str, Any, Any, Optional[str]]]) -> Optional[dict]:
    """The schema from remembered parameter schemas, after a tool with one parameter of this kind (another
    name, description and default) took the model path and was remembered."""
    name, annotation, default, description = fields[0]
    first_default = {
        str: lambda d: d + "-first",
        int: lambda d: d + 1,
        float: lambda d: d + 0.25,
        bool: lambda d: not d,
    }.get(type(default), lambda d: d)(default)
    first = [("first_" + name, annotation, first_default, None if description is None else "first " + description)]
    _field_schemas.remember(first, model_path(first))
    return _field_schemas.shared_parameters(fields)


@pytest.mark.parametrize("annotation", SHAREABLE, ids=repr)
def test_a_shared_parameter_schema_is_the_models_own(annotation):
    for default, description in itertools.product(DEFAULTS, (None, "what it is")):
        fields = [("value_of_it", annotation, default, description)]
        shared = shared_path(fields)
        if shared is None:
            # only a default pydantic must encode (a list, a tuple, infinity) keeps a plain type off the path
            assert default in ([1], (1, 2)) or default == float("inf"), (annotation, default)
            continue
        expected = model_path(fields)
        assert json.dumps(shared) == json.dumps(expected), (annotation, default, description)


@pytest.mark.parametrize("annotation", NOT_SHARED, ids=repr)
def test_parameters_with_definitions_take_the_model_path(annotation):
    fields = [("value_of_it", annotation, EMPTY, "described")]
    assert shared_path(fields) is None
    # either way the tool's schema is the model's
    namespace: dict[str, Any] = {"A": annotation}
    exec("def probe(value_of_it: A):\n    '''Probe.\n\n    Args:\n        value_of_it: described\n    '''\n", namespace)  # noqa: S102
    assert json.dumps(tool(namespace["probe"]).spec.parameters) == json.dumps(model_path(fields))


def test_a_whole_tool_mixing_many_kinds_gets_the_models_schema():
    def mixed(
        query: str,
        limit: int = 10,
        ratio: float = 0.5,
        mode: Literal["fast", "full"] = "fast",
        tags: Optional[list[str]] = None,
        when: Optional[datetime.date] = None,
        flag: bool = False,
        extra: dict[str, Any] | None = None,
        amount: decimal.Decimal = decimal.Decimal("1.5"),
    ) -> dict:
        """Mixed.

        Args:
            query: the query
            limit: at most this many
            mode: how
            tags: labels
        """
        return {}

    signature, hints = inspect.signature(mixed), typing.get_type_hints(mixed, include_extras=True)
    docs = {"query": "the query", "limit": "at most this many", "mode": "how", "tags": "labels"}
    fields = [(name, hints[name], p.default, docs.get(name)) for name, p in signature.parameters.items()]
    assert json.dumps(tool(mixed).spec.parameters) == json.dumps(model_path(fields))


def test_two_tools_with_the_same_parameter_kinds_keep_their_own_descriptions():
    def first(city: str, days: int = 3) -> str:
        """First.

        Args:
            city: the city to forecast
            days: how many days
        """
        return city

    def second(city: str, days: int = 3) -> str:
        """Second.

        Args:
            city: where the shipment goes
        """
        return city

    a, b = tool(first).spec.parameters, tool(second).spec.parameters
    assert a["properties"]["city"]["description"] == "the city to forecast"
    assert b["properties"]["city"]["description"] == "where the shipment goes"
    assert "description" not in b["properties"]["days"]
    a["properties"]["city"]["type"] = "changed"  # a copy per tool: the shared schema is untouched
    assert tool(second).spec.parameters["properties"]["city"]["type"] == "string"


def test_the_input_model_is_built_on_the_first_call_and_validates_as_before():
    from workbench._schema import inspect_function

    def lookup(query: str, limit: int = 10) -> dict:
        """Look up.

        Args:
            query: what
            limit: how many
        """
        return {"query": query, "limit": limit}

    def earlier(query: str, limit: int = 5) -> dict:
        """A tool with parameters of the same kinds, built before.

        Args:
            query: the query
            limit: at most
        """
        return {}

    inspect_function(earlier)  # the model path if these kinds are new here: then remembered
    info = inspect_function(lookup)
    assert info._model == []  # reading the schema built no model
    built = tool(lookup)
    assert built.spec.parameters["required"] == ["query"]
    assert built.spec.check_inputs({"query": "x"}) == {"query": "x", "limit": 10}
    with pytest.raises(Exception) as refused:
        built.spec.check_inputs({"query": 3, "limit": "many"})
    message = str(refused.value)
    assert "lookup" in message and "query: expected string" in message and "limit: expected integer" in message
    assert issubclass(info.input_model, BaseModel) and info.input_model is info.input_model


def test_members_in_another_order_are_another_schema():
    """``Union[int, str] == Union[str, int]`` and ``Literal["a", "b"] == Literal["b", "a"]`` in Python, but
    their schemas list the members in the order written."""
    for first, second in (
        (Union[int, str], Union[str, int]),
        (int | None, None | int),
        (Literal["a", "b"], Literal["b", "a"]),
        (list[Union[int, str]], list[Union[str, int]]),
        (Literal[1], Literal[True]),
    ):
        assert first == second or first is Literal[1]
        for annotation in (first, second):
            fields = [("value_of_it", annotation, EMPTY, "d")]
            assert json.dumps(shared_path(fields)) == json.dumps(model_path(fields)), annotation
