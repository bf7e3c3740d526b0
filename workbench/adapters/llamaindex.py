"""LlamaIndex: ``FunctionTool`` (any ``llama_index.core.tools.BaseTool``) in, ``FunctionTool`` out.

In: the spec is ``tool.metadata.to_openai_tool()["function"]`` — what LlamaIndex's function-calling
LLMs send — and a call is ``tool.call(**args)`` (``acall`` for an ``async def`` tool), so partial
params, defaults and callbacks apply; a ``ToolOutput`` with ``is_error`` is an error result. The
value is the tool's ``raw_output`` (its ``content`` when a callback may have rewritten it).

Out: ``to_llamaindex(tool)`` is a ``FunctionTool`` whose metadata carries the workbench tool's name,
description and JSON Schema (LlamaIndex keeps only its ``type``, ``properties``, ``required`` and
``$defs``) and whose ``call``/``acall`` run through a workbench executor.
"""

from __future__ import annotations

import copy
import inspect
from typing import Any, Optional

from workbench.adapters._common import AdaptedTool, ExportedCall, ForeignToolError, not_a_tool, require, spec_of
from workbench.executor import ToolExecutor

__all__ = ["adapt", "to_llamaindex"]

_EXTRA = "llamaindex"


def _tools() -> Any:
    return require("llama_index.core.tools", _EXTRA, "The LlamaIndex adapter")


def adapt(obj: Any) -> list[AdaptedTool]:
    """The workbench tool of a LlamaIndex tool."""
    tools = _tools()
    if isinstance(obj, tools.BaseTool):
        return [adapt_tool(obj)]
    raise not_a_tool(obj, "llamaindex")


def _value(output: Any, rewritten: bool) -> Any:
    if getattr(output, "is_error", False):
        raise ForeignToolError(output.content)
    return output.content if rewritten else output.raw_output


def adapt_tool(li_tool: Any) -> AdaptedTool:
    """One LlamaIndex tool as a workbench tool."""
    tools = _tools()
    function = li_tool.metadata.to_openai_tool()["function"]
    is_async = isinstance(li_tool, tools.FunctionTool) and inspect.iscoroutinefunction(li_tool._real_fn)
    rewritten = bool(getattr(li_tool, "_callback", None) or getattr(li_tool, "_async_callback", None))

    if is_async:

        async def call(arguments: dict[str, Any], call_id: Optional[str]) -> Any:
            return _value(await li_tool.acall(**arguments), rewritten)
    else:
        # (mypy wants one signature for both branches' `call`: the async one returns a coroutine)
        def call(arguments: dict[str, Any], call_id: Optional[str]) -> Any:  # type: ignore[misc]
            return _value(li_tool.call(**arguments), rewritten)

    # no check: LlamaIndex calls the function with the model's arguments as they are
    spec = spec_of(
        function["name"],
        function.get("description"),
        function["parameters"],
        supports_async=is_async,
        framework="LlamaIndex",
    )
    return AdaptedTool(spec, li_tool, "llamaindex", call, rebuild=(adapt_tool, (li_tool,), {}))


def _schema_model(name: str, parameters: dict[str, Any]) -> type:
    """A pydantic model whose JSON Schema is ``parameters``: what ``ToolMetadata.fn_schema`` holds."""
    from pydantic import BaseModel, ConfigDict

    frozen = copy.deepcopy(parameters)

    def model_json_schema(cls: type, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return copy.deepcopy(frozen)

    return type(
        f"{name}_arguments",
        (BaseModel,),
        {"model_config": ConfigDict(extra="allow"), "model_json_schema": classmethod(model_json_schema)},
    )


def to_llamaindex(tool: Any, *, executor: Optional[ToolExecutor] = None, log: Any = None, approver: Any = None) -> Any:
    """``tool`` as a LlamaIndex ``FunctionTool`` whose calls run through a workbench executor.

    Args:
        tool: a workbench tool, a function (made a tool with ``@tool``) or another framework's tool.
        executor: the executor each call runs on (default: a ``SequentialExecutor``).
        log: an ``ExecutionLog`` that gets a row per call.
        approver: the approver of a default executor, for ``ask_user`` tools.

    ``call(**args)`` returns a ``ToolOutput`` whose ``raw_output`` is the tool's value; an error
    result raises ``WorkbenchToolError`` (LlamaIndex's agents turn it into an ``is_error`` output).
    """
    tools = _tools()
    exported = ExportedCall(tool, executor=executor, log=log, approver=approver, target="to_llamaindex")
    spec = exported.spec

    def run(**kwargs: Any) -> Any:
        return exported.value(kwargs)

    async def arun(**kwargs: Any) -> Any:
        return await exported.avalue(kwargs)

    metadata = tools.ToolMetadata(
        name=exported.name, description=spec.description, fn_schema=_schema_model(exported.name, spec.parameters)
    )
    return tools.FunctionTool(fn=run, async_fn=arun, metadata=metadata)
