"""Tool transforms: a new tool made from an existing one, forwarding every call to it.

``derive(tool, name=..., description=..., args={"q": Arg(name="query", description=..., default=...,
hide=True)})`` returns a :class:`DerivedTool`: its spec (and so its JSON Schema, every provider export,
its MCP listing and its form) says the new name, description and arguments; a call is validated by the
parent's own validator (its constraints and conversions), with the renamed arguments mapped back and the
hidden ones given their default, and runs the parent's body. ``tool.with_description(text)`` is the common
case: the same tool, described differently (an A/B of descriptions in ``run_evals(variants=...)``).
"""

from __future__ import annotations

import copy
import inspect
import json
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional

from workbench._errors import ToolInputError, ToolSpecError
from workbench.context import ToolContext
from workbench.spec import ToolSpec
from workbench.tools import BaseTool

__all__ = ["Arg", "DerivedTool", "derive"]


class _Unset:
    """No value given (``None`` is a default like any other)."""

    def __repr__(self) -> str:
        return "UNSET"

    def __reduce__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()

#: the spec fields a derived tool takes from its parent unchanged
_RUNTIME_FIELDS = (
    "returns",
    "when_to_use",
    "long_running",
    "supports_async",
    "idempotent",
    "permission",
    "timeout",
    "validation",
)


@dataclass(frozen=True)
class Arg:
    """How :func:`derive` changes one argument of the parent tool.

    ``name``: the argument's new name (the parent still receives it under its own). ``description``:
    its new description. ``default``: its new default (it becomes optional; a JSON value, shown in the
    schema). ``hide``: leave it out of the schema; every call gives the parent ``default`` (or the
    parent's own default when ``default`` is not set), and a caller cannot set it.
    """

    name: Optional[str] = None
    description: Optional[str] = None
    default: Any = UNSET
    hide: bool = False


@dataclass(frozen=True)
class _Plan:
    """What a derived tool does to its parent's arguments, computed (and checked) once."""

    to_parent: dict[str, str]  # visible derived name -> parent name
    to_derived: dict[str, str]  # parent name -> visible derived name
    defaults: dict[str, Any]  # visible derived name -> the default derive gave it
    hidden: dict[str, Any]  # parent name -> the value every call gives it (hidden args with a default)
    hidden_names: frozenset[str]  # every hidden parent name (also those left to the parent's default)
    allows_extra: bool  # the parent takes undeclared keys (``additionalProperties`` not false)


def derive(
    tool: BaseTool,
    *,
    name: Optional[str] = None,
    description: Optional[str] = None,
    args: Optional[Mapping[str, Arg]] = None,
) -> "DerivedTool":
    """A tool that forwards to ``tool`` under a new ``name``/``description``, its arguments changed by
    ``args`` (parent argument name -> :class:`Arg`).

    Raises ``ToolSpecError`` naming the tool and the argument for an argument the parent does not have,
    a hidden argument with no default (neither given nor the parent's), two arguments given one name, or
    a default that is not JSON.
    """
    if not isinstance(tool, BaseTool):
        raise TypeError(f"derive() needs a tool (a @tool function or a BaseTool), got {type(tool).__name__}: {tool!r}")
    return DerivedTool(tool, name=name, description=description, args=args)


class DerivedTool(BaseTool):
    """A tool made by :func:`derive`: its own spec, its parent's body. ``parent`` is the tool it forwards to."""

    def __init__(
        self,
        parent: BaseTool,
        *,
        name: Optional[str] = None,
        description: Optional[str] = None,
        args: Optional[Mapping[str, Arg]] = None,
    ) -> None:
        # no super().__init__(): the class-form checks are for user subclasses
        self.parent = parent
        self._derive_options = (name, description, dict(args or {}))
        parent_spec = parent.spec
        label = f"derive({parent_spec.name})"
        plan = _plan(label, parent_spec.parameters, dict(args or {}))
        self._plan = plan
        spec = ToolSpec.model_construct(
            name=parent_spec.name if name is None else name,
            description=parent_spec.description if description is None else description,
            parameters=_derived_schema(parent_spec.parameters, plan, dict(args or {})),
            param_names=[
                plan.to_derived.get(p, p) for p in parent_spec.param_names or [] if p not in plan.hidden_names
            ],
            **{field: copy.deepcopy(getattr(parent_spec, field)) for field in _RUNTIME_FIELDS},
        )
        spec._input_validator = self._validator(None)
        spec._variants = self._validator  # one per validation mode, each the parent's of that mode
        private = parent_spec.__pydantic_private__ or {}
        spec._generated = bool(private.get("_generated"))
        spec._return_checker = private.get("_return_checker")  # the same returns, checked the same way
        spec.validate_structure()
        self.__dict__["_wb_spec"] = spec
        self.__dict__["_wb_ctx"] = parent.context_param

    # -- validation: the parent's, in the derived tool's names ---------------------------------------
    def _validator(self, mode: Optional[str]) -> Callable[[str, Any], dict]:
        plan = self._plan

        def validate(tool_name: str, raw: Any) -> dict:
            # the parent's own validator of ``mode`` (check_inputs: through its flat check when it has one)
            check = self.parent.spec.check_inputs
            if type(raw) is not dict:
                try:
                    return check(raw, mode)  # it explains what it wanted
                except ToolInputError as exc:
                    raise ToolInputError(tool_name, exc.errors) from None
            to_parent = plan.to_parent
            unknown = (
                ()
                if to_parent.keys() >= raw.keys()
                else [
                    key
                    for key in raw
                    if key not in to_parent
                    and (not plan.allows_extra or key in plan.to_derived or key in plan.hidden_names)
                ]
            )
            given = {to_parent.get(key, key): value for key, value in raw.items() if key not in unknown}
            if plan.defaults:
                for derived_name, default in plan.defaults.items():
                    given.setdefault(to_parent[derived_name], copy.deepcopy(default))
            if plan.hidden:
                given.update(plan.hidden)
            try:
                checked = check(given, mode)
            except ToolInputError as exc:
                raise ToolInputError(
                    tool_name,
                    [_renamed_error(error, plan) for error in exc.errors] + _unknown_errors(raw, unknown, plan),
                ) from None
            if unknown:
                raise ToolInputError(tool_name, _unknown_errors(raw, unknown, plan))
            hidden, to_derived = plan.hidden_names, plan.to_derived
            return {to_derived.get(key, key): value for key, value in checked.items() if key not in hidden}

        return validate

    # -- calling ----------------------------------------------------------------------------------------
    def _to_parent(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        plan = self._plan
        mapped = {plan.to_parent.get(key, key): value for key, value in arguments.items()}
        for derived_name, default in plan.defaults.items():
            mapped.setdefault(plan.to_parent[derived_name], copy.deepcopy(default))
        mapped.update(plan.hidden)
        return mapped

    def _invoke(self, arguments: dict[str, Any], context: Optional[ToolContext] = None) -> Any:
        return self.parent._invoke(self._to_parent(arguments), context)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call the parent's body with these (derived) arguments, unvalidated, as calling a ``@tool`` does."""
        return self.parent._invoke(self._to_parent(self.spec.build_input(*args, **kwargs)), None)

    async def acall(self, *args: Any, **kwargs: Any) -> Any:
        """Await the parent's body (in a worker thread when it is sync).

        Raises :class:`ToolPermissionError` for an ``always_deny`` or ``ask_user`` tool."""
        arguments = self._to_parent(self.spec.build_input(*args, **kwargs))
        if self.parent._call_target_is_async():
            value = self.parent._invoke(arguments, None)
            return await value if inspect.isawaitable(value) else value
        import asyncio  # see BaseTool.acall

        return await asyncio.to_thread(self.parent._invoke, arguments, None)

    def _call_target_is_async(self) -> bool:
        return self.parent._call_target_is_async()

    @property
    def context_param(self) -> Optional[str]:
        return self.parent.context_param

    @property
    def has_implementation(self) -> bool:
        return self.parent.has_implementation

    @property
    def tool_type(self) -> str:
        return "derived"

    @property
    def description(self) -> str:
        return self.spec.description

    def __reduce__(self) -> Any:
        """Pickle as the recipe (parent + options): process pools run derived tools too."""
        name, description, args = self._derive_options
        return (_rebuild, (self.parent, name, description, args))

    def __repr__(self) -> str:
        return f"<derived tool {self.tool_name!r} of {self.parent!r}>"


def _rebuild(parent: BaseTool, name: Optional[str], description: Optional[str], args: dict[str, Arg]) -> DerivedTool:
    return DerivedTool(parent, name=name, description=description, args=args)


def _plan(label: str, parameters: dict[str, Any], args: dict[str, Arg]) -> _Plan:
    props = parameters.get("properties") or {}
    for key, arg in args.items():
        if key not in props:
            raise ToolSpecError(
                f"{label}: the tool has no argument '{key}' (its arguments: {', '.join(props) or 'none'})"
            )
        if not isinstance(arg, Arg):
            raise ToolSpecError(
                f"{label}: args['{key}'] must be an Arg(name=, description=, default=, hide=), "
                f"got {type(arg).__name__}: {arg!r}"
            )
        if arg.default is not UNSET and not arg.hide:
            try:
                json.dumps(arg.default)
            except (TypeError, ValueError):
                raise ToolSpecError(
                    f"{label}: the default of argument '{key}' must be a JSON value (it is shown in "
                    f"the schema), got {type(arg.default).__name__}: {arg.default!r}"
                ) from None
    hidden_names = frozenset(key for key, arg in args.items() if arg.hide)
    required = set(parameters.get("required") or [])
    hidden: dict[str, Any] = {}
    for key in sorted(hidden_names):
        arg = args[key]
        if arg.default is not UNSET:
            hidden[key] = arg.default
        elif key in required:
            raise ToolSpecError(
                f"{label}: hidden argument '{key}' needs a default (the tool requires it and "
                "has none): Arg(hide=True, default=...)"
            )
    to_parent: dict[str, str] = {}
    for key in props:
        if key in hidden_names:
            continue
        renamed = args[key].name if key in args else None
        new = key if renamed is None else renamed
        if new in to_parent:
            raise ToolSpecError(f"{label}: arguments '{to_parent[new]}' and '{key}' would both be named '{new}'")
        to_parent[new] = key
    for new, key in to_parent.items():
        if new in hidden_names and new != key:
            raise ToolSpecError(
                f"{label}: argument '{key}' cannot be renamed '{new}': that is the name of a hidden argument"
            )
    defaults = {
        new: args[key].default for new, key in to_parent.items() if key in args and args[key].default is not UNSET
    }
    extra = parameters.get("additionalProperties", False)
    return _Plan(
        to_parent, {key: new for new, key in to_parent.items()}, defaults, hidden, hidden_names, extra is not False
    )


def _derived_schema(parameters: dict[str, Any], plan: _Plan, args: dict[str, Arg]) -> dict[str, Any]:
    schema = copy.deepcopy(parameters)
    props = schema.get("properties") or {}
    new_props: dict[str, Any] = {}
    for new, key in plan.to_parent.items():
        sub = props[key]
        arg = args.get(key)
        if arg is not None and isinstance(sub, dict):
            sub = dict(sub)
            if arg.description is not None:
                sub["description"] = arg.description
            if arg.default is not UNSET:
                sub["default"] = copy.deepcopy(arg.default)
        new_props[new] = sub
    schema["properties"] = new_props
    required = [
        plan.to_derived[key]
        for key in schema.get("required") or []
        if key in plan.to_derived and plan.to_derived[key] not in plan.defaults
    ]
    if required:
        schema["required"] = required
    else:
        schema.pop("required", None)
    return schema


def _renamed_error(error: dict, plan: _Plan) -> dict:
    """A parent's validation error in the derived tool's names (a hidden argument's, without its value)."""
    field = str(error.get("field", ""))
    head = field.split(".", 1)[0].split("[", 1)[0]
    if head in plan.hidden_names:
        return {
            **error,
            "received": "the hidden default",
            "message": f"hidden argument '{head}': its default is refused by the tool (expected "
            f"{error.get('expected', 'another value')})",
        }
    new = plan.to_derived.get(head)
    if new is None or new == head:
        return error
    rest = field[len(head) :]
    message = str(error.get("message", ""))
    if message.startswith(head):
        message = new + message[len(head) :]
    return {
        **error,
        "field": new + rest,
        "path": f"$.{new}{rest if rest.startswith('[') else rest}",
        "message": message,
    }


def _unknown_errors(raw: dict, unknown: Any, plan: _Plan) -> list[dict]:
    """An *unexpected field* error per key the derived tool does not take (a hidden or an old name too)."""
    expected = f"one of the parameters ({', '.join(plan.to_parent) or 'none'})"
    return [
        {
            "path": f"$.{key}",
            "field": key,
            "expected": expected,
            "received": _shown(raw[key]),
            "message": f"{key}: unexpected field (expected {expected}), received {_shown(raw[key])}",
        }
        for key in unknown
    ]


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
