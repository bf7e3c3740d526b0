"""workbench.adapters with CrewAI, in and out.

CrewAI (1.7 and later) requires mcp<2, so it cannot share the test environment of the mcp extra;
this file runs in an environment of its own, ``.venv-crewai`` (``pip install -e ".[crewai]" pytest
pytest-timeout``, built by .ci/system-deps), where forms, ``map`` and an executor run the adapted tool.
The main suite runs it there: ``tests/test_adapters/test_crewai_env.py``. Its name keeps the main
environment's pytest from collecting it.
"""

from __future__ import annotations

import asyncio

import pytest
from crewai.tools import BaseTool as CrewBaseTool  # noqa: E402
from crewai.tools import tool as crew_tool  # noqa: E402
from crewai.utilities.agent_utils import convert_tools_to_openai_schema  # noqa: E402
from pydantic import BaseModel, Field  # noqa: E402

from workbench import SequentialExecutor, ToolRegistry, tool  # noqa: E402
from workbench.adapters import AdaptedTool, WorkbenchToolError, adapt, to_crewai  # noqa: E402
from workbench.log import ExecutionLog  # noqa: E402


@crew_tool("word_count")
def word_count(text: str) -> int:
    """Count the words of a text."""
    return len(text.split())


class RepeatInput(BaseModel):
    text: str = Field(description="the text to repeat")
    times: int = Field(default=2, ge=1, description="how many times")


class RepeatTool(CrewBaseTool):
    name: str = "repeat"
    description: str = "Repeat a text."
    args_schema: type[BaseModel] = RepeatInput

    def _run(self, text: str, times: int = 2) -> str:
        return text * times


def _use(name, tool_input, use_id="c-1"):
    return {"toolUseId": use_id, "name": name, "input": tool_input}


def test_adapted_crewai_tool_shows_crewais_schema_and_runs_its_way():
    registry = ToolRegistry([word_count, RepeatTool(max_usage_count=1)])
    for original in (word_count, registry.get_tool("repeat").original):
        (sent,) = convert_tools_to_openai_schema([original])[0]
        adapted = registry.get_tool(sent["function"]["name"])
        assert isinstance(adapted, AdaptedTool) and adapted.framework == "crewai"
        assert {
            "name": adapted.spec.name,
            "description": adapted.spec.description,
            "parameters": adapted.spec.parameters,
        } == {k: sent["function"][k] for k in ("name", "description", "parameters")}
    ex = SequentialExecutor()
    assert ex.run([_use("word_count", {"text": "a b c"})], registry)[0].value == 3
    assert ex.run([_use("repeat", {"text": "ab", "times": 3})], registry)[0].value == "ababab"
    spent = ex.run([_use("repeat", {"text": "ab", "times": 3})], registry)[0]  # max_usage_count=1: CrewAI says no
    assert spent.status == "error" and "usage limit" in spent.metadata["error"]


def test_crewai_validation_applies():
    registry = ToolRegistry([RepeatTool()])
    bad = SequentialExecutor().run([_use("repeat", {"text": "ab", "times": 0})], registry)[0]
    assert bad.status == "error"


def test_an_adapted_crewai_tool_accepts_and_refuses_what_crewai_does():
    # CrewAI's run checks args_schema.model_validate (pydantic's lax mode): "3" is a number of times
    registry = ToolRegistry([RepeatTool()])
    for tool_input in (
        {"text": "ab", "times": "3"},
        {"text": "ab", "times": "x"},
        {"text": "ab", "times": 3, "extra": 1},
    ):
        try:
            expected = ("value", RepeatTool().run(**tool_input))
        except ValueError:
            expected = ("refused", None)
        result = SequentialExecutor().run([_use("repeat", tool_input)], registry)[0]
        got = (
            ("value", result.value)
            if result.status == "success"
            else (
                "refused" if result.metadata["error_type"] == "ToolInputError" else result.metadata["error_type"],
                None,
            )
        )
        assert got == expected, (tool_input, result.content)


def test_adapted_crewai_tool_in_map_and_a_form():
    (adapted,) = adapt(word_count)
    frame = SequentialExecutor().map(adapted, [{"text": "one two"}, {"text": "x"}], progress=False)
    assert list(frame["value"]) == [2, 1]
    from workbench.jupyter import ToolForm, reset_workbench

    wb = reset_workbench()
    try:
        wb.registry.register_tool(adapted, replace=True)
        form = ToolForm(adapted, wb)
        form.set_values({"text": "a b c d"})
        assert form.run().value == 4
    finally:
        wb.executor.close()


@tool
def add(a: int, b: int = 1) -> int:
    """Add two integers."""
    return a + b


@tool(permission="deny")
def forbidden(x: int) -> int:
    """Never runs."""
    return x


def test_to_crewai_runs_through_the_executor():
    log = ExecutionLog()
    crew = to_crewai(add, log=log)
    assert isinstance(crew, CrewBaseTool) and crew.name == "add" and crew.description == "Add two integers."
    (sent,) = convert_tools_to_openai_schema([crew])[0]
    # CrewAI's strict form of the workbench schema: every property required, no additional ones
    assert sent["function"]["parameters"]["properties"] == add.spec.parameters["properties"]
    assert sent["function"]["parameters"]["additionalProperties"] is False
    assert crew.run(a=2, b=3) == 5
    assert asyncio.run(crew.arun(a=4)) == 5
    assert [(r["tool_name"], r["status"]) for r in log.rows()] == [("add", "success"), ("add", "success")]
    assert log.rows()[0]["input"] == {"a": 2, "b": 3}
    with pytest.raises(WorkbenchToolError, match="not allowed to run"):
        to_crewai(forbidden).run(x=1)


def test_an_adapted_crewai_tool_round_trips_through_pickle_with_its_settings():
    """Adapted tools travel (Dask workers, process pools) as their framework's tool, adapted again."""
    import pickle

    (adapted,) = adapt(RepeatTool())
    adapted.spec.timeout = 3.5
    copy = pickle.loads(pickle.dumps(adapted))
    assert copy is not adapted and copy.tool_name == "repeat" and copy.spec.timeout == 3.5
    assert copy.spec.parameters == adapted.spec.parameters
    result = SequentialExecutor().run([_use("repeat", {"text": "ab", "times": 3})], ToolRegistry([copy]))[0]
    assert result.status == "success" and result.value == "ababab", result
