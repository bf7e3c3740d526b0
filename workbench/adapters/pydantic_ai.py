"""pydantic-ai: ``Tool`` and ``FunctionToolset`` in, ``Tool`` out.

In: the tool is put in a ``FunctionToolset`` and read back with ``get_tools(ctx)``, so its spec is the
``ToolDefinition`` pydantic-ai sends to a model (after the tool's ``prepare`` function) — name,
description, ``parameters_json_schema`` — and a call is the toolset's own path: the tool's
``args_validator``, then ``call_tool``. The ``RunContext`` a call sees is a default one: ``deps``
given to ``adapt_tool`` (default ``None``), a ``TestModel`` as the model, fresh usage, the call's id
and name, ``retry=0``. ``requires_approval=True`` becomes the ``ask_user`` permission.
A ``ModelRetry`` (or a validation error) is an error result whose message is what pydantic-ai
would send back to the model; no retry happens (there is no model to retry).

Out: ``to_pydantic_ai(tool)`` is a ``Tool`` built with ``Tool.from_schema`` on the workbench tool's
JSON Schema; a call runs through a workbench executor. Bad input becomes ``ModelRetry`` (what
pydantic-ai does with arguments its own validator refuses); any other error raises, as a native
tool's exception does.
"""

from __future__ import annotations

import copy
from typing import Any, Optional

from workbench.adapters._common import AdaptedTool, ExportedCall, new_call_id, not_a_tool, require, spec_of
from workbench.executor import ToolExecutor, run_sync
from workbench.types import Permission

__all__ = ["adapt", "adapt_tool", "to_pydantic_ai"]

_EXTRA = "pydantic-ai"


def _pai() -> Any:
    return require("pydantic_ai", _EXTRA, "The pydantic-ai adapter")


def _context(deps: Any, name: Optional[str] = None, call_id: Optional[str] = None) -> Any:
    from pydantic_ai import RunContext
    from pydantic_ai.models.test import TestModel
    from pydantic_ai.usage import RunUsage

    return RunContext(deps=deps, model=TestModel(), usage=RunUsage(), tool_name=name, tool_call_id=call_id)


def adapt(obj: Any, *, deps: Any = None) -> list[AdaptedTool]:
    """The workbench tools of a pydantic-ai ``Tool`` (one) or ``FunctionToolset`` (each of its tools)."""
    pai = _pai()
    from pydantic_ai.toolsets import FunctionToolset

    if isinstance(obj, pai.Tool):
        return adapt_toolset(FunctionToolset([obj]), deps=deps)
    if isinstance(obj, FunctionToolset):
        return adapt_toolset(obj, deps=deps)
    raise not_a_tool(obj, "pydantic-ai")


def adapt_tool(tool: Any, *, deps: Any = None) -> AdaptedTool:
    """One pydantic-ai ``Tool`` as a workbench tool; its calls see ``RunContext.deps = deps``."""
    from pydantic_ai.toolsets import FunctionToolset

    return adapt_toolset(FunctionToolset([tool]), deps=deps)[0]


def adapt_toolset(toolset: Any, *, deps: Any = None) -> list[AdaptedTool]:
    """Each tool of a ``FunctionToolset`` as a workbench tool."""
    tools = run_sync(toolset.get_tools(_context(deps)))
    return [_adapted(toolset, toolset_tool, deps) for toolset_tool in tools.values()]


def _adapted(toolset: Any, toolset_tool: Any, deps: Any) -> AdaptedTool:
    from pydantic_ai.exceptions import ModelRetry

    definition = toolset_tool.tool_def
    name = definition.name
    validator = toolset_tool.args_validator

    async def call(arguments: dict[str, Any], call_id: Optional[str]) -> Any:
        ctx = _context(deps, name, call_id or new_call_id())
        try:
            validated = validator.validate_python(arguments)
            return await toolset.call_tool(name, validated, ctx, toolset_tool)
        except ModelRetry as exc:
            raise ModelRetry(f"Tool '{name}' asked the model to retry: {exc.message}") from None

    # the toolset's own check of a call's arguments (a dict: validate_python, in pydantic's lax mode)
    spec = spec_of(
        name,
        definition.description,
        definition.parameters_json_schema,
        supports_async=True,
        framework="pydantic-ai",
        check=validator.validate_python,
    )
    if definition.kind == "unapproved":  # requires_approval=True
        spec.permission = Permission.ASK_USER
    original = toolset.tools.get(getattr(toolset_tool, "original_name", None) or name, toolset_tool)
    return AdaptedTool(
        spec, original, "pydantic-ai", call, wants_call_id=True, rebuild=(adapt_toolset, (toolset,), {"deps": deps})
    )


def to_pydantic_ai(
    tool: Any,
    *,
    executor: Optional[ToolExecutor] = None,
    log: Any = None,
    approver: Any = None,
    max_retries: Optional[int] = None,
) -> Any:
    """``tool`` as a pydantic-ai ``Tool`` whose calls run through a workbench executor.

    Args:
        tool: a workbench tool, a function (made a tool with ``@tool``) or another framework's tool.
        executor: the executor each call runs on (default: a ``SequentialExecutor``).
        log: an ``ExecutionLog`` that gets a row per call.
        approver: the approver of a default executor, for ``ask_user`` tools.
        max_retries: the ``Tool``'s ``max_retries`` (default: the agent's, as for a native tool).

    The ``Tool``'s definition carries the workbench tool's name, description and JSON Schema; a call
    returns the tool's value. Input the workbench tool refuses (a ``ToolInputError`` result) raises
    ``ModelRetry`` with its message — pydantic-ai sends it to the model, which may try again, as it
    does for arguments its own validator refuses; any other error result (an exception in the tool,
    a denied permission, a timeout) raises ``WorkbenchToolError``, ending the run as a native
    tool's exception would, rather than using up the model's retries.
    """
    pai = _pai()

    def error(result: Any) -> BaseException:
        from workbench.adapters._common import WorkbenchToolError

        if result.metadata.get("error_type") == "ToolInputError":
            return pai.ModelRetry(WorkbenchToolError(result).args[0])
        return WorkbenchToolError(result)

    exported = ExportedCall(tool, executor=executor, log=log, approver=approver, error=error, target="to_pydantic_ai")

    async def function(**kwargs: Any) -> Any:
        return await exported.avalue(kwargs)

    exported_tool = pai.Tool.from_schema(
        function,
        name=exported.name,
        description=exported.spec.description,
        json_schema=copy.deepcopy(exported.spec.parameters),
        takes_ctx=False,
    )
    if max_retries is not None:  # (from_schema takes no max_retries)
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError(f"to_pydantic_ai: max_retries must be a non-negative integer, got {max_retries!r}")
        exported_tool.max_retries = max_retries
    return exported_tool
