"""Validation modes of native tools (issue 26, item 16): strict by default, ``"lax"`` (pydantic's lax
mode) per tool, registry and run, with the run's mode winning over the tool's, and the tool's over
its registry's. The executors, the agent loop, ``run_evals``, case files and the form all follow it.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.form_catalogue import wb  # noqa: F401 - fixture
from workbench import ConcurrentExecutor, SequentialExecutor, ToolRegistry, tool
from workbench._errors import ToolInputError, ToolSpecError
from workbench.agent import run_agent
from workbench.evals import EvalCase, run_evals
from workbench.executor import validating
from workbench.models import ScriptedModel


@tool
def multiply(a: int, b: int) -> int:
    """Multiply two integers."""
    return a * b


@tool(validation="lax")
def multiply_lax(a: int, b: int) -> int:
    """Multiply two integers (lax)."""
    return a * b


SIX = {"a": "6", "b": 7}  # what a model sends now and then: a number as a string


def _status(executor, registry, name="multiply", tool_input=SIX):
    result = executor.run([{"toolUseId": "t-1", "name": name, "input": dict(tool_input)}], registry)[0]
    return result.status if result.status == "success" else result.metadata["error_type"]


def test_strict_is_the_default_and_lax_takes_what_pydantic_lax_mode_takes():
    with pytest.raises(ToolInputError, match=r"a: expected integer, received '6' \(string\)"):
        multiply.spec.check_inputs(SIX)
    assert multiply.spec.validation is None
    assert multiply.spec.check_inputs(SIX, "lax") == {"a": 6, "b": 7}
    assert multiply_lax.spec.validation == "lax" and multiply_lax.spec.check_inputs(SIX) == {"a": 6, "b": 7}
    # lax is pydantic's lax mode, not "anything goes": the error is worded as strict mode's
    with pytest.raises(ToolInputError, match=r"a: expected integer, received 'six' \(string\)"):
        multiply_lax.spec.check_inputs({"a": "six", "b": 7})
    with pytest.raises(ToolInputError, match=r"b: required field is missing"):
        multiply_lax.spec.check_inputs({"a": "6"})
    with pytest.raises(ToolInputError, match="a: expected integer, received '6'"):
        multiply_lax.spec.check_inputs(SIX, "strict")


def test_a_specs_mode_can_change_and_bad_modes_are_refused_naming_where():
    @tool
    def halve(n: int) -> float:
        """Halve."""
        return n / 2

    registry = ToolRegistry([halve])
    assert _status(SequentialExecutor(), registry, "halve", {"n": "4"}) == "ToolInputError"
    halve.spec.validation = "lax"
    assert _status(SequentialExecutor(), registry, "halve", {"n": "4"}) == "success"
    halve.spec.validation = None
    assert _status(SequentialExecutor(), registry, "halve", {"n": "4"}) == "ToolInputError"
    assert _status(SequentialExecutor(), registry, "halve", {"n": 4}) == "success"
    with pytest.raises(ValueError, match=r"Tool 'halve': validation must be one of 'strict', 'lax'.*'loose'"):
        halve.spec.validation = "loose"
    with pytest.raises(ValueError, match=r"Tool 'double': validation must be one of .*'LAX'"):
        tool(validation="LAX", name="double")(lambda x: 2 * x)
    with pytest.raises(ValueError, match=r"ToolRegistry: validation must be one of"):
        ToolRegistry(validation=True)
    with pytest.raises(ValueError, match=r"SequentialExecutor: validation must be one of"):
        SequentialExecutor(validation="off")
    with pytest.raises(ValueError, match=r"run_agent: validation must be one of"):
        run_agent(ScriptedModel(["hi"]), "hi", tools=[multiply], validation="yes")
    with pytest.raises(ToolSpecError, match=r"validation"):
        type(multiply.spec)(name="x", description="d", validation="sometimes")


@pytest.mark.parametrize("make", [SequentialExecutor, ConcurrentExecutor], ids=["sequential", "concurrent"])
def test_the_run_wins_over_the_tool_which_wins_over_the_registry(make):
    executor = make()
    plain, lax_registry, strict_registry = (
        ToolRegistry([multiply, multiply_lax]),
        ToolRegistry([multiply, multiply_lax], validation="lax"),
        ToolRegistry([multiply, multiply_lax], validation="strict"),
    )
    assert _status(executor, plain) == "ToolInputError"
    assert _status(executor, plain, "multiply_lax") == "success"  # the tool's own
    assert _status(executor, lax_registry) == "success"  # the registry's, for a tool without one
    assert _status(executor, strict_registry, "multiply_lax") == "success"  # the tool's beats the registry's
    with validating("strict"):  # a run's beats the tool's
        assert _status(executor, plain, "multiply_lax") == "ToolInputError"
        assert _status(executor, lax_registry) == "ToolInputError"
        with validating(None):  # cleared: the tool's and registry's again
            assert _status(executor, lax_registry) == "success"
    with validating("lax"):
        assert _status(executor, plain) == "success"
    assert _status(make(validation="lax"), plain) == "success"  # an executor's mode is its runs'
    assert _status(make(validation="strict"), plain, "multiply_lax") == "ToolInputError"
    with validating("lax"):  # the context beats the executor's own, as approving() does
        assert _status(make(validation="strict"), plain) == "success"
    # and with nothing set, the fast paths are as before: strict
    assert (
        _status(executor, plain) == "ToolInputError"
        and _status(executor, plain, tool_input={"a": 6, "b": 7}) == "success"
    )
    executor.close()


def test_map_and_async_execute_follow_the_registry_mode():
    import asyncio

    registry = ToolRegistry([multiply], validation="lax")
    frame = SequentialExecutor().map(multiply, [SIX, {"a": 2, "b": 3}], registry=registry, progress=False)
    assert frame["status"].tolist() == ["success", "success"] and frame["value"].tolist() == [42, 6]
    results = asyncio.run(
        SequentialExecutor().execute([{"toolUseId": "t", "name": "multiply", "input": SIX}], registry)
    )
    assert results[0].value == 42


def test_run_agent_validation_reaches_the_shared_executor_and_is_recorded():
    def answer():
        return ScriptedModel([{"tool_calls": [{"name": "multiply", "input": SIX, "id": "c1"}]}, "done"])

    default = run_agent(answer(), "6 x 7?", tools=[multiply])
    assert default.tool_results[0].metadata["error_type"] == "ToolInputError"
    lax = run_agent(answer(), "6 x 7?", tools=[multiply], validation="lax")
    assert lax.tool_results[0].json == 42 and lax.settings["validation"] == "lax"
    assert "validation" not in default.settings
    # nothing leaks out of the run: the shared executor is strict again afterwards
    assert run_agent(answer(), "6 x 7?", tools=[multiply]).tool_results[0].status == "error"


@tool
def price(amount: Decimal) -> str:
    """Show a price."""
    return f"{amount:.2f}"


def test_run_evals_validation_applies_to_multi_turn_runs():
    # "1_000": pydantic's lax mode reads it as a Decimal; strict mode holds it to the schema's pattern
    def model():
        return ScriptedModel([{"tool_calls": [{"name": "price", "input": {"amount": "1_000"}}]}, "1000.00"])

    case = EvalCase(
        "price",
        prompt="Show 1000.",
        expect_calls=[{"name": "price", "arguments": {"amount": ["1_000"]}}],
        check=lambda t: True if t.tool_results[0].status == "success" else t.tool_results[0].text,
    )
    strict = run_evals([case], model(), tools=[price], max_turns=2, progress=False)
    assert (
        strict.results["passed"].tolist() == [False]
        and "expected number or a string matching" in strict.results["reason"][0]
    )
    lax = run_evals([case], model(), tools=[price], max_turns=2, progress=False, validation="lax")
    assert lax.results["passed"].tolist() == [True], lax.results["reason"][0]


def test_the_form_checks_in_the_mode_its_run_uses(wb):  # noqa: F811
    from workbench.jupyter._form import ToolForm

    wb.registry.register_tool(price)
    form = ToolForm(price, workbench=wb)
    form.set_values({"amount": "1_000"})  # pydantic's lax mode reads it; JSON Schema's pattern does not
    assert form.validate() is None and "amount" in form.errors
    wb.registry.validation = "lax"
    assert form.validate() == {"amount": "1_000"} and form.errors == {}
    result = form.run()
    assert result.status == "success" and result.value == "1000.00"
