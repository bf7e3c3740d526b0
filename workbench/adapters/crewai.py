"""CrewAI: ``crewai.tools.BaseTool`` in and out.

In: the spec is what CrewAI's native function calling sends to the model,
``convert_tools_to_openai_schema([tool])`` (its sanitised name, its authored description, and the
``args_schema`` made strict: ``additionalProperties: false``, ``$ref`` resolved); a call is
``tool.run(**args)``, so CrewAI's argument validation and usage limit apply (a ``ToolFailure``,
e.g. a spent ``max_usage_count``, is an error result).

Out: ``to_crewai(tool)`` is a ``BaseTool`` whose ``args_schema`` gives the workbench tool's JSON
Schema (CrewAI then makes it strict as above) and whose ``run``/``arun`` run the call through a
workbench executor.
"""

from __future__ import annotations

import copy
from typing import Any, Optional

from workbench.adapters._common import AdaptedTool, ExportedCall, ForeignToolError, not_a_tool, require, spec_of
from workbench.executor import ToolExecutor

__all__ = ["adapt", "to_crewai"]

_EXTRA = "crewai"


def _tools() -> Any:
    return require("crewai.tools", _EXTRA, "The CrewAI adapter")


def adapt(obj: Any) -> list[AdaptedTool]:
    """The workbench tool of a CrewAI tool."""
    tools = _tools()
    if isinstance(obj, tools.BaseTool):
        return [adapt_tool(obj)]
    raise not_a_tool(obj, "crewai")


def adapt_tool(crew_tool: Any) -> AdaptedTool:
    """One CrewAI ``BaseTool`` as a workbench tool."""
    from crewai.tools.tool_failure import ToolFailure
    from crewai.utilities.agent_utils import convert_tools_to_openai_schema

    function = convert_tools_to_openai_schema([crew_tool])[0][0]["function"]

    def call(arguments: dict[str, Any], call_id: Optional[str]) -> Any:
        value = crew_tool.run(**arguments)
        if isinstance(value, ToolFailure):
            raise ForeignToolError(value.message)
        return value

    parameters = function.get("parameters") or {"type": "object", "properties": {}}
    # what BaseTool.run checks first: args_schema.model_validate (pydantic's lax mode), if it has fields
    schema = crew_tool.args_schema
    check = schema.model_validate if schema is not None and schema.model_fields else None
    spec = spec_of(function["name"], function.get("description"), parameters, framework="CrewAI", check=check)
    # a CrewAI tool holds a lock (its usage count), so it cannot be pickled itself: its fields can
    fields = {name: getattr(crew_tool, name) for name in type(crew_tool).model_fields}
    return AdaptedTool(spec, crew_tool, "crewai", call, rebuild=(_adapt_again, (type(crew_tool), fields), {}))


def _adapt_again(tool_class: type, fields: dict[str, Any]) -> AdaptedTool:
    """An unpickled adapted CrewAI tool: its tool made again from its fields, then adapted."""
    return adapt_tool(tool_class(**fields))


def _schema_model(name: str, parameters: dict[str, Any]) -> type:
    """A pydantic model whose JSON Schema is ``parameters`` and that takes any arguments (the
    workbench executor validates them): what ``BaseTool.args_schema`` holds."""
    from pydantic import BaseModel, ConfigDict

    frozen = copy.deepcopy(parameters)

    def model_json_schema(cls: type, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return copy.deepcopy(frozen)

    return type(
        f"{name}_arguments",
        (BaseModel,),
        {"model_config": ConfigDict(extra="allow"), "model_json_schema": classmethod(model_json_schema)},
    )


def to_crewai(tool: Any, *, executor: Optional[ToolExecutor] = None, log: Any = None, approver: Any = None) -> Any:
    """``tool`` as a CrewAI ``BaseTool`` whose calls run through a workbench executor.

    Args:
        tool: a workbench tool, a function (made a tool with ``@tool``) or another framework's tool.
        executor: the executor each call runs on (default: a ``SequentialExecutor``).
        log: an ``ExecutionLog`` that gets a row per call.
        approver: the approver of a default executor, for ``ask_user`` tools.

    ``run(**args)`` returns the tool's value; an error result raises ``WorkbenchToolError`` (CrewAI
    reports it to the agent as a tool error).
    """
    tools = _tools()
    exported = ExportedCall(tool, executor=executor, log=log, approver=approver, target="to_crewai")

    # a base class found at run time (crewai is imported on first use): mypy cannot resolve it
    class WorkbenchCrewTool(tools.BaseTool):  # type: ignore[name-defined]
        def _run(self, **kwargs: Any) -> Any:
            return exported.value(kwargs)

        async def _arun(self, **kwargs: Any) -> Any:
            return await exported.avalue(kwargs)

    return WorkbenchCrewTool(
        name=exported.name,
        description=exported.spec.description or exported.name,
        args_schema=_schema_model(exported.name, exported.spec.parameters),
    )
