"""OpenAI Agents SDK: ``FunctionTool`` in and out.

In: the spec is the tool's ``name``, ``description`` and ``params_json_schema`` (what the SDK sends
to the model); a call is the SDK's ``invoke_function_tool`` with a ``ToolContext`` (``context=None``,
the call's id and JSON arguments), so the SDK's argument parsing and validation, its
``timeout_seconds`` and its failure function (which turns an exception into the message the model
reads) apply. ``needs_approval=True`` becomes the ``ask_user`` permission. Every Agents SDK tool is
async, so the adapted tool is too.

Out: ``to_openai_agents(tool)`` is a ``FunctionTool`` whose ``params_json_schema`` is the workbench
tool's OpenAI strict-mode schema where strict mode can express it (``strict_json_schema=True``, as
``@function_tool`` defaults to), else its JSON Schema as it is, and whose ``on_invoke_tool`` runs the
call through a workbench executor.
"""

from __future__ import annotations

import json
from typing import Any, Optional

from workbench.adapters._common import AdaptedTool, ExportedCall, new_call_id, not_a_tool, require, spec_of, text_of
from workbench.executor import ToolExecutor
from workbench.types import Permission

__all__ = ["adapt", "to_openai_agents"]

_EXTRA = "openai-agents"


def _agents() -> Any:
    return require("agents", _EXTRA, "The OpenAI Agents SDK adapter")


def adapt(obj: Any) -> list[AdaptedTool]:
    """The workbench tool of an Agents SDK ``FunctionTool``."""
    agents = _agents()
    if isinstance(obj, agents.FunctionTool):
        return [adapt_tool(obj)]
    raise not_a_tool(obj, "openai-agents")


def adapt_tool(function_tool: Any, *, context: Any = None) -> AdaptedTool:
    """One ``FunctionTool`` as a workbench tool; ``context`` is the run context its calls see
    (``ToolContext.context``, default ``None``)."""
    from agents.tool import invoke_function_tool
    from agents.tool_context import ToolContext

    name = function_tool.name

    async def call(arguments: dict[str, Any], call_id: Optional[str]) -> Any:
        text = json.dumps(arguments)
        ctx = ToolContext(context=context, tool_name=name, tool_call_id=call_id or new_call_id(), tool_arguments=text)
        return await invoke_function_tool(function_tool=function_tool, context=ctx, arguments=text)

    # no check before the call: the SDK validates the arguments in it (its params model, in pydantic's lax
    # mode) and its failure function answers bad ones, as the model would read it
    spec = spec_of(
        name,
        function_tool.description,
        function_tool.params_json_schema,
        supports_async=True,
        framework="OpenAI Agents SDK",
    )
    if function_tool.needs_approval is True:
        spec.permission = Permission.ASK_USER
    if function_tool.timeout_seconds:
        spec.timeout = float(function_tool.timeout_seconds)
    return AdaptedTool(
        spec,
        function_tool,
        "openai-agents",
        call,
        wants_call_id=True,
        rebuild=(adapt_tool, (function_tool,), {"context": context}),
    )


def to_openai_agents(
    tool: Any,
    *,
    executor: Optional[ToolExecutor] = None,
    log: Any = None,
    approver: Any = None,
    strict: Optional[bool] = None,
) -> Any:
    """``tool`` as an Agents SDK ``FunctionTool`` whose calls run through a workbench executor.

    Args:
        tool: a workbench tool, a function (made a tool with ``@tool``) or another framework's tool.
        executor: the executor each call runs on (default: a ``SequentialExecutor``).
        log: an ``ExecutionLog`` that gets a row per call.
        approver: the approver of a default executor, for ``ask_user`` tools.
        strict: ``None`` (default): the OpenAI strict-mode schema with ``strict_json_schema=True``
            where strict mode can express the schema (as ``@function_tool`` does by default), else the
            schema as it is; ``True``: strict or ``ToolSpecError`` naming what strict mode cannot
            express; ``False``: the schema as it is. In strict mode the model sends ``null`` for an
            optional parameter it leaves out; the call drops it again, so the default applies.

    ``on_invoke_tool`` returns the tool's value, or for an error result (bad input, denied permission,
    timeout, an exception in the tool) its text (``"Error: ..."``), which the model reads.
    """
    agents = _agents()
    exported = ExportedCall(tool, executor=executor, log=log, approver=approver, target="to_openai_agents")
    from workbench._errors import ToolSpecError
    from workbench.formats import normalize_arguments

    spec = exported.spec
    schema = None
    if strict is not False:
        try:
            schema = spec.to_provider_format("openai", strict=True)["function"]["parameters"]
        except ToolSpecError:
            if strict:
                raise
    strict = schema is not None
    if schema is None:
        schema = json.loads(json.dumps(spec.parameters))

    async def on_invoke_tool(ctx: Any, input_json: str) -> Any:
        try:
            arguments = json.loads(input_json) if input_json else {}
        except json.JSONDecodeError as exc:
            raise ValueError(f"Tool '{exported.name}': the arguments are not valid JSON ({exc})") from None
        if strict:
            arguments = normalize_arguments(spec, arguments, "openai", strict=True)
        result = await exported.arun(arguments, getattr(ctx, "tool_call_id", None) or None)
        # a hand-made FunctionTool handles its own errors (the SDK's failure function is for
        # @function_tool): the model reads the error result's text, as a workbench provider export sends it
        return text_of(result) if result.status == "error" else result.value

    return agents.FunctionTool(
        name=exported.name,
        description=spec.description,
        params_json_schema=schema,
        on_invoke_tool=on_invoke_tool,
        strict_json_schema=strict,
    )
