"""Tool objects: ``BaseTool`` (its property, execute and spec forms), ``DecoratedFunctionTool`` and ``@tool``."""

from __future__ import annotations

import functools
import importlib
import inspect
import threading
from abc import ABC
from typing import TYPE_CHECKING, Any, Callable, Generic, Optional, TypeVar, overload

from typing_extensions import ParamSpec

from workbench._errors import ToolSpecError
from workbench.context import ToolContext
from workbench.spec import ToolSpec
from workbench.types import Permission, ToolUse

__all__ = [
    "BaseTool",
    "DecoratedFunctionTool",
    "SpecOnlyTool",
    "ToolResponse",
    "NoImplementationError",
    "ToolPermissionError",
    "tool",
]

P = ParamSpec("P")
R = TypeVar("R")


class NoImplementationError(RuntimeError):
    """A spec-only tool was called without synthetic mode."""


class ToolPermissionError(PermissionError):
    """A tool's permission refuses a direct call (``invoke``, ``execute``, ``acall``).

    ``always_deny`` tools never run; ``ask_user`` tools run only through an executor that has an
    ``approver`` (a direct call has nobody to ask). ``tool_name`` and ``permission`` say which and why.
    """

    def __init__(self, tool_name: str, permission: Permission, entry_point: str) -> None:
        self.tool_name = tool_name
        self.permission = permission
        if permission is Permission.ALWAYS_DENY:
            message = f"Tool '{tool_name}' is not allowed to run (permission: always_deny); {entry_point}() refused"
        else:
            message = (
                f"Tool '{tool_name}' requires user approval (permission: ask_user) and {entry_point}() cannot "
                "ask for it: run the call through an executor with an approver, e.g. "
                "SequentialExecutor(approver=...).run([tool_use], registry)"
            )
        super().__init__(message)


# Public entry points that run a tool's body -> the private name of their unchecked body, if one is
# needed. A class that defines one of them (an execute-form ``execute``, an ``invoke``/``acall`` override) gets
# it wrapped with the permission check at class creation; its own definition stays reachable, unchecked,
# under the private name: ``__call__`` (the bare function: calling a tool directly runs the function) runs ``_execute``, executors (which
# have applied the permission with their approver) run ``_invoke``.
_ENTRY_POINTS: dict[str, Optional[str]] = {"invoke": "_invoke", "acall": None, "execute": "_execute"}


class ToolResponse:
    """A spec-form tool's return type: an ``observation`` for the model and a ``final_answer`` flag."""

    __slots__ = ("observation", "final_answer", "extras")

    def __init__(
        self, observation: Any = None, final_answer: bool = False, extras: Optional[dict[str, Any]] = None
    ) -> None:
        self.observation = observation
        self.final_answer = final_answer
        self.extras = extras or {}

    def __repr__(self) -> str:
        return f"ToolResponse(observation={self.observation!r}, final_answer={self.final_answer!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ToolResponse) and (self.observation, self.final_answer, self.extras) == (
            other.observation,
            other.final_answer,
            other.extras,
        )


def _overrides(cls: type, attr: str) -> bool:
    """True when ``cls`` defines ``attr`` somewhere below ``BaseTool``."""
    for klass in cls.__mro__:
        if klass is BaseTool:
            return False
        if attr in klass.__dict__:
            return True
    return False


def _context_param_of(method: Callable[..., Any]) -> Optional[str]:
    """Name of a parameter annotated ``ToolContext`` (class-based tools get it injected)."""
    from workbench._schema import _is_tool_context

    try:
        hints = __import__("typing").get_type_hints(method)
    except Exception:  # noqa: BLE001
        return None
    return next((name for name, hint in hints.items() if name != "return" and _is_tool_context(hint)), None)


class BaseTool(ABC):
    """Base class of every tool.

    A subclass is a complete tool in any of three forms, named by their shape:

    * **property form** — override the ``tool_name``, ``tool_spec`` and ``tool_type`` properties and
      ``__call__`` (Spark's shape);
    * **execute form** — class attributes ``name``, ``description``, ``parameters: list[ToolParameter]``,
      ``permission`` and an ``execute(**kwargs) -> dict`` method;
    * **spec form** — a class attribute ``spec = ToolSpec(...)`` (validated at construction) and
      ``__call__(**validated_inputs)`` returning a ``ToolResponse``.
    """

    _is_dynamic: bool = False
    _supports_async: bool = False
    _execute: Callable[..., Any]  # a subclass's own execute, unchecked (set by _guard_entry_points)
    _long_running: bool = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _guard_entry_points(cls)

    def __init__(self) -> None:
        cls = type(self)
        has_call = _overrides(cls, "__call__")
        property_form = _overrides(cls, "tool_spec")
        spec_form = isinstance(cls.__dict__.get("spec", getattr(cls, "spec", None)), ToolSpec)
        execute_form = isinstance(getattr(cls, "name", None), str) and _overrides(cls, "execute")
        if not ((property_form and has_call) or (spec_form and has_call) or execute_form):
            raise TypeError(
                f"{cls.__name__} is not a complete tool: define either the tool_spec/tool_name/tool_type "
                "properties and __call__ (property form), class attributes name/description/parameters and an "
                "execute() method (execute form), or a class attribute spec = ToolSpec(...) and __call__ "
                "(spec form)"
            )
        if spec_form:
            # the structure only: a description is optional here as everywhere a tool is built
            # (README); spec.validate() is the stricter lint
            cls.spec.validate_structure()  # type: ignore[attr-defined]

    # -- the normalised spec -----------------------------------------------------------------------
    @property
    def spec(self) -> ToolSpec:
        """This tool's :class:`ToolSpec` (normalised from whichever form the class uses)."""
        cached = self.__dict__.get("_wb_spec")
        if cached is None:
            cached = ToolSpec.coerce(self.tool_spec)
            if self._supports_async or self._call_target_is_async():
                cached.supports_async = True
            if self._long_running:
                cached.long_running = True
            self.__dict__["_wb_spec"] = cached
        return cached

    @property
    def tool_spec(self) -> ToolSpec:
        """The spec as the class declares it (a property-form tool may return a plain dict)."""
        preset = self.__dict__.get("_wb_spec")  # tools built around a ready spec (functions, spec-only, proxies)
        if preset is not None:
            return preset
        cls = type(self)
        declared = getattr(cls, "spec", None)
        if isinstance(declared, ToolSpec):
            return declared
        name = getattr(cls, "name", None)
        if isinstance(name, str):
            description = getattr(cls, "description", None)
            return ToolSpec(
                name=name,
                description=description if isinstance(description, str) else _class_doc(cls),
                inputs=list(getattr(cls, "parameters", None) or []),
                permission=_class_permission(cls),
            )
        raise NotImplementedError(f"{cls.__name__} defines no tool_spec")

    @property
    def tool_name(self) -> str:
        return self.spec.name

    @property
    def name(self) -> str:
        """The tool's name (``tool_name``, which every tool object also keeps). A class may set its own:
        a class attribute ``name`` (the execute form) or ``self.name = ...`` wins."""
        own = self.__dict__.get("_wb_own_name")
        return self.tool_name if own is None else own

    @name.setter
    def name(self, value: str) -> None:
        self.__dict__["_wb_own_name"] = value

    def _checked_name(self) -> str:
        """The name to register under, once the spec's structure is checked (registries call this)."""
        spec = self.spec
        spec.validate_structure()
        return spec.name

    @property
    def tool_type(self) -> str:
        return "class"

    # -- calling -----------------------------------------------------------------------------------
    # ``__call__`` is the bare tool; ``invoke``/``acall``/``execute`` check the permission first
    # (see ``_ENTRY_POINTS``): each is written here unchecked and wrapped by ``_guard_entry_points``.
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if _overrides(type(self), "execute"):
            return self._execute(*args, **kwargs)
        raise NotImplementedError(f"{type(self).__name__} does not implement __call__")

    def execute(self, **kwargs: Any) -> Any:  # the execute form; overridden by subclasses
        """The execute form's entry point (a subclass defines it as the tool body); checks the permission first."""
        raise NotImplementedError(f"{type(self).__name__} does not implement execute()")

    async def acall(self, *args: Any, **kwargs: Any) -> Any:
        """Async entry point; runs ``__call__`` in a worker thread unless it is a coroutine function.

        Raises :class:`ToolPermissionError` for an ``always_deny`` or ``ask_user`` tool."""
        if self._call_target_is_async():
            return await self._call_target()(*args, **kwargs)
        import asyncio  # here, not at the top: building and calling tools needs no event loop (import time)

        return await asyncio.to_thread(functools.partial(self, *args, **kwargs))

    def _call_target(self) -> Callable[..., Any]:
        cls = type(self)
        if _overrides(cls, "execute") and not _overrides(cls, "__call__"):
            return self._execute
        return self.__call__

    def _call_target_is_async(self) -> bool:
        return inspect.iscoroutinefunction(self._call_target())

    @property
    def context_param(self) -> Optional[str]:
        """The parameter that receives the ``ToolContext``, if any."""
        cached = self.__dict__.get("_wb_ctx", ...)
        if cached is ...:
            cached = self.__dict__["_wb_ctx"] = _context_param_of(self._call_target())
        return cached

    @property
    def has_implementation(self) -> bool:
        return True

    def invoke(self, arguments: dict[str, Any], context: Optional[ToolContext] = None) -> Any:
        """Run the tool on validated arguments. Returns the value, or an awaitable for async tools.

        Raises :class:`ToolPermissionError` for an ``always_deny`` or ``ask_user`` tool (executors
        apply the permission themselves, with their approver, and then run :meth:`_invoke`)."""
        body = self._invoke
        owner = getattr(body, "_wb_override_of", None)
        while owner is not None:  # reached through super().invoke() from an invoke override: skip it
            body = getattr(super(owner, self), "_invoke")  # noqa: B009 - mypy cannot type super() of a class found at run time
            owner = getattr(body, "_wb_override_of", None)
        return body(arguments, context)

    def _invoke(self, arguments: dict[str, Any], context: Optional[ToolContext] = None) -> Any:
        """``invoke`` without the permission check: what executors call once they have allowed the call."""
        ctx_name = self.context_param
        if ctx_name is not None and context is not None:
            arguments = {**arguments, ctx_name: context}
        return self._call_target()(**arguments)

    def _check_permission(self, entry_point: str) -> None:
        """Raise :class:`ToolPermissionError` unless this tool may run without asking anyone."""
        permission = self.permission
        if permission is Permission.ALWAYS_ALLOW:
            return
        permission = Permission.coerce(permission)
        if permission is not Permission.ALWAYS_ALLOW:
            raise ToolPermissionError(self.tool_name, permission, entry_point)

    def check_inputs(self, raw: Any) -> dict[str, Any]:
        """Validate raw inputs against this tool's spec."""
        return self.spec.check_inputs(raw)

    # -- runtime flags -------------------------------------------------------------------------------
    @property
    def supports_hot_reload(self) -> bool:
        return False

    @property
    def is_dynamic(self) -> bool:
        return self._is_dynamic

    @property
    def supports_async(self) -> bool:
        return self.spec.supports_async

    @property
    def is_long_running(self) -> bool:
        return self.spec.long_running

    @property
    def permission(self) -> Permission:  # execute-form subclasses override with a class attribute
        return self.spec.permission

    @property
    def idempotent(self) -> bool:
        return self.spec.idempotent

    @property
    def timeout(self) -> Optional[float]:
        return self.spec.timeout

    def mark_dynamic(self) -> None:
        self._is_dynamic = True

    def mark_supports_async(self) -> None:
        self._supports_async = True
        self.spec.supports_async = True

    def mark_long_running(self) -> None:
        self._long_running = True
        self.spec.long_running = True

    def get_display_properties(self) -> dict[str, str]:
        """Properties shown in UI representations of this tool."""
        spec = self.spec
        return {
            "Name": self.tool_name,
            "Type": self.tool_type,
            "Description": spec.description,
            "Parameters": ", ".join(spec.param_names or []) or "none",
            "Async": str(spec.supports_async),
            "Long running": str(spec.long_running),
            "Idempotent": str(spec.idempotent),
            "Permission": Permission.coerce(self.permission).value,
            "Timeout": "none" if spec.timeout is None else f"{spec.timeout:g} s",
        }

    # -- exports -----------------------------------------------------------------------------------
    def to_provider_format(self, provider: str, **options: Any) -> dict[str, Any]:
        """This tool in a provider's format (``openai``, ``anthropic``, ``bedrock``, ``gemini``, ``mcp``…)."""
        return self.spec.to_provider_format(provider, **options)

    def to_openai_schema(self) -> dict[str, Any]:
        return self.to_provider_format("openai")

    # -- transforms --------------------------------------------------------------------------------
    def with_description(self, description: str) -> "BaseTool":
        """This tool under the same name, described by ``description``: a ``DerivedTool`` that forwards
        every call here (``workbench.derive`` changes names and arguments too)."""
        from workbench import _entry_points  # workbench.transforms builds on this module

        return _entry_points.derive(self, description=description)

    def __repr__(self) -> str:
        from workbench._text import tool_text

        return tool_text(f"<{type(self).__name__} {self.tool_name!r}>", self)

    def _repr_html_(self) -> str:
        from workbench._html import tool_html

        return tool_html(self)


def _checked(method: Callable[..., Any], entry_point: str) -> Callable[..., Any]:
    """``method`` behind the tool's permission check (sync or async, as ``method`` is)."""
    if inspect.iscoroutinefunction(method):

        async def checked(self: BaseTool, *args: Any, **kwargs: Any) -> Any:
            self._check_permission(entry_point)
            return await method(self, *args, **kwargs)
    else:

        def checked(self: BaseTool, *args: Any, **kwargs: Any) -> Any:  # type: ignore[misc]
            self._check_permission(entry_point)
            return method(self, *args, **kwargs)

    functools.update_wrapper(checked, method)
    checked._wb_checked = True  # type: ignore[attr-defined]
    return checked


def _guard_entry_points(cls: type) -> None:
    """Wrap the entry points ``cls`` itself defines with the permission check (see ``_ENTRY_POINTS``)."""
    for public, private in _ENTRY_POINTS.items():
        method = cls.__dict__.get(public)
        if not inspect.isfunction(method) or getattr(method, "_wb_checked", False):
            continue
        if private is not None and private not in cls.__dict__:
            if public == "invoke":  # an invoke override is the body; BaseTool.invoke skips it on super()
                method._wb_override_of = cls  # type: ignore[attr-defined]
            setattr(cls, private, method)
        setattr(cls, public, _checked(method, public))


_guard_entry_points(BaseTool)


_BUILD_LOCK = threading.RLock()


def _positional_only(signature: inspect.Signature) -> tuple[str, ...]:
    return tuple(
        name for name, param in signature.parameters.items() if param.kind is inspect.Parameter.POSITIONAL_ONLY
    )


class DecoratedFunctionTool(BaseTool, Generic[P, R]):
    """A tool made from a function by ``@tool``. Calling it calls the function unchanged."""

    def __init__(
        self,
        func: Callable[P, R],
        spec: Optional[ToolSpec],  # None: built on first use (``_wb_build``)
        *,
        context_param: Optional[str] = None,
        positional_only: tuple[str, ...] = (),
        is_async: bool = False,
    ) -> None:
        # no super().__init__(): the function form needs none of the class-form checks
        self._func = func
        self.__dict__["_wb_spec"] = spec
        self.__dict__["_wb_ctx"] = context_param
        self._positional_only = positional_only
        self._is_async = is_async
        functools.update_wrapper(self, func)  # __name__, __doc__, __module__, __qualname__, __wrapped__

    if TYPE_CHECKING:
        __qualname__: str  # the function's, set on the instance by update_wrapper

    @classmethod
    def from_function(
        cls,
        func: Callable[..., Any],
        *,
        name: Optional[str] = None,
        description: Optional[str] = None,
        parameters: Optional[dict] = None,
        context: bool | str = False,
        long_running: bool = False,
        async_execution: Optional[bool] = None,
        idempotent: bool = False,
        permission: Permission | str = Permission.ALWAYS_ALLOW,
        timeout: Optional[float] = None,
        when_to_use: Optional[str] = None,
        validation: Optional[str] = None,
    ) -> "DecoratedFunctionTool":
        from workbench._schema import inspect_function, plainly_supported, read_signature

        if not callable(func):
            raise ToolSpecError(f"@tool needs a function, got {type(func).__name__}: {func!r}")
        if timeout is not None and (not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0):
            raise ToolSpecError(
                f"Tool '{name or getattr(func, '__name__', '?')}': timeout must be a positive number of seconds, got {timeout!r}"
            )
        from workbench._validation_mode import check_mode

        is_async = inspect.iscoroutinefunction(func) if async_execution is None else bool(async_execution)
        runtime = dict(
            when_to_use=when_to_use,
            long_running=long_running,
            supports_async=is_async,
            idempotent=idempotent,
            permission=Permission.coerce(permission),
            timeout=None if timeout is None else float(timeout),
            validation=check_mode(validation, f"Tool '{name or getattr(func, '__name__', '?')}'"),
        )
        tool_name = name or getattr(func, "__name__", None) or type(func).__name__
        resolved = read_signature(func, tool_name)
        if parameters is None and not context and _name_ok(tool_name) and plainly_supported(*resolved, None):
            # The lazy build: every annotation is one the schema is known to take, so nothing can fail
            # later that would have failed here; the pydantic model, the JSON Schemas and the docstring
            # are made when something first reads the spec (a call, an export, a form).
            def build() -> ToolSpec:
                info = inspect_function(func, name=name, description=description, resolved=resolved)
                return ToolSpec._from_info(info, **runtime)

            lazy = cls(
                func,
                None,
                positional_only=_positional_only(resolved[0]),
                is_async=inspect.iscoroutinefunction(func),
            )
            lazy.__dict__["_wb_build"] = build
            lazy.__dict__["_wb_name"] = tool_name
            lazy.__dict__["_wb_description"] = description  # what a catalog shows before the build
            return lazy
        info = inspect_function(
            func,
            name=name,
            description=description,
            context=context,
            explicit_schema=parameters is not None,
            resolved=resolved,
        )
        if parameters is not None:
            spec = ToolSpec(
                name=info.name, description=info.description, parameters=parameters, returns=info.returns, **runtime
            )
            # parameters= is checked as a JSON Schema, but a missing description is no error here:
            # plain @tool and registries accept one too (README); spec.validate() is the stricter lint
            spec.validate_structure()
        else:
            spec = ToolSpec._from_info(info, **runtime)
            if not spec.name or not _name_ok(spec.name):
                spec.validate()  # raises the readable name error
        return cls(
            func,
            spec,
            context_param=info.context_param,
            positional_only=info.positional_only,
            is_async=inspect.iscoroutinefunction(func),
        )

    # -- calling -----------------------------------------------------------------------------------
    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        return self._func(*args, **kwargs)

    async def acall(self, *args: Any, **kwargs: Any) -> Any:
        """Await the function if it is async, else run it in a worker thread.

        Raises :class:`ToolPermissionError` for an ``always_deny`` or ``ask_user`` tool."""
        if self._is_async:
            coroutine: Any = self._func(*args, **kwargs)  # R, for an async function, is its coroutine
            return await coroutine
        import asyncio  # see BaseTool.acall

        return await asyncio.to_thread(functools.partial(self._func, *args, **kwargs))

    async def execute(self, ctx: Optional[ToolContext] = None, **kwargs: Any) -> Any:
        """locus' entry point: run with ``kwargs``, injecting ``ctx`` when the function takes a context.

        Raises :class:`ToolPermissionError` for an ``always_deny`` or ``ask_user`` tool."""
        result = self._invoke(kwargs, ctx)
        if inspect.isawaitable(result):
            return await result
        return result

    def _invoke(self, arguments: dict[str, Any], context: Optional[ToolContext] = None) -> Any:
        ctx_name = self.__dict__["_wb_ctx"]
        if ctx_name is not None:
            arguments = {**arguments, ctx_name: context}
        func: Callable[..., Any] = self._func  # called with the arguments of a tool call, not P's
        if self._positional_only:
            arguments = dict(arguments)
            args = [arguments.pop(n) for n in self._positional_only if n in arguments]
            return func(*args, **arguments)
        return func(**arguments)

    def prepare_tool_kwargs(
        self, tool_use: ToolUse, invocation_state: Optional[dict[str, Any]] = None
    ) -> dict[str, Any]:
        """Validate ``tool_use["input"]`` and add the injected context (a framework's hook, Spark's name)."""
        kwargs = self.spec.check_inputs(tool_use.get("input") or {})
        ctx_name = self.__dict__["_wb_ctx"]
        if ctx_name is not None:
            kwargs[ctx_name] = ToolContext(tool_use=tool_use, invocation_state=invocation_state or {})
        return kwargs

    def _call_target_is_async(self) -> bool:
        return self._is_async

    # -- attributes -------------------------------------------------------------------------------
    @property
    def spec(self) -> ToolSpec:
        """This tool's :class:`ToolSpec`, built on first use when ``@tool`` could defer it."""
        spec = self.__dict__["_wb_spec"]
        if spec is None:
            spec = self._build_spec()
        return spec

    tool_spec = spec

    def _build_spec(self) -> ToolSpec:
        with _BUILD_LOCK:  # one build, also when threads (a concurrent executor) ask at once
            spec = self.__dict__["_wb_spec"]
            if spec is None:
                spec = self.__dict__["_wb_spec"] = self.__dict__.pop("_wb_build")()
        return spec

    @property
    def tool_name(self) -> str:
        spec = self.__dict__["_wb_spec"]
        return spec.name if spec is not None else self.__dict__["_wb_name"]

    def _checked_name(self) -> str:
        if self.__dict__["_wb_spec"] is None:
            # registering does not build a deferred spec: pydantic will generate it, sound by construction
            return self.__dict__["_wb_name"]
        return super()._checked_name()

    @property
    def tool_type(self) -> str:
        return "function"

    @property
    def tool_func(self) -> Callable[P, R]:
        return self._func

    fn = tool_func  # locus' name

    @property
    def description(self) -> str:
        return self.spec.description

    @property
    def parameters(self) -> dict[str, Any]:
        return self.spec.parameters

    @property
    def supports_hot_reload(self) -> bool:
        module = getattr(self._func, "__module__", None)
        return bool(module) and module != "__main__"

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        """Decorating a method: bound access calls the function with ``self``."""
        if instance is None:
            return self
        return functools.partial(self._func, instance)

    def __reduce__(self) -> Any:
        """Pickle by reference (module + qualname) so process pools can run module-level tools."""
        return (_import_by_ref, (f"{self.__module__}:{self.__qualname__}",))

    def __repr__(self) -> str:
        from workbench._text import tool_text

        return tool_text(f"<tool {self.tool_name!r}{_signature_text(self._func)}>", self)


def _class_doc(cls: type) -> str:
    """The docstring of an execute-form tool class, or of a tool class it derives from — never BaseTool's own."""
    for klass in cls.__mro__:
        if klass is BaseTool:
            break
        doc = klass.__dict__.get("__doc__")
        if isinstance(doc, str) and doc.strip():
            return inspect.cleandoc(doc)
    return ""


def _class_permission(cls: type) -> Permission | str:
    declared = getattr(cls, "permission", None)
    return declared if isinstance(declared, (Permission, str)) else Permission.ALWAYS_ALLOW


def _signature_text(func: Callable[..., Any]) -> str:
    try:
        return str(inspect.signature(func, eval_str=True))
    except Exception:  # noqa: BLE001 - unresolvable string annotations: show them as written
        try:
            return str(inspect.signature(func))
        except (TypeError, ValueError):
            return "(...)"


def _name_ok(name: str) -> bool:
    from workbench.spec import TOOL_NAME_PATTERN

    return bool(TOOL_NAME_PATTERN.match(name))


def _import_by_ref(ref: str) -> Any:
    module_name, _, qualname = ref.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


class SpecOnlyTool(BaseTool):
    """A tool known only by its spec (rdk's ``world.register_tool(spec)``); callable in synthetic mode."""

    def __init__(self, spec: ToolSpec | dict[str, Any]) -> None:
        self.__dict__["_wb_spec"] = ToolSpec.coerce(spec)
        self.__dict__["_wb_ctx"] = None

    @property
    def tool_type(self) -> str:
        return "spec"

    @property
    def has_implementation(self) -> bool:
        return False

    def __call__(self, **kwargs: Any) -> Any:
        raise NoImplementationError(
            f"Tool '{self.tool_name}' has no implementation: it was registered from a spec only. "
            "Call it with synthetic=True to get a generated value that matches its returns schema, "
            "or register a function for it."
        )

    def _invoke(self, arguments: dict[str, Any], context: Optional[ToolContext] = None) -> Any:
        return self(**arguments)


_TOOL_OPTIONS = (
    "name",
    "description",
    "parameters",
    "context",
    "long_running",
    "async_execution",
    "idempotent",
    "permission",
    "timeout",
    "when_to_use",
    "validation",
)


@overload
def tool(
    func: Callable[P, R],
    *,
    name: Optional[str] = None,
    description: Optional[str] = None,
    parameters: Optional[dict] = None,
    context: bool | str = False,
    long_running: bool = False,
    async_execution: Optional[bool] = None,
    idempotent: bool = False,
    permission: Permission | str = Permission.ALWAYS_ALLOW,
    timeout: Optional[float] = None,
    when_to_use: Optional[str] = None,
    validation: Optional[str] = None,
) -> DecoratedFunctionTool[P, R]: ...
@overload
def tool(
    func: None = None,
    *,
    name: Optional[str] = None,
    description: Optional[str] = None,
    parameters: Optional[dict] = None,
    context: bool | str = False,
    long_running: bool = False,
    async_execution: Optional[bool] = None,
    idempotent: bool = False,
    permission: Permission | str = Permission.ALWAYS_ALLOW,
    timeout: Optional[float] = None,
    when_to_use: Optional[str] = None,
    validation: Optional[str] = None,
) -> Callable[[Callable[P, R]], DecoratedFunctionTool[P, R]]: ...


def tool(
    func: Any = None,
    *,
    name: Optional[str] = None,
    description: Optional[str] = None,
    parameters: Optional[dict] = None,
    context: bool | str = False,
    long_running: bool = False,
    async_execution: Optional[bool] = None,
    idempotent: bool = False,
    permission: Permission | str = Permission.ALWAYS_ALLOW,
    timeout: Optional[float] = None,
    when_to_use: Optional[str] = None,
    validation: Optional[str] = None,
) -> Any:
    """Turn a function into a tool (``@tool`` or ``@tool(...)``); register a ``BaseTool`` subclass.

    On a function (sync or ``async def``) it returns a :class:`DecoratedFunctionTool`, still callable
    as the original function. On a ``BaseTool`` subclass (the execute form's class decorator) it instantiates
    the class, registers the instance in the default registry and returns the class.

    ``validation``: ``"strict"`` (the default: JSON's types, ``"6"`` is no integer) or ``"lax"``
    (pydantic's lax mode: ``"6"`` becomes 6) for this tool's input checks; a run's mode wins over it,
    it wins over its registry's.
    """
    options: dict[str, Any] = dict(
        name=name,
        description=description,
        parameters=parameters,
        context=context,
        long_running=long_running,
        async_execution=async_execution,
        idempotent=idempotent,
        permission=permission,
        timeout=timeout,
        when_to_use=when_to_use,
        validation=validation,
    )

    def decorate(obj: Any) -> Any:
        if isinstance(obj, type) and issubclass(obj, BaseTool):
            from workbench import _entry_points  # the registry sits a layer above the tools

            _entry_points.register_class_tool(obj())
            return obj
        if isinstance(obj, BaseTool):
            return obj
        return DecoratedFunctionTool.from_function(obj, **options)

    if func is not None:
        return decorate(func)
    return decorate
