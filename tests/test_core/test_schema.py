"""Schema generation from signatures — every listed type, docstring styles, context hiding."""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import typing
import uuid
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Literal, Optional, Union

import pytest
from pydantic import BaseModel, Field

from workbench import ToolContext, ToolInputError, ToolSpecError, tool
from workbench.types import ToolUse


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Address(BaseModel):
    street: str
    zip: str = "00000"


@dataclasses.dataclass
class Point:
    x: int
    y: int = 0


class Movie(typing.TypedDict):  # typing.TypedDict on purpose: pydantic rejects it before 3.12
    title: str
    year: int


def props_of(fn):
    return tool(fn).spec.parameters["properties"]


@pytest.mark.parametrize(
    "annotation, expected",
    [
        (str, {"type": "string"}),
        (int, {"type": "integer"}),
        (float, {"type": "number"}),
        (bool, {"type": "boolean"}),
        (list, {"type": "array"}),
        (dict, {"type": "object"}),
        (type(None), {"type": "null"}),
        (list[int], {"type": "array", "items": {"type": "integer"}}),
        (dict[str, float], {"type": "object", "additionalProperties": {"type": "number"}}),
        (
            tuple[int, str],
            {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "minItems": 2, "maxItems": 2},
        ),
        (set[str], {"type": "array", "items": {"type": "string"}, "uniqueItems": True}),
        (Optional[int], {"anyOf": [{"type": "integer"}, {"type": "null"}]}),
        (int | None, {"anyOf": [{"type": "integer"}, {"type": "null"}]}),
        (Union[int, str], {"anyOf": [{"type": "integer"}, {"type": "string"}]}),
        (Literal["a", "b"], {"type": "string", "enum": ["a", "b"]}),
        (dt.datetime, {"type": "string", "format": "date-time"}),
        (dt.date, {"type": "string", "format": "date"}),
        (dt.time, {"type": "string", "format": "time"}),
        (uuid.UUID, {"type": "string", "format": "uuid"}),
        (Path, {"type": "string", "format": "path"}),
        (
            Annotated[int, Field(ge=1, le=10, description="How many")],
            {"type": "integer", "minimum": 1, "maximum": 10, "description": "How many"},
        ),
        (
            Annotated[str, Field(min_length=2, pattern="^[a-z]+$")],
            {"type": "string", "minLength": 2, "pattern": "^[a-z]+$"},
        ),
    ],
)
def test_type_to_schema(annotation, expected):
    def f(value):
        """Doc."""

    f.__annotations__ = {"value": annotation}
    assert props_of(f)["value"] == expected


def test_decimal_is_number_or_numeric_string():
    def f(amount: Decimal):
        """Doc."""

    schema = props_of(f)["amount"]
    assert {"type": "number"} in schema["anyOf"] and any(s.get("type") == "string" for s in schema["anyOf"])
    assert tool(f).spec.check_inputs({"amount": "1.50"}) == {"amount": Decimal("1.50")}


def test_enum_and_nested_models_use_defs():
    def f(color: Color, address: Address, point: Point, movie: Movie):
        """Doc."""

    params = tool(f).spec.parameters
    assert params["properties"]["color"] == {"$ref": "#/$defs/Color"}
    assert params["$defs"]["Color"] == {"type": "string", "enum": ["red", "blue"]}
    assert params["$defs"]["Address"]["properties"]["zip"] == {"type": "string", "default": "00000"}
    assert params["$defs"]["Address"]["required"] == ["street"]
    assert params["$defs"]["Point"]["required"] == ["x"]
    assert params["$defs"]["Movie"]["properties"] == {"title": {"type": "string"}, "year": {"type": "integer"}}
    assert "title" not in params and "title" not in params["$defs"]["Address"]  # pydantic's titles are dropped


def test_nested_arguments_arrive_as_instances():
    seen = {}

    @tool
    def f(address: Address, point: Point, movie: Movie, color: Color, when: dt.date, ids: set[int]):
        """Doc."""
        seen.update(locals())

    args = f.spec.check_inputs(
        {
            "address": {"street": "Main"},
            "point": {"x": 1},
            "movie": {"title": "M", "year": 1999},
            "color": "red",
            "when": "2024-02-29",
            "ids": [1, 2, 2],
        }
    )
    f(**args)
    assert isinstance(seen["address"], Address) and seen["address"].zip == "00000"
    assert seen["point"] == Point(1, 0)
    assert seen["movie"] == {"title": "M", "year": 1999}
    assert seen["color"] is Color.RED
    assert seen["when"] == dt.date(2024, 2, 29)
    assert seen["ids"] == {1, 2}


def test_defaults_required_and_optional_none():
    def f(a: int, b: str = "x", c: int | None = None):
        """Doc."""

    params = tool(f).spec.parameters
    assert params["required"] == ["a"]
    assert params["properties"]["b"] == {"type": "string", "default": "x"}
    assert params["properties"]["c"] == {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None}


def test_returns_schema():
    def none() -> None:
        """Doc."""

    def unannotated():
        """Doc."""

    def model() -> Address:
        """Doc."""

    assert tool(none).spec.returns == {"type": "null"}
    assert tool(unannotated).spec.returns == {}
    assert tool(model).spec.returns["properties"]["street"] == {"type": "string"}


GOOGLE = """Add numbers.

    Longer body
    text.

    Args:
        a: The first.
        b: The second,
            continued.

    Returns:
        The sum.
    """
NUMPY = """Add numbers.

    Longer body
    text.

    Parameters
    ----------
    a : int
        The first.
    b : int
        The second,
        continued.

    Returns
    -------
    int
        The sum.
    """
SPHINX = """Add numbers.

    Longer body
    text.

    :param a: The first.
    :param b: The second,
        continued.
    :returns: The sum.
    """


@pytest.mark.parametrize("doc", [GOOGLE, NUMPY, SPHINX], ids=["google", "numpy", "sphinx"])
def test_docstring_styles(doc):
    def add(a: int, b: int) -> int:
        return a + b

    add.__doc__ = doc
    spec = tool(add).spec
    assert spec.description == "Add numbers.\n\nLonger body\ntext."
    assert spec.parameters["properties"]["a"]["description"] == "The first."
    assert spec.parameters["properties"]["b"]["description"] == "The second, continued."


def test_annotated_description_wins_over_docstring():
    def f(a: Annotated[int, Field(description="from Field")]):
        """Doc.

        Args:
            a: from docstring
        """

    assert props_of(f)["a"]["description"] == "from Field"


def test_context_parameters_hidden_and_injected():
    @tool
    def by_annotation(q: str, anything: ToolContext) -> str:
        """Doc."""
        return anything.tool_use["toolUseId"]

    @tool(context=True)
    def by_flag(q: str, tool_context) -> str:
        """Doc."""
        return tool_context.tool_use["toolUseId"]

    @tool(context="c")
    def by_name(q: str, c: Optional[ToolContext] = None) -> str:
        """Doc."""
        return c.tool_use["toolUseId"]

    from workbench import SequentialExecutor, ToolRegistry

    registry = ToolRegistry([by_annotation, by_flag, by_name])
    for t in registry:
        assert list(t.spec.parameters["properties"]) == ["q"]
        assert t.spec.param_names == ["q"]
        use: ToolUse = {"toolUseId": f"id-{t.tool_name}", "name": t.tool_name, "input": {"q": "x"}}
        assert SequentialExecutor().run([use], registry)[0].text == f"id-{t.tool_name}"


def test_context_flag_without_parameter_is_an_error():
    def f(q: str):
        """Doc."""

    with pytest.raises(ToolSpecError, match="context=True needs a parameter named 'tool_context'"):
        tool(f, context=True)


@pytest.mark.parametrize(
    "source, star", [("def f(a: int, *args): pass", "*args"), ("def f(a: int, **kw): pass", "**kw")]
)
def test_star_args_rejected(source, star):
    namespace: dict = {}
    exec(source, namespace)
    with pytest.raises(ToolSpecError) as info:
        tool(namespace["f"])
    assert f"Tool 'f': parameter '{star}' is not supported" in str(info.value)


def test_unschemable_parameter_type_is_a_clear_error():
    class Opaque:
        pass

    def f(thing: Opaque):
        """Doc."""

    with pytest.raises(ToolSpecError, match="parameter 'thing' has a type that cannot be expressed as JSON Schema"):
        tool(f)


def test_unresolvable_forward_reference():
    def f(thing: "DoesNotExist"):  # noqa: F821
        """Doc."""

    with pytest.raises(ToolSpecError, match="cannot resolve the type hints"):
        tool(f)


def test_parameter_names_that_shadow_pydantic_attributes():
    @tool
    def f(model_config: str, schema: int, json: bool = False):
        """Doc."""
        return (model_config, schema, json)

    assert f.spec.check_inputs({"model_config": "a", "schema": 1}) == {"model_config": "a", "schema": 1, "json": False}


def test_json_strings_accepted_for_array_and_object_parameters_only():
    @tool
    def f(items: list[int], opts: dict[str, int], text: str, maybe: Optional[list[int]] = None):
        """Doc."""

    args = f.spec.check_inputs({"items": "[1, 2]", "opts": '{"a": 1}', "text": "[1]", "maybe": "[3]"})
    assert args == {"items": [1, 2], "opts": {"a": 1}, "text": "[1]", "maybe": [3]}
    with pytest.raises(ToolInputError, match=r"items: expected array, received .not json. \(string\)"):
        f.spec.check_inputs({"items": "not json", "opts": {}, "text": ""})


def test_bool_is_never_a_number_and_strings_are_not_coerced():
    @tool
    def f(n: int, x: float):
        """Doc."""

    for bad in ({"n": True, "x": 1.0}, {"n": 1, "x": False}, {"n": "5", "x": 1.0}):
        with pytest.raises(ToolInputError):
            f.spec.check_inputs(bad)
    assert f.spec.check_inputs({"n": 1, "x": 2}) == {"n": 1, "x": 2.0}


def test_positional_only_parameters_are_called_positionally():
    @tool
    def f(a: int, /, b: int) -> int:
        """Doc."""
        return a * 10 + b

    assert f.invoke(f.spec.check_inputs({"a": 1, "b": 2})) == 12


def test_integral_floats_are_integers_as_in_json_schema():
    @tool
    def f(n: int, items: list[int]):
        """Doc."""

    assert f.spec.check_inputs({"n": 2.0, "items": [1.0, 3]}) == {"n": 2, "items": [1, 3]}
    with pytest.raises(ToolInputError, match="n: expected integer, received 2.5"):
        f.spec.check_inputs({"n": 2.5, "items": []})
    with pytest.raises(ToolInputError, match="items: expected array"):
        f.spec.check_inputs({"n": 2.0, "items": "x"})
