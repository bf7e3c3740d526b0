"""Adapted tools behave as their framework does (issue 26, items 16 and 17), with the real frameworks.

In: an adapted tool accepts the input its framework accepts and refuses what it refuses — the
framework's own verdict is taken from its own path (LangChain's ``invoke``, a pydantic-ai agent run,
smolagents' ``validate_tool_arguments``, LlamaIndex's ``call``, the Agents SDK's ``on_invoke_tool``),
never written down by hand. Out: an exported pydantic-ai tool retries only bad input, and an
exported Agents SDK tool is strict where its schema allows, as ``@function_tool`` makes it.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from pydantic import ValidationError

from tests import adapter_sample_tools as samples
from workbench import SequentialExecutor, ToolRegistry, tool
from workbench.adapters import WorkbenchToolError, to_openai_agents, to_pydantic_ai
from workbench.agent import run_agent
from workbench.models import ScriptedModel


# -- each framework's own verdict on an input: ("value", v), ("refused", None) or ("raised", name) ------------
def _langchain(original: Any, tool_input: dict) -> tuple:
    try:
        return "value", original.invoke(dict(tool_input))
    except ValidationError:
        return "refused", None


def _pydantic_ai(original: Any, tool_input: dict) -> tuple:
    """A real agent run whose model calls the tool with ``tool_input``: pydantic-ai's ToolManager validates."""
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import FunctionModel

    seen: dict[str, Any] = {}

    def model(messages: list, info: Any) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart(original.name, dict(tool_input))])
        for part in messages[-1].parts:
            if isinstance(part, ToolReturnPart):
                seen["verdict"] = (
                    ("refused", None) if getattr(part, "outcome", None) == "retried" else ("value", part.content)
                )
            elif type(part).__name__ == "RetryPromptPart":  # older pydantic-ai: validation errors come back as this
                seen["verdict"] = ("refused", None)
        return ModelResponse(parts=[TextPart("done")])

    Agent(FunctionModel(model), tools=[original]).run_sync("go")
    return seen["verdict"]


def _smolagents(original: Any, tool_input: dict) -> tuple:
    from smolagents.tools import validate_tool_arguments

    try:
        validate_tool_arguments(original, tool_input)  # what ToolCallingAgent checks before calling
    except (ValueError, TypeError):
        return "refused", None
    return "value", original(**tool_input, sanitize_inputs_outputs=True)


def _llamaindex(original: Any, tool_input: dict) -> tuple:
    try:  # what FunctionAgent does: call with the model's arguments, no check first
        return "value", original.call(**tool_input).raw_output
    except Exception as exc:  # noqa: BLE001
        return "raised", type(exc).__name__


def _openai_agents(original: Any, tool_input: dict) -> tuple:
    from agents.tool_context import ToolContext

    text = json.dumps(tool_input)
    ctx = ToolContext(context=None, tool_name=original.name, tool_call_id="c-1", tool_arguments=text)
    return "value", asyncio.run(original.on_invoke_tool(ctx, text))  # its failure function answers bad input


def _workbench(original: Any, tool_input: dict) -> tuple:
    registry = ToolRegistry([original])
    (name,) = registry.list_tools()
    result = SequentialExecutor().run([{"toolUseId": "t-1", "name": name, "input": dict(tool_input)}], registry)[0]
    if result.status == "success":
        return "value", result.value
    kind = result.metadata["error_type"]
    return ("refused", None) if kind == "ToolInputError" else ("raised", kind)


# kind → (tool, its framework's verdict, inputs: valid, a number as a string, a bad string, an extra key, one missing)
CASES = {
    "langchain": (samples.lc_multiply, _langchain, "a", {"a": 6, "b": 7}),
    "pydantic-ai": (samples.pa_power, _pydantic_ai, "base", {"base": 3}),
    "smolagents": (samples.sm_repeat, _smolagents, "times", {"text": "ab", "times": 3}),
    "llamaindex": (samples.li_pad, _llamaindex, "width", {"text": "tool", "width": 7}),
    "openai-agents": (samples.oa_subtract, _openai_agents, "a", {"a": 10, "b": 4}),
}


def _inputs(number: str, good: dict) -> list[dict]:
    first = next(iter(good))
    return [
        good,
        {**good, number: str(good[number])},
        {**good, number: "many"},
        {**good, "extra": 1},
        {k: v for k, v in good.items() if k != first},
    ]


@pytest.mark.parametrize("kind", list(CASES))
def test_an_adapted_tool_accepts_and_refuses_what_its_framework_does(kind):
    original, framework, number, good = CASES[kind]
    for tool_input in _inputs(number, good):
        assert _workbench(original, tool_input) == framework(original, tool_input), tool_input


def test_the_issue_example_langchain_multiply_with_a_string_six():
    assert samples.lc_multiply.invoke({"a": "6", "b": 7}) == 42
    assert _workbench(samples.lc_multiply, {"a": "6", "b": 7}) == ("value", 42)
    assert _workbench(samples.pa_power, {"base": "3"}) == ("value", 9)
    # and in an agent run, whose calls go through the executor
    model = ScriptedModel([{"tool_calls": [{"name": "lc_multiply", "input": {"a": "6", "b": 7}}]}, "42"])
    assert run_agent(model, "6 x 7?", tools=[samples.lc_multiply]).tool_results[0].json == 42


def test_a_refusal_is_a_tool_input_error_in_the_workbench_words():
    registry = ToolRegistry([samples.lc_multiply, samples.pa_power, samples.sm_repeat])
    run = SequentialExecutor().run
    lc = run([{"toolUseId": "1", "name": "lc_multiply", "input": {"a": "six", "b": 7}}], registry)[0]
    assert lc.metadata["error_type"] == "ToolInputError"
    assert "a: expected integer, received 'six' (string)" in lc.metadata["error"]
    pa = run([{"toolUseId": "2", "name": "pa_power", "input": {"base": 3, "extra": 1}}], registry)[0]
    assert "extra: unexpected field" in pa.metadata["error"]
    sm = run([{"toolUseId": "3", "name": "sm_repeat", "input": {"text": "ab", "times": "2"}}], registry)[0]
    assert sm.metadata["error_type"] == "ToolInputError" and "times" in sm.metadata["error"]
    for name in ("lc_multiply", "pa_power"):
        not_object = run([{"toolUseId": "4", "name": name, "input": [1, 2]}], registry)[0]
        assert "expected an object mapping parameter names to values" in not_object.metadata["error"]


def test_a_langchain_tool_that_handles_validation_errors_answers_them_itself():
    from langchain_core.tools import tool as lc_tool

    @lc_tool
    def double(n: int) -> int:
        """Double."""
        return 2 * n

    double.handle_validation_error = "give n as a whole number"
    assert double.invoke({"n": "x"}) == "give n as a whole number"
    assert _workbench(double, {"n": "x"}) == ("value", "give n as a whole number")


def test_validation_modes_do_not_change_an_adapted_tool():
    from workbench.executor import validating

    with validating("strict"):
        assert _workbench(samples.lc_multiply, {"a": "6", "b": 7}) == ("value", 42)
    registry = ToolRegistry([samples.lc_multiply], validation="strict")
    result = SequentialExecutor(validation="strict").run(
        [{"toolUseId": "1", "name": "lc_multiply", "input": {"a": "6", "b": 7}}], registry
    )[0]
    assert result.value == 42


# -- out --------------------------------------------------------------------------------------------------
@tool
def divide(a: int, b: int) -> float:
    """Divide a by b."""
    return a / b


def test_an_exported_pydantic_ai_tool_retries_bad_input_only():
    from pydantic_ai import Agent, ModelRetry
    from pydantic_ai.models.test import TestModel

    def native(a: int, b: int) -> float:
        """Divide a by b."""
        return a / b

    # TestModel calls with a=0, b=0: the native tool raises ZeroDivisionError out of the run
    with pytest.raises(ZeroDivisionError):
        Agent(TestModel(), tools=[native]).run_sync("go")
    # the exported one raises the real error too (its message and type name), not "exceeded max retries"
    with pytest.raises(WorkbenchToolError, match="ZeroDivisionError: division by zero") as raised:
        Agent(TestModel(), tools=[to_pydantic_ai(divide)]).run_sync("go")
    assert raised.value.result.metadata["error_type"] == "ZeroDivisionError"
    # bad input is still the model's to correct: ModelRetry with the workbench's message
    exported = to_pydantic_ai(divide)
    with pytest.raises(ModelRetry, match=r"a: expected integer, received 'one'"):
        asyncio.run(exported.function(a="one", b=1))


def test_an_exported_pydantic_ai_tool_passes_max_retries_through():
    from pydantic_ai import Agent
    from pydantic_ai.exceptions import UnexpectedModelBehavior
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import FunctionModel

    def script() -> FunctionModel:
        calls = []

        def model(messages: list, info: Any) -> ModelResponse:
            calls.append(1)
            if len(calls) <= 3:  # bad input three times, then good input
                return ModelResponse(parts=[ToolCallPart("divide", {"a": "x", "b": 1})])
            if len(calls) == 4:
                return ModelResponse(parts=[ToolCallPart("divide", {"a": 4, "b": 2})])
            return ModelResponse(parts=[TextPart("2")])

        return FunctionModel(model)

    assert to_pydantic_ai(divide).max_retries is None  # the agent's default, as for a native tool
    with pytest.raises(UnexpectedModelBehavior, match="exceeded max retries"):
        Agent(script(), tools=[to_pydantic_ai(divide)]).run_sync("go")
    exported = to_pydantic_ai(divide, max_retries=3)
    assert exported.max_retries == 3
    assert Agent(script(), tools=[exported]).run_sync("go").output == "2"
    with pytest.raises(ValueError, match="max_retries must be a non-negative integer"):
        to_pydantic_ai(divide, max_retries=-1)


def test_an_exported_openai_agents_tool_is_strict_where_its_schema_allows():
    from agents import function_tool

    @tool
    def greet(name: str, times: int = 1) -> str:
        """Greet."""
        return ", ".join([f"hi {name}"] * times)

    @function_tool
    def native_greet(name: str, times: int = 1) -> str:
        """Greet."""
        return ", ".join([f"hi {name}"] * times)

    exported = to_openai_agents(greet)
    assert native_greet.strict_json_schema is True and exported.strict_json_schema is True
    assert exported.params_json_schema == greet.spec.to_provider_format("openai", strict=True)["function"]["parameters"]
    assert exported.params_json_schema["required"] == ["name", "times"]
    # in strict mode the model sends null for what it leaves out: the default applies, as in the SDK's own tool
    assert asyncio.run(exported.on_invoke_tool(None, json.dumps({"name": "Ada", "times": None}))) == "hi Ada"
    assert asyncio.run(exported.on_invoke_tool(None, json.dumps({"name": "Ada", "times": 2}))) == "hi Ada, hi Ada"
    assert to_openai_agents(greet, strict=False).strict_json_schema is False

    @tool
    def store(data: dict) -> int:
        """Store any object (strict mode cannot express an open object)."""
        return len(data)

    loose = to_openai_agents(store)
    assert loose.strict_json_schema is False and loose.params_json_schema == store.spec.parameters
    from workbench._errors import ToolSpecError

    with pytest.raises(ToolSpecError, match="store"):
        to_openai_agents(store, strict=True)
