"""check_inputs hardening (issue 14): stable error order, bool vs number in literals and enums,
Decimal strings that match their schema, no NaN/Infinity, and a depth limit instead of RecursionError."""

from __future__ import annotations

import enum
import json
import re
from decimal import Decimal
from typing import Annotated, Literal, Optional

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from pydantic import BaseModel, ConfigDict, Field

from workbench import ConcurrentExecutor, SequentialExecutor, ToolInputError, ToolRegistry, ToolSpec, tool
from workbench._validation import MAX_INPUT_DEPTH


def errors_of(spec, raw) -> list[dict]:
    with pytest.raises(ToolInputError) as info:
        spec.check_inputs(raw)
    return info.value.errors


def fields_of(spec, raw) -> list[str]:
    return [e["field"] for e in errors_of(spec, raw)]


def schema_only(spec_or_tool, name="schema_only") -> ToolSpec:
    """The same parameters as a tool defined by its JSON Schema alone (the jsonschema engine)."""
    spec = getattr(spec_or_tool, "spec", spec_or_tool)
    return ToolSpec(name=name, description="d", parameters=json.loads(json.dumps(spec.parameters)))


# -- 1. stable error order -------------------------------------------------------------------------
class Seat(BaseModel):
    row: int
    letter: Literal["A", "B", "C"]


class Leg(BaseModel):
    code: str
    hops: int
    seat: Seat


@tool
def book(
    origin: str,
    destination: str,
    max_stops: Annotated[int, Field(ge=0, le=3)] = 1,
    cabin: Literal["economy", "business"] = "economy",
    legs: list[Leg] = [],
    note: str = "",
) -> str:
    """Book a trip."""
    return "ok"


# unexpected keys first and last, nested errors out of schema order, items out of index order
BAD_BOOKING = {
    "seats": 2,
    "legs": [
        {"code": "X", "hops": 0, "seat": {"row": 1, "letter": "A"}},
        {"seat": {"letter": "Z", "row": "1"}, "hops": "two", "code": 5},
        {"hops": 1, "code": "Y"},
    ],
    "cabin": "first",
    "origin": 7,
    "max_stops": 7,
    "aaa": True,
}
BOOKING_ORDER = [
    "origin",
    "destination",
    "max_stops",
    "cabin",
    "legs[1].code",
    "legs[1].hops",
    "legs[1].seat.row",
    "legs[1].seat.letter",
    "legs[2].seat",
    "seats",
    "aaa",
]


@pytest.mark.parametrize("engine", ["function", "schema"])
def test_errors_come_in_schema_order_then_unexpected_keys_in_input_order(engine):
    spec = book.spec if engine == "function" else schema_only(book)
    assert fields_of(spec, BAD_BOOKING) == BOOKING_ORDER


def test_error_order_of_a_hand_written_schema_with_nested_unexpected_keys():
    spec = ToolSpec(
        name="s",
        description="d",
        parameters={
            "type": "object",
            "properties": {
                "zeta": {"type": "integer"},
                "alpha": {
                    "type": "object",
                    "properties": {"y": {"type": "string"}, "b": {"type": "string"}},
                    "required": ["b"],
                    "additionalProperties": False,
                },
                "mid": {"type": "array", "items": {"type": "integer"}},
            },
            "required": ["zeta"],
        },
    )
    raw = {"zz": 1, "mid": [1, "x", 2, "y"], "alpha": {"q": 1, "y": 2, "p": 3}, "b": 0}
    assert fields_of(spec, raw) == ["zeta", "alpha.y", "alpha.b", "alpha.q", "alpha.p", "mid[1]", "mid[3]", "zz", "b"]


def test_notebook_example_lists_the_unexpected_field_last():
    @tool
    def search_flights(
        origin: str,
        destination: str,
        max_stops: Annotated[int, Field(ge=0, le=3)] = 1,
        cabin: Literal["economy", "business"] = "economy",
        max_price: Optional[float] = None,
    ) -> list:
        """Search."""
        return []

    raw = {"origin": "LHR", "max_stops": 7, "cabin": "first", "seats": 2}
    assert fields_of(search_flights.spec, raw) == ["destination", "max_stops", "cabin", "seats"]
    assert fields_of(schema_only(search_flights), raw) == ["destination", "max_stops", "cabin", "seats"]


def test_union_members_are_not_part_of_the_error_path():
    class A(BaseModel):
        x: int

    @tool
    def f(u: int | str, m: A | None = None, items: list[int | A] = []):
        """Doc."""

    errors = errors_of(f.spec, {"u": [], "m": {"x": "no"}, "items": [1, {"x": "s"}]})
    assert [e["field"] for e in errors] == ["u", "m.x", "items[1]", "items[1].x"]
    assert errors[0]["expected"] == "integer or string"


# -- 2. a bool is never a number, a number never a bool ---------------------------------------------
class Level(enum.Enum):
    LOW = 1
    HIGH = "high"


class Flag(enum.Enum):
    ON = True
    ZERO = 0


class Holder(BaseModel):
    yes: Literal[True]
    level: Level


@tool
def literals(
    yes: Literal[True], mixed: Literal[1, "a"], level: Level, flag: Flag, nested: Holder, many: list[Literal[0, 2]]
):
    """Doc."""


GOOD_LITERALS = {
    "yes": True,
    "mixed": 1,
    "level": 1,
    "flag": True,
    "nested": {"yes": True, "level": "high"},
    "many": [0, 2],
}


@pytest.mark.parametrize(
    "field, value",
    [
        ("yes", 1),
        ("yes", 1.0),
        ("mixed", True),
        ("level", True),
        ("flag", 1),
        ("flag", 1.0),
        ("flag", False),
        ("nested", {"yes": 1, "level": "high"}),
        ("nested", {"yes": True, "level": True}),
        ("many", [0, False]),
    ],
)
def test_literals_and_enums_keep_bools_and_numbers_apart(field, value):
    with pytest.raises(ToolInputError, match="expected (exactly|one of)"):
        literals.spec.check_inputs({**GOOD_LITERALS, field: value})


def test_literals_and_enums_match_numbers_by_value():
    args = literals.spec.check_inputs({**GOOD_LITERALS, "mixed": 1.0, "level": 1.0, "flag": 0.0, "many": [0.0, 2]})
    assert args["mixed"] == 1 and type(args["mixed"]) is int
    assert args["level"] is Level.LOW and args["flag"] is Flag.ZERO
    assert args["many"] == [0, 2]
    assert literals.spec.check_inputs(GOOD_LITERALS)["flag"] is Flag.ON


@pytest.mark.parametrize(
    "schema, bad, good",
    [
        ({"enum": [1, "a"]}, [True, False, "1"], [1, 1.0, "a"]),
        ({"const": True}, [1, 1.0, "true"], [True]),
        ({"const": 0}, [False], [0, 0.0]),
        ({"enum": [[1], {"k": True}]}, [[True], {"k": 1}], [[1], {"k": True}]),
    ],
)
def test_schema_only_enum_and_const_keep_bools_and_numbers_apart(schema, bad, good):
    spec = ToolSpec(name="s", description="d", parameters={"type": "object", "properties": {"v": schema}})
    for value in bad:
        with pytest.raises(ToolInputError):
            spec.check_inputs({"v": value})
    for value in good:
        assert spec.check_inputs({"v": value}) == {"v": value}


# -- 3. Decimal: the schema's pattern and the validator agree ----------------------------------------
@tool
def pay(amount: Decimal, fee: Optional[Decimal] = None):
    """Doc."""


DECIMAL_SCHEMA = pay.spec.parameters["properties"]["amount"]


def decimal_string_pattern() -> str:
    (string_branch,) = [s for s in DECIMAL_SCHEMA["anyOf"] if s.get("type") == "string"]
    return string_branch["pattern"]


def test_decimal_schema_is_a_number_or_a_decimal_string():
    assert {"type": "number"} in DECIMAL_SCHEMA["anyOf"]
    pattern = decimal_string_pattern()
    for text in ("1", "-1.50", "+.5", "2.", "1e5", "-3.25E-7"):
        assert re.search(pattern, text), text
    for text in ("", "µ", "1_000", " 1", "١٢", "NaN", "Infinity", "0x10", "1e", "."):
        assert not re.search(pattern, text), text


@pytest.mark.parametrize("text", ["", "µ", "1_000", " 1", "١٢", "NaN", "-Infinity", "1e99999999999999999999"])
def test_decimal_strings_outside_the_pattern_are_rejected(text):
    errors = errors_of(pay.spec, {"amount": text})
    assert [e["field"] for e in errors] == ["amount"]
    assert "expected number or a string matching /" in errors[0]["message"]


def test_decimal_accepts_numbers_and_pattern_strings():
    assert pay.spec.check_inputs({"amount": "1.50", "fee": 2}) == {"amount": Decimal("1.50"), "fee": Decimal(2)}
    assert pay.spec.check_inputs({"amount": 0.25})["amount"] == Decimal("0.25")
    with pytest.raises(ToolInputError, match="amount"):
        pay.spec.check_inputs({"amount": True})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_decimal_values_from_the_schema_pass_and_rejected_strings_fail_the_schema(data):
    value = data.draw(from_schema(DECIMAL_SCHEMA), label="from schema")
    assert isinstance(pay.spec.check_inputs({"amount": value})["amount"], Decimal)
    text = data.draw(st.one_of(st.text(), st.from_regex(decimal_string_pattern())), label="any string")
    try:
        pay.spec.check_inputs({"amount": text})
        accepted = True
    except ToolInputError:
        accepted = False
    assert accepted == jsonschema.Draft202012Validator(DECIMAL_SCHEMA).is_valid(text)


# -- 4. NaN and Infinity are not JSON numbers --------------------------------------------------------
class Reading(BaseModel):
    value: float


class LooseReading(BaseModel):
    model_config = ConfigDict(allow_inf_nan=True)
    value: float


@tool
def measure(
    x: float,
    reading: Reading,
    values: list[float] = [],
    maybe: Optional[float] = None,
    loose: Optional[LooseReading] = None,
    free: Annotated[float, Field(allow_inf_nan=True)] = 0.0,
):
    """Doc."""


NON_FINITE = [float("nan"), float("inf"), float("-inf")]


@pytest.mark.parametrize("bad", NON_FINITE, ids=["nan", "inf", "-inf"])
@pytest.mark.parametrize("where", ["x", "reading.value", "values[1]", "maybe"])
def test_function_tools_reject_nan_and_infinity(bad, where):
    raw = {"x": 1.0, "reading": {"value": 2.0}, "values": [1.0, 2.0], "maybe": 3.0}
    if where == "reading.value":
        raw["reading"] = {"value": bad}
    elif where == "values[1]":
        raw["values"] = [1.0, bad]
    else:
        raw[where] = bad
    errors = errors_of(measure.spec, raw)
    assert [e["field"] for e in errors] == [where]
    assert "finite number" in errors[0]["message"]


@pytest.mark.parametrize("bad", NON_FINITE, ids=["nan", "inf", "-inf"])
def test_function_tools_allow_nan_where_the_model_says_so(bad):
    args = measure.spec.check_inputs({"x": 1, "reading": {"value": 2}, "loose": {"value": bad}, "free": bad})
    assert repr(args["free"]) == repr(bad) and repr(args["loose"].value) == repr(bad)


@pytest.mark.parametrize("bad", NON_FINITE, ids=["nan", "inf", "-inf"])
def test_schema_only_tools_reject_nan_and_infinity(bad):
    spec = ToolSpec(
        name="s",
        description="d",
        parameters={
            "type": "object",
            "properties": {
                "x": {"type": "number"},
                "n": {"type": "integer", "maximum": 5},
                "items": {"type": "array", "items": {"type": "number"}},
                "anything": {},
            },
        },
    )
    for raw, field in (
        ({"x": bad}, "x"),
        ({"n": bad}, "n"),
        ({"items": [0, bad]}, "items[1]"),
        ({"anything": {"a": [bad]}}, "anything.a[0]"),
    ):
        errors = errors_of(spec, raw)
        assert [e["field"] for e in errors] == [field]
        assert "finite number" in errors[0]["message"] and "NaN" in errors[0]["message"]


# -- 5. deep inputs: a clear depth limit, never RecursionError ---------------------------------------
class Node(BaseModel):
    child: Optional["Node"] = None


@tool
def walk(node: Node) -> int:
    """Count the levels."""
    depth, current = 0, node
    while current is not None:
        depth, current = depth + 1, current.child
    return depth


@tool(
    parameters={
        "type": "object",
        "properties": {"node": {"$ref": "#/$defs/N"}},
        "required": ["node"],
        "$defs": {
            "N": {"type": "object", "properties": {"child": {"anyOf": [{"$ref": "#/$defs/N"}, {"type": "null"}]}}}
        },
    }
)
def walk_schema(**kwargs) -> str:
    """Accept a recursive object."""
    return "ok"


@tool(parameters={"type": "object", "properties": {"v": {"type": "array"}}})
def nested_arrays(**kwargs) -> str:
    """Accept nested arrays."""
    return "ok"


def chain(levels: int):
    node = None
    for _ in range(levels):
        node = {"child": node}
    return node


def arrays(levels: int):
    value: list = []
    for _ in range(levels - 1):
        value = [value]
    return value


DEEP_CASES = [(walk, "node", chain), (walk_schema, "node", chain), (nested_arrays, "v", arrays)]


@pytest.mark.parametrize("deep_tool, key, make", DEEP_CASES, ids=["pydantic", "jsonschema-ref", "arrays"])
def test_inputs_within_the_depth_limit_validate(deep_tool, key, make):
    # the arguments object is level 1
    deep_tool.spec.check_inputs({key: make(MAX_INPUT_DEPTH - 1)})
    if deep_tool is walk:
        assert walk(**walk.spec.check_inputs({"node": chain(MAX_INPUT_DEPTH - 1)})) == MAX_INPUT_DEPTH - 1


@pytest.mark.parametrize("levels", [MAX_INPUT_DEPTH, 1000, 5000])
@pytest.mark.parametrize("deep_tool, key, make", DEEP_CASES, ids=["pydantic", "jsonschema-ref", "arrays"])
def test_inputs_past_the_depth_limit_are_a_clear_input_error(deep_tool, key, make, levels):
    errors = errors_of(deep_tool.spec, {key: make(levels)})
    assert [e["field"] for e in errors] == [key]
    assert f"nests deeper than {MAX_INPUT_DEPTH} levels" in errors[0]["message"]


@pytest.mark.parametrize(
    "text", [json.dumps(arrays(MAX_INPUT_DEPTH)), "[" * 5000 + "]" * 5000], ids=["past-limit", "5000"]
)
def test_deep_json_string_arguments_are_a_clear_input_error(text):
    # an array parameter accepts its value as JSON text; the parsed value counts
    errors = errors_of(nested_arrays.spec, {"v": text})
    assert [e["field"] for e in errors] == ["v"]
    assert f"nests deeper than {MAX_INPUT_DEPTH} levels" in errors[0]["message"]


@pytest.mark.parametrize("executor", [SequentialExecutor, ConcurrentExecutor])
@pytest.mark.parametrize("deep_tool, key, make", DEEP_CASES, ids=["pydantic", "jsonschema-ref", "arrays"])
def test_executors_report_deep_inputs_as_input_errors(executor, deep_tool, key, make):
    registry = ToolRegistry([deep_tool])
    uses = [{"toolUseId": f"deep-{n}", "name": deep_tool.tool_name, "input": {key: make(n)}} for n in (1000, 20)]
    deep, shallow = executor().run(uses, registry)
    assert deep.status == "error" and deep.metadata["error_type"] == "ToolInputError", deep
    assert f"nests deeper than {MAX_INPUT_DEPTH} levels" in deep.metadata["error"]
    assert shallow.status == "success", shallow


def test_a_schema_too_heavy_for_the_depth_it_is_given_is_an_input_error_not_a_recursion_error():
    wrapped: dict = {"$ref": "#/$defs/N"}
    for _ in range(10):  # ten allOf levels per level of input: the stack runs out well within the depth limit
        wrapped = {"allOf": [wrapped]}
    spec = ToolSpec(
        name="heavy",
        description="d",
        parameters={
            "type": "object",
            "properties": {"node": {"$ref": "#/$defs/N"}},
            "$defs": {"N": {"type": "object", "properties": {"child": {"anyOf": [wrapped, {"type": "null"}]}}}},
        },
    )
    spec.check_inputs({"node": chain(3)})
    errors = errors_of(spec, {"node": chain(MAX_INPUT_DEPTH - 1)})
    assert "nests too deeply to be checked against this tool's schema" in errors[0]["message"]
