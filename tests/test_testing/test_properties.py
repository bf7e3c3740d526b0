"""Property tests from the schema (issue 10 §2): inputs(), invalid_inputs(), check_tool, fuzz_inputs, property_test.

The strategies are checked on the catalogue of the project's own schema shapes (tests/form_catalogue.py:
nested models, arrays of objects, Optional, Literal/Enum, dict, dates, tuples, recursive models, ...),
through both routes: a function tool (its pydantic input model) and the same schema as a spec-only tool
(what MCP/proxy tools have). ``python -m tests.test_testing.test_properties`` prints the coverage table.
"""

from __future__ import annotations

import datetime as dt
import time
from typing import Annotated, Any, Callable

import jsonschema
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from pydantic import BaseModel, ConfigDict, Field

from tests.form_catalogue import CATALOGUE
from workbench import SpecOnlyTool, ToolContext, ToolInputError, ToolRegistry, ToolSpec, tool
from workbench.testing import check_tool, fuzz_inputs, inputs, invalid_inputs, property_test

SAMPLES = 40


def sample(strategy, n: int = SAMPLES, seed: int = 0) -> list:
    """``n`` examples of ``strategy`` (reproducible)."""
    found: list = []

    @hypothesis_seed(seed)
    @settings(
        max_examples=n, database=None, deadline=None, phases=[Phase.generate], suppress_health_check=list(HealthCheck)
    )
    @given(strategy)
    def collect(value):
        found.append(value)

    collect()
    return found


def closed(parameters: dict) -> dict:
    return {"additionalProperties": False, **parameters}


def depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((depth(v) for v in value), default=0)
    return 0


def values_of(name: str) -> Callable[[list], list]:
    return lambda inputs: [i[name] for i in inputs if name in i]


# What each shape must show in its samples, besides validity: (description, predicate on the inputs).
COVERAGE: dict[str, tuple[str, Callable[[list], bool]]] = {
    "str": ("non-empty text", lambda xs: any(x["text_value"] for x in xs)),
    "int": ("negative and positive", lambda xs: any(x["n"] < 0 for x in xs) and any(x["n"] > 0 for x in xs)),
    "bounded int": ("both bounds hit", lambda xs: {1, 10} <= set(values_of("n")(xs))),
    "float": (
        "non-integral numbers",
        lambda xs: any(isinstance(x["x"], float) and not x["x"].is_integer() for x in xs),
    ),
    "bool": ("both values", lambda xs: {True, False} <= {x["flag"] for x in xs}),
    "literal": (
        "every value",
        lambda xs: {"fast", "slow"} <= {x["mode"] for x in xs} and {1, 2, 3} <= set(values_of("level")(xs)),
    ),
    "enum": ("every member", lambda xs: {"red", "green", "blue"} <= {x["color"] for x in xs}),
    "date": ("ISO dates", lambda xs: all(dt.date.fromisoformat(x["day"]) for x in xs)),
    "list[Model]": (
        "non-empty lists of objects",
        lambda xs: any(x["items"] and isinstance(x["items"][0], dict) for x in xs),
    ),
    "model": (
        "optional field present and absent",
        lambda xs: any("qty" in x["item"] for x in xs) and any("qty" not in x["item"] for x in xs),
    ),
    "Optional[int]": (
        "null and integers",
        lambda xs: None in values_of("limit")(xs) and any(isinstance(v, int) for v in values_of("limit")(xs)),
    ),
    "Optional[str]": (
        "null and text",
        lambda xs: None in values_of("label")(xs) and any(isinstance(v, str) for v in values_of("label")(xs)),
    ),
    "Union[int, str]": ("both variants", lambda xs: {int, str} <= {type(v) for v in values_of("key")(xs)}),
    "dict[str, Any]": ("non-empty, mixed values", lambda xs: any(x["payload"] for x in xs)),
    "dict[str, int]": ("non-empty mappings", lambda xs: any(x["counts"] for x in xs)),
    "tuple": (
        "[integer, string] pairs",
        lambda xs: (
            bool(values_of("pair")(xs))
            and all(len(p) == 2 and type(p[0]) is int and type(p[1]) is str for p in values_of("pair")(xs))
        ),
    ),
    "Decimal": (
        "numbers and strings",
        lambda xs: {str} <= {type(x["amount"]) for x in xs} and bool({int, float} & {type(x["amount"]) for x in xs}),
    ),
    "Optional[Model] + set": (
        "unique non-empty sets, null and objects",
        lambda xs: (
            any(len(t) > 1 and len(set(map(str, t))) == len(t) for t in values_of("tags")(xs))
            and None in values_of("item")(xs)
            and any(isinstance(v, dict) for v in values_of("item")(xs))
        ),
    ),
    "list[list[int]]": ("nested non-empty lists", lambda xs: any(any(row) for x in xs for row in x["grid"])),
    # recursive $refs are unrolled two levels (workbench._synthetic_schema.prepare): a root and its children
    "recursive model": ("2 levels: nodes with children", lambda xs: any(x["tree"].get("children") for x in xs)),
    "Any": ("several JSON types", lambda xs: len({type(x["value"]) for x in xs}) >= 3),
}


def coverage_row(entry: Any, n: int = SAMPLES) -> dict[str, Any]:
    """Sample both routes of one catalogue shape and check validity and coverage."""
    spec = entry.tool.spec
    validator = jsonschema.Draft202012Validator(
        closed(spec.parameters), format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )
    spec_only = SpecOnlyTool(
        ToolSpec(name=spec.name, description=spec.description, parameters=spec.parameters, returns=spec.returns)
    )
    row: dict[str, Any] = {"shape": entry.name}
    for route, item in (("function", entry.tool), ("spec-only", spec_only)):
        started = time.perf_counter()
        values = sample(inputs(item), n)
        row[f"{route} s"] = time.perf_counter() - started
        invalid = [v for v in values if not validator.is_valid(v)]
        refused = []
        for value in values:
            try:
                item.spec.check_inputs(value)
            except ToolInputError as exc:
                refused.append(str(exc))
        distinct = len({repr(v) for v in values})
        what, covered = COVERAGE.get(entry.name, ("varied inputs", lambda xs: len({repr(x) for x in xs}) > 1))
        row[route] = {
            "n": len(values),
            "distinct": distinct,
            "invalid": invalid,
            "refused": refused,
            "covered": covered(values) if values else False,
        }
        row["feature"] = what
    return row


@pytest.mark.parametrize("entry", CATALOGUE, ids=[e.name for e in CATALOGUE])
def test_strategies_cover_the_schema_catalogue(entry):
    row = coverage_row(entry)
    for route in ("function", "spec-only"):
        result = row[route]
        assert result["n"] > 0, route
        assert result["invalid"] == [], (route, result["invalid"][:3])
        assert result["refused"] == [], (route, result["refused"][:3])
        assert result["covered"], f"{route}: {row['feature']} not seen in {result['n']} examples"


# -- inputs() details ---------------------------------------------------------------------------------------------
class Open(BaseModel):
    model_config = ConfigDict(extra="allow")
    a: int


class Ignoring(BaseModel):
    a: int


def test_python_types_decide_which_nested_objects_get_extra_keys():
    @tool
    def f(open_: Open, ignoring: Ignoring) -> None:
        """Extra keys are kept by one model and dropped by the other."""

    values = sample(inputs(f), 40)
    assert any(set(v["open_"]) - {"a"} for v in values)  # extra="allow": the function receives extras
    assert not any(set(v["ignoring"]) - {"a"} for v in values)  # extra="ignore": generating them tests nothing
    spec_only = SpecOnlyTool(f.spec)  # from the published schema alone, nested objects are open
    assert any(set(v["ignoring"]) - {"a"} for v in sample(inputs(spec_only), 40))


def test_inputs_accepts_functions_specs_and_names():
    def plain(n: int) -> int:
        """Plain function."""
        return n

    registry = ToolRegistry([plain])
    for item in (plain, registry.get_tool("plain").spec, "plain"):
        values = sample(inputs(item, registry=registry), 10)
        assert values and all(isinstance(v["n"], int) for v in values)


def test_an_unusable_schema_is_a_clear_error():
    broken = ToolSpec(
        name="broken", description="x", parameters={"type": "object", "properties": {"a": {"$ref": "#/$defs/Nope"}}}
    )
    report = check_tool(broken)
    assert not report.ok and "Tool 'broken'" in report.error and "points nowhere" in report.error


# -- invalid inputs ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["model", "Annotated", "tuple", "recursive model", "Decimal", "enum", "date"])
def test_invalid_inputs_are_refused_by_schema_and_validator(name):
    entry = next(e for e in CATALOGUE if e.name == name)
    validator = jsonschema.Draft202012Validator(
        closed(entry.tool.spec.parameters), format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )
    pairs = sample(invalid_inputs(entry.tool), 30)
    assert pairs
    for what, value in pairs:
        assert not validator.is_valid(value), (what, value)
        with pytest.raises(ToolInputError):
            entry.tool.spec.check_inputs(value)


def test_every_kind_of_breakage_is_generated():
    kinds = set()
    for entry in CATALOGUE:
        for what, _ in sample(invalid_inputs(entry.tool), 8):
            kinds.add(next(k for k in ("removed", "added", "of type", "outside") if k in what))
    assert kinds == {"removed", "added", "of type", "outside"}


# -- check_tool --------------------------------------------------------------------------------------------------
@tool
def divide(a: int, b: int) -> float:
    """Divide."""
    return a / b


def test_check_tool_finds_and_shrinks_a_crash():
    report = check_tool(divide, max_examples=100)
    assert not report.ok
    (failure,) = report.failures
    assert (failure.kind, failure.error_type, failure.input) == ("raised", "ZeroDivisionError", {"a": 0, "b": 0})
    assert "return a / b" in failure.traceback and "workbench/executor/" not in failure.traceback
    assert report.summary().startswith("divide: ") and "1 failure(s)" in report.summary()


@pytest.mark.parametrize("expected", [[ZeroDivisionError], [ArithmeticError], ["ZeroDivisionError"]])
def test_declared_errors_are_not_failures(expected):
    report = check_tool(divide, max_examples=50, expected_errors=expected)
    assert report.ok and report.examples >= 50


def test_shrinking_gives_the_minimal_input():
    @tool
    def threshold(n: int, label: str = "") -> int:
        """Breaks from 1000 on."""
        if n >= 1000:
            raise ValueError("too big")
        return n

    (failure,) = check_tool(threshold, max_examples=200).failures
    assert failure.input == {"n": 1000}


def test_a_result_that_breaks_returns_is_reported():
    @tool
    def liar(x: int) -> int:
        """Returns text past 10."""
        return str(x) if x > 10 else x  # type: ignore[return-value]

    (failure,) = check_tool(liar, max_examples=100).failures
    assert failure.kind == "bad-return" and failure.input == {"x": 11}
    assert "does not match the returns schema" in failure.message


def test_a_timeout_is_reported_with_its_input():
    @tool
    def slow(x: Annotated[int, Field(ge=0, le=10)]) -> int:
        """Slow past 5."""
        if x > 5:
            time.sleep(1.0)
        return x

    report = check_tool(slow, max_examples=30, timeout=0.2)
    assert [(f.kind, f.input) for f in report.failures] == [("timed-out", {"x": 6})]
    assert "timed out after 0.2 s" in report.failures[0].message


def test_distinct_failures_are_reported_separately():
    @tool
    def picky(n: int) -> int:
        """Two different bugs."""
        if n < 0:
            raise KeyError(n)
        if n > 100:
            raise IndexError(n)
        return n

    report = check_tool(picky, max_examples=200)
    assert {(f.error_type, tuple(f.input.values())) for f in report.failures} == {
        ("KeyError", (-1,)),
        ("IndexError", (101,)),
    }


def test_spec_only_async_and_context_tools_check_clean():
    spec = ToolSpec(
        name="weather",
        description="x",
        parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        returns={"type": "object", "properties": {"temp": {"type": "integer"}}, "required": ["temp"]},
    )

    @tool
    async def async_add(a: int, b: int) -> int:
        """Async add."""
        return a + b

    @tool(context=True)
    def ctx_tool(x: int, tool_context: ToolContext) -> int:
        """Uses its context."""
        assert tool_context.invocation_state == {}
        tool_context.invocation_state["seen"] = True
        return x

    for item in (spec, async_add, ctx_tool):
        report = check_tool(item, max_examples=25)
        assert report.ok, report.text()
        assert report.examples == 25


def test_check_tool_inside_a_running_event_loop_runs_off_the_loop():
    import asyncio
    import threading

    threads = set()

    @tool
    async def async_add(a: int, b: int) -> int:
        """Async add."""
        threads.add(threading.current_thread().name)
        return a + b

    async def in_a_kernel():
        return check_tool(async_add, max_examples=20)

    report = asyncio.run(in_a_kernel())
    assert report.ok and report.examples == 20
    # one worker thread for the whole run, not a helper thread per call
    assert len(threads) == 1 and threads.pop().startswith("workbench-check")


def test_a_denied_tool_cannot_be_checked():
    @tool(permission="deny")
    def never(x: int) -> int:
        """Never runs."""
        return x

    with pytest.raises(ValueError, match="always_deny"):
        check_tool(never)


def test_report_html_is_escaped():
    @tool
    def shouty(x: int) -> int:
        """Raises markup."""
        raise ValueError("<script>alert(1)</script>")

    report = check_tool(shouty, max_examples=5)
    html = report._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;" in html and "<details>" in html
    with pytest.raises(AssertionError, match="ValueError"):
        report.raise_if_failed()


# -- fuzz_inputs -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("entry", CATALOGUE, ids=[e.name for e in CATALOGUE])
def test_the_catalogue_refuses_every_invalid_input(entry):
    report = fuzz_inputs(entry.tool, max_examples=15)
    assert report.ok, report.text()


def test_fuzz_detects_invalid_input_that_reaches_the_function():
    calls = []

    @tool
    def capped(n: Annotated[int, Field(le=10)]) -> int:
        """At most 10."""
        calls.append(n)
        return n

    capped.spec._input_validator = lambda name, raw: dict(raw)  # a validator that lets everything through
    report = fuzz_inputs(capped, max_examples=50)
    assert [f.kind for f in report.failures] == ["reached-function"]
    assert calls  # it did reach the function

    lax = SpecOnlyTool(
        ToolSpec(name="lax", description="x", parameters={"type": "object", "properties": {"n": {"type": "integer"}}})
    )
    lax.spec._input_validator = lambda name, raw: dict(raw)
    assert [f.kind for f in fuzz_inputs(lax, max_examples=30).failures] == ["accepted"]


# -- property_test ------------------------------------------------------------------------------------------------
def test_property_test_makes_a_pytest_function():
    @tool
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    passing = property_test(add, max_examples=20, seed=0)
    assert passing.__name__ == "test_add_properties"
    passing()
    failing = property_test(divide, max_examples=20, seed=0, fuzz=False)
    with pytest.raises(AssertionError, match=r"ZeroDivisionError: division by zero\n  input: \{\"a\": 0, \"b\": 0\}"):
        failing()


def main() -> None:  # pragma: no cover - prints the coverage table of the issue's closing note
    print(
        "| shape | function route: examples / distinct | spec-only route: examples / distinct | all valid "
        "(jsonschema + check_inputs) | coverage check | covered |"
    )
    print("|---|---|---|---|---|---|")
    for entry in CATALOGUE:
        row = coverage_row(entry, 100)
        f, s = row["function"], row["spec-only"]
        valid = not (f["invalid"] or f["refused"] or s["invalid"] or s["refused"])
        print(
            f"| {row['shape']} | {f['n']} / {f['distinct']} | {s['n']} / {s['distinct']} | {'yes' if valid else 'NO'} "
            f"| {row['feature']} | {'yes' if f['covered'] and s['covered'] else 'NO'} |"
        )


if __name__ == "__main__":  # pragma: no cover
    main()
