"""LangChain: ``BaseTool`` / ``StructuredTool`` (and a toolkit's ``get_tools()``) in, ``StructuredTool`` out.

In: the spec is ``convert_to_openai_tool(tool)["function"]`` — the name, description and parameters
LangChain sends to a model (injected arguments left out) — and a call is ``tool.invoke(args)``
(``ainvoke`` for a coroutine-only tool), so LangChain's own validation, ``handle_tool_error`` /
``handle_validation_error`` and callbacks apply. A tool with injected arguments is invoked with a
``ToolCall`` so LangChain injects ``InjectedToolCallId``; its ``ToolMessage`` content is the value
(an error status becomes an error result).

Out: ``to_langchain(tool)`` is a ``StructuredTool`` whose ``args_schema`` is the workbench tool's
JSON Schema; ``invoke``/``ainvoke`` run one call through a workbench executor and return its value,
raising LangChain's ``ToolException`` for an error result.
"""

from __future__ import annotations

import copy
from typing import Any, Optional

from workbench.adapters._common import (
    AdaptedTool,
    ExportedCall,
    ForeignToolError,
    WorkbenchToolError,
    new_call_id,
    not_a_tool,
    require,
    spec_of,
)
from workbench.executor import ToolExecutor

__all__ = ["adapt", "to_langchain"]

_EXTRA = "langchain"


def _tools() -> Any:
    return require("langchain_core.tools", _EXTRA, "The LangChain adapter")


def adapt(obj: Any) -> list[AdaptedTool]:
    """The workbench tools of a LangChain tool or toolkit."""
    lc = _tools()
    if isinstance(obj, lc.BaseTool):
        return [adapt_tool(obj)]
    if isinstance(obj, lc.BaseToolkit):
        return [adapt_tool(t) for t in obj.get_tools()]
    raise not_a_tool(obj, "langchain")


def _message_value(message: Any) -> Any:
    """A ``ToolMessage``'s content (what the model reads); an error status is an error."""
    messages = require("langchain_core.messages", _EXTRA, "The LangChain adapter")
    if not isinstance(message, messages.ToolMessage):
        return message  # e.g. a langgraph Command: the tool's own return, as LangChain gives it
    if message.status == "error":
        raise ForeignToolError(message.content if isinstance(message.content, str) else str(message.content))
    return message.content


def adapt_tool(lc_tool: Any) -> AdaptedTool:
    """One LangChain ``BaseTool`` as a workbench tool."""
    from langchain_core.utils.function_calling import convert_to_openai_tool

    lc = _tools()
    function = convert_to_openai_tool(lc_tool)["function"]
    is_async = isinstance(lc_tool, lc.StructuredTool) and lc_tool.func is None and lc_tool.coroutine is not None
    # injected arguments (InjectedToolCallId…) are filled in only when LangChain is given a ToolCall
    as_tool_call = bool(lc_tool._injected_args_keys)  # (without them, tool_call_schema is args_schema's fields)
    name = lc_tool.name

    if as_tool_call:

        def payload(arguments: dict[str, Any], call_id: Optional[str]) -> Any:
            return {"type": "tool_call", "name": name, "args": arguments, "id": call_id or new_call_id()}
    else:

        def payload(arguments: dict[str, Any], call_id: Optional[str]) -> Any:
            return arguments

    if is_async:

        async def call(arguments: dict[str, Any], call_id: Optional[str]) -> Any:
            return _message_value(await lc_tool.ainvoke(payload(arguments, call_id)))
    elif as_tool_call:
        # (each branch defines `call`: mypy wants one signature, and the async one returns a coroutine)
        def call(arguments: dict[str, Any], call_id: Optional[str]) -> Any:  # type: ignore[misc]
            return _message_value(lc_tool.invoke(payload(arguments, call_id)))
    else:
        invoke = lc_tool.invoke

        def call(arguments: dict[str, Any], call_id: Optional[str]) -> Any:  # type: ignore[misc]
            return invoke(arguments)

    spec = spec_of(
        function["name"],
        function.get("description"),
        function.get("parameters") or {"type": "object", "properties": {}},
        supports_async=is_async,
        framework="LangChain",
        check=_input_check(lc_tool, as_tool_call),
    )
    return AdaptedTool(
        spec, lc_tool, "langchain", call, wants_call_id=as_tool_call, rebuild=(adapt_tool, (lc_tool,), {})
    )


def _input_check(lc_tool: Any, as_tool_call: bool) -> Any:
    """What ``invoke`` checks before running the tool: ``args_schema.model_validate`` (pydantic's lax
    mode, unless the model says otherwise) — the schema the model fills in for a tool with injected
    arguments. ``None`` for a JSON Schema ``args_schema`` (LangChain checks nothing then)."""
    from pydantic import BaseModel

    schema = lc_tool.tool_call_schema if as_tool_call else lc_tool.args_schema
    if not (isinstance(schema, type) and issubclass(schema, BaseModel)):
        return None
    validate = schema.model_validate

    def check(arguments: dict[str, Any]) -> None:
        if not lc_tool.handle_validation_error:  # else invoke answers bad input itself, as the model reads it
            validate(arguments)

    return check


def to_langchain(tool: Any, *, executor: Optional[ToolExecutor] = None, log: Any = None, approver: Any = None) -> Any:
    """``tool`` as a LangChain ``StructuredTool`` whose calls run through a workbench executor.

    Args:
        tool: a workbench tool, a function (made a tool with ``@tool``) or another framework's tool.
        executor: the executor each call runs on (default: a ``SequentialExecutor``).
        log: an ``ExecutionLog`` that gets a row per call.
        approver: the approver of a default executor, for ``ask_user`` tools.

    ``invoke(args)`` returns the tool's value; an error result (bad input, denied permission,
    timeout, an exception in the tool) raises ``langchain_core.tools.ToolException`` with the
    result's message, which ``handle_tool_error=True`` turns into the model's observation.
    """
    lc = _tools()

    def error(result: Any) -> BaseException:
        exc = lc.ToolException(WorkbenchToolError(result).args[0])
        exc.result = result
        return exc

    exported = ExportedCall(tool, executor=executor, log=log, approver=approver, error=error, target="to_langchain")

    def run(**kwargs: Any) -> Any:
        return exported.value(kwargs)

    async def arun(**kwargs: Any) -> Any:
        return await exported.avalue(kwargs)

    return lc.StructuredTool(
        name=exported.name,
        description=exported.spec.description,
        args_schema=copy.deepcopy(exported.spec.parameters),
        func=run,
        coroutine=arun,
    )
