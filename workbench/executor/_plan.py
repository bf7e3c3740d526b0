"""The call plan: what ``prepare`` and ``invoke`` reduce to for a tool that needs nothing but
validate-and-call, computed once per tool and spec and cached on the spec (``ToolSpec.call_plan``, a
cache this package owns; any change of the spec drops it).

Such a tool's permission is ``always_allow``; it has no timeout, is not long-running nor idempotent,
has an implementation, takes no ``ToolContext`` and has a built validator. For its calls the pipeline's
other steps (permission, approval, idempotency, synthetic values, context, time limit) do nothing, so
the executors run the plan's two steps — ``validate`` then ``func(**arguments)`` — and shape the result
as every call's is shaped."""

from __future__ import annotations

from typing import Any, Callable, NamedTuple, Optional

from pydantic import ValidationError

from workbench.tools import BaseTool, DecoratedFunctionTool
from workbench.types import Permission

__all__ = ["CallPlan", "call_plan"]

_ALLOW = Permission.ALWAYS_ALLOW
_BASE_PERMISSION = BaseTool.__dict__["permission"]


class CallPlan(NamedTuple):
    """A validate-and-call tool's plan (see the module). ``func`` is the plain function when calling it
    with the arguments as keywords is exactly what the tool's ``_invoke`` does (else ``None``: the
    tool's ``_invoke`` is called)."""

    spec: Any
    tool: Any
    validator: Optional[Callable[[str, Any], dict]]  # None: not a validate-and-call tool (a cached "no")
    func: Optional[Callable[..., Any]]
    is_async: bool
    check: Optional[Callable[[Any], Optional[str]]]  # the returns check (None: no returns declared)
    flat_check: Optional[Callable[[Any], dict]]  # the validator's own first check, for scalar parameters

    def validate(self, name: str, raw_input: Any) -> dict:
        """The validated arguments, as ``ToolSpec.check_inputs`` gives them (its flat check first; what
        that refuses, the validator explains by raising ``ToolInputError``)."""
        flat_check = self.flat_check
        if flat_check is not None and type(raw_input) is dict:
            try:
                return flat_check(raw_input)
            except ValidationError:
                pass
        return self.validator(name, raw_input)  # type: ignore[misc]


def call_plan(tool: Any) -> Optional[CallPlan]:
    """``tool``'s plan, or ``None`` when its calls need more than validate-and-call. Cached on its spec;
    a copied spec or another tool object sharing the spec is told apart by identity."""
    spec = tool.spec
    plan = spec.call_plan()
    if plan is None or plan.spec is not spec or plan.tool is not tool:
        plan = _new_plan(tool, spec)
        spec.keep_call_plan(plan)
    return plan if plan.validator is not None else None


def _new_plan(tool: Any, spec: Any) -> CallPlan:
    refused = CallPlan(spec, tool, None, None, False, None, None)
    try:
        flat_check, validator = spec.input_checks()
        permission = spec.permission if type(tool).permission is _BASE_PERMISSION else tool.permission
        if (
            validator is None
            or Permission.coerce(permission) is not _ALLOW
            or spec.timeout is not None
            or spec.long_running
            or spec.idempotent
            or not tool.has_implementation
            or tool.context_param is not None
        ):
            return refused
        direct = (
            type(tool)._invoke is DecoratedFunctionTool._invoke
            and not tool._positional_only
            and tool.__dict__.get("_wb_ctx") is None
        )
        return CallPlan(
            spec,
            tool,
            validator,
            tool._func if direct else None,
            bool(spec.supports_async),
            spec.returns_checker(),
            flat_check,
        )
    except Exception:  # noqa: BLE001 - anything odd (a malformed permission…): the full pipeline reports it
        return refused
