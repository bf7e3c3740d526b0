"""smolagents: ``Tool`` in and out.

In: the spec is ``get_tool_json_schema(tool)["function"]`` — what a ``ToolCallingAgent`` sends to the
model — and a call is what the agent does: ``validate_tool_arguments(tool, args)``, then
``tool(**args, sanitize_inputs_outputs=True)`` (``setup()`` on first use, agent types converted).

Out: ``to_smolagents(tool)`` is a ``Tool`` whose ``inputs`` carry each parameter's JSON Schema (its
``type`` mapped to smolagents' types, ``nullable`` for optional parameters) and whose ``forward``
runs the call through a workbench executor.
"""

from __future__ import annotations

import copy
import inspect
from typing import Any, Optional

from workbench.adapters._common import AdaptedTool, ExportedCall, not_a_tool, require, spec_of
from workbench.executor import ToolExecutor

__all__ = ["adapt", "to_smolagents"]

_EXTRA = "smolagents"

#: JSON Schema type → smolagents input type (anything else is "any")
_TYPES = {
    "string": "string",
    "boolean": "boolean",
    "integer": "integer",
    "number": "number",
    "array": "array",
    "object": "object",
    "null": "null",
}


def _smolagents() -> Any:
    return require("smolagents", _EXTRA, "The smolagents adapter")


def adapt(obj: Any) -> list[AdaptedTool]:
    """The workbench tool of a smolagents ``Tool``."""
    smolagents = _smolagents()
    if isinstance(obj, smolagents.Tool):
        return [adapt_tool(obj)]
    raise not_a_tool(obj, "smolagents")


def adapt_tool(sm_tool: Any) -> AdaptedTool:
    """One smolagents ``Tool`` as a workbench tool."""
    from smolagents.models import get_tool_json_schema
    from smolagents.tools import validate_tool_arguments

    function = get_tool_json_schema(sm_tool)["function"]

    def call(arguments: dict[str, Any], call_id: Optional[str]) -> Any:
        validate_tool_arguments(sm_tool, arguments)
        return sm_tool(**arguments, sanitize_inputs_outputs=True)

    # the agent's own check (its types, required inputs, ``nullable`` ones taking null), before the call
    spec = spec_of(
        function["name"],
        function.get("description"),
        function["parameters"],
        framework="smolagents",
        check=lambda arguments: validate_tool_arguments(sm_tool, arguments),
    )
    return AdaptedTool(spec, sm_tool, "smolagents", call, rebuild=(adapt_tool, (sm_tool,), {}))


def _input_type(schema: dict[str, Any]) -> "str | list[str]":
    kind = schema.get("type")
    if isinstance(kind, list):
        mapped = [_TYPES.get(k, "any") for k in kind]
        return mapped if len(mapped) > 1 else mapped[0]
    if isinstance(kind, str):
        return _TYPES.get(kind, "any")
    branches = [b.get("type") for b in schema.get("anyOf") or schema.get("oneOf") or [] if isinstance(b, dict)]
    mapped = sorted({_TYPES.get(k, "any") for k in branches if isinstance(k, str)} - {"null"})
    return mapped[0] if len(mapped) == 1 else "any"


def _inputs(parameters: dict[str, Any]) -> dict[str, dict[str, Any]]:
    required = set(parameters.get("required") or [])
    inputs = {}
    for name, schema in (parameters.get("properties") or {}).items():
        schema = copy.deepcopy(schema) if isinstance(schema, dict) else {}
        entry = {**schema, "type": _input_type(schema), "description": schema.get("description") or name}
        if name not in required:
            entry["nullable"] = True
        inputs[name] = entry
    return inputs


def _output_type(returns: dict[str, Any]) -> str:
    kind = returns.get("type") if isinstance(returns, dict) else None
    return _TYPES.get(kind, "any") if isinstance(kind, str) else "any"


def to_smolagents(tool: Any, *, executor: Optional[ToolExecutor] = None, log: Any = None, approver: Any = None) -> Any:
    """``tool`` as a smolagents ``Tool`` whose calls run through a workbench executor.

    Args:
        tool: a workbench tool, a function (made a tool with ``@tool``) or another framework's tool.
        executor: the executor each call runs on (default: a ``SequentialExecutor``).
        log: an ``ExecutionLog`` that gets a row per call.
        approver: the approver of a default executor, for ``ask_user`` tools.

    smolagents names must be Python identifiers, so a ``-`` in the name becomes ``_``. A call
    returns the tool's value; an error result raises ``WorkbenchToolError`` (the agent reports it to
    the model as a tool error).
    """
    smolagents = _smolagents()
    exported = ExportedCall(tool, executor=executor, log=log, approver=approver, target="to_smolagents")
    spec = exported.spec
    inputs = _inputs(spec.parameters)
    names = list(inputs)

    def forward(self: Any, *args: Any, **kwargs: Any) -> Any:
        arguments = {**dict(zip(names, args)), **kwargs}
        # smolagents passes an optional input the model left out as None; the workbench omits it
        arguments = {k: v for k, v in arguments.items() if not (v is None and inputs[k].get("nullable"))}
        return exported.value(arguments)

    forward.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [
            inspect.Parameter(
                n,
                inspect.Parameter.POSITIONAL_OR_KEYWORD,
                default=None if inputs[n].get("nullable") else inspect.Parameter.empty,
            )
            for n in names
        ]
    )
    attributes = {
        "name": exported.name.replace("-", "_"),
        "description": spec.description or exported.name,
        "inputs": inputs,
        "output_type": _output_type(spec.returns),
        "forward": forward,
        # forward takes the inputs by name, but has no type hints for smolagents to compare
        "skip_forward_signature_validation": True,
        "workbench_tool": exported.tool,
    }
    cls = type(f"WorkbenchTool_{attributes['name']}", (smolagents.Tool,), attributes)
    return cls()
