"""What every framework adapter shares: the adapted tool, the exporter's call path, the extra check.

*In*: an :class:`AdaptedTool` is a workbench tool whose spec is the one the framework would send to
a model and whose body calls the framework's own invocation path (``call``). *Out*: an
:class:`ExportedCall` runs a call the framework makes through a workbench executor, so permissions,
approvals, timeouts and the execution log apply.
"""

from __future__ import annotations

import importlib
import json
import uuid
from typing import Any, Callable, Optional

from workbench.context import ToolContext
from workbench.executor import SequentialExecutor, ToolExecutor
from workbench.registry import ToolRegistry
from workbench.spec import ToolSpec
from workbench.tools import BaseTool
from workbench.types import ToolResult

__all__ = [
    "AdaptedTool",
    "ExportedCall",
    "ForeignToolError",
    "WorkbenchToolError",
    "require",
    "new_call_id",
    "not_a_tool",
    "spec_of",
    "framework_inputs",
    "text_of",
]


class ForeignToolError(RuntimeError):
    """An adapted tool's framework reported a failed call (e.g. a LlamaIndex ``ToolOutput`` with
    ``is_error``, a pydantic-ai ``ModelRetry``); the message is what that framework would show the model."""


class WorkbenchToolError(RuntimeError):
    """An exported tool's call ended in an error ``ToolResult`` (bad input, denied permission, timeout,
    an exception in the tool). ``result`` is that ``ToolResult``; the message is its error text."""

    def __init__(self, result: ToolResult) -> None:
        self.result = result
        super().__init__(result.metadata.get("error") or text_of(result))


def require(module: str, extra: str, what: str) -> Any:
    """Import ``module`` or raise ``ImportError`` naming the extra that installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(
            f"{what} needs the '{module.split('.')[0]}' package, which is not installed: "
            f"pip install 'tool-workbench[{extra}]' ({exc})"
        ) from None


def new_call_id() -> str:
    """A tool-call id for a framework that wants one and was given none."""
    return f"call_{uuid.uuid4().hex[:24]}"


def spec_of(
    name: str,
    description: Optional[str],
    parameters: dict[str, Any],
    *,
    supports_async: bool = False,
    returns: Optional[dict[str, Any]] = None,
    framework: str,
    check: Optional[Callable[[dict[str, Any]], Any]] = None,
) -> ToolSpec:
    """A ``ToolSpec`` holding a framework's own name, description and parameters schema, unchanged,
    whose input check is the framework's own: ``check(arguments)`` (see :func:`framework_inputs`).

    The schema is the framework's output (made by pydantic in most of them), so it is not checked
    against the JSON Schema meta-schema — the check that costs milliseconds a tool; the structure
    checks still run.
    """
    spec = ToolSpec(
        name=name,
        description=description or "",
        parameters=parameters,
        returns=returns or {},
        supports_async=supports_async,
    )
    spec.__pydantic_private__["_generated"] = True
    try:
        spec.validate_structure()
    except ValueError as exc:
        raise ValueError(f"The {framework} tool {name!r} cannot become a workbench tool: {exc}") from None
    spec._input_validator = framework_inputs(spec.parameters, check, framework)
    return spec


def framework_inputs(
    parameters: dict[str, Any], check: Optional[Callable[[dict[str, Any]], Any]], framework: str
) -> Callable[[str, Any], dict]:
    """An adapted tool's input check: what its framework checks before calling it, nothing more, so a
    call it accepts in production is accepted here (``"6"`` for an ``int`` where it validates in
    pydantic's lax mode) and one it refuses is refused — before the call, as a ``ToolInputError``.

    ``check(arguments)`` is the framework's own validation (its args model's ``model_validate``, its
    validator…): a pydantic ``ValidationError`` it raises is worded as the workbench words input
    errors; a ``ValueError``/``TypeError`` keeps the framework's message. ``None``: the framework
    checks nothing before the call (or checks it in the call and answers the model itself). Either
    way the arguments must be an object, nested at most ``MAX_INPUT_DEPTH`` levels; they are passed
    on as given, for the framework to convert as it does. Validation modes do not apply: the
    framework's is the tool's mode.
    """
    from pydantic import ValidationError

    from workbench._errors import ToolInputError
    from workbench._validation import PydanticErrorReport, _error, _not_an_object, _scan

    report: list[PydanticErrorReport] = []  # made on first need: most calls are valid

    def validate(tool_name: str, raw: Any) -> dict:
        if not isinstance(raw, dict):
            raise _not_an_object(tool_name, raw)
        _scan(tool_name, raw)  # refuses an input nested too deeply before any validator recurses into it
        if check is not None:
            try:
                check(raw)
            except ValidationError as exc:
                if not report:
                    report.append(PydanticErrorReport(parameters))
                raise report[0].error(tool_name, exc, raw) from None
            except (ValueError, TypeError) as exc:
                error = _error((), f"input {framework} accepts", raw)
                error["message"] = str(exc)
                raise ToolInputError(tool_name, [error]) from None
        return dict(raw)

    return validate


_CALL_CONTEXT = "<the call's ToolContext>"  # not an identifier: never a parameter of the schema


class AdaptedTool(BaseTool):
    """A tool of another framework, as a workbench tool.

    ``spec`` holds the name, description and JSON Schema that framework sends to a model; a call runs
    ``call(arguments, call_id)`` — the framework's own invocation path — which returns the value (or,
    for an async tool, an awaitable of it). ``call_id`` is the executor's ``toolUseId`` when
    ``wants_call_id``, else ``None`` (a ``call`` that needs an id then makes one: ``new_call_id()``). ``original`` is the framework's tool
    object and ``framework`` its name (``"langchain"``, ``"openai-agents"``…).
    """

    def __init__(
        self,
        spec: ToolSpec,
        original: Any,
        framework: str,
        call: Callable[[dict[str, Any], Optional[str]], Any],
        *,
        wants_call_id: bool = False,
        rebuild: Optional[tuple[Callable[..., Any], tuple, dict[str, Any]]] = None,
    ) -> None:
        """``rebuild`` is how to adapt ``original`` again — ``(function, args, kwargs)`` with an importable
        function returning this tool or a list holding it — which is how the tool is pickled (Dask
        workers, process pools): ``call`` is a closure, but the framework's tool object can travel."""
        # no super().__init__(): the class-form checks are for subclasses written by hand
        self.__dict__["_wb_spec"] = spec
        self._rebuild = rebuild
        # a context parameter makes the executors pass the call's ToolContext, whose toolUseId is the
        # id the framework's tool sees (only for tools that can see one: the context costs a little)
        self.__dict__["_wb_ctx"] = _CALL_CONTEXT if wants_call_id else None
        self.original = original
        self.framework = framework
        self._foreign_call = call

    @property
    def tool_type(self) -> str:
        return self.framework

    def __call__(self, **kwargs: Any) -> Any:
        """Call the framework's tool with ``kwargs`` (its own path; an async tool returns an awaitable)."""
        return self._foreign_call(kwargs, None)

    def _call_target_is_async(self) -> bool:
        return self.spec.supports_async

    def _invoke(self, arguments: dict[str, Any], context: Optional[ToolContext] = None) -> Any:
        return self._foreign_call(arguments, context.tool_use.get("toolUseId") if context is not None else None)

    def get_display_properties(self) -> dict[str, str]:
        props = super().get_display_properties()
        props["Type"] = f"{self.framework} tool ({type(self.original).__name__})"
        return props

    def __repr__(self) -> str:
        return f"<AdaptedTool {self.tool_name!r} from {self.framework} ({type(self.original).__name__})>"

    def __reduce__(self) -> Any:
        """Pickled as its recipe: the framework's tool object, adapted again where it is unpickled, with
        this tool's runtime settings (permission, timeout…, which may have been changed since)."""
        if self._rebuild is None:
            raise TypeError(
                f"Tool '{self.tool_name}' (a {self.framework} tool) cannot be pickled: its adapter "
                f"gave no way to rebuild it"
            )
        runtime = {key: getattr(self.spec, key) for key in _RUNTIME_KEYS}
        return _rebuild_adapted, (self._rebuild, self.tool_name, runtime)


#: the spec settings a user may change on an adapted tool; the rest comes from the framework again
_RUNTIME_KEYS = ("when_to_use", "long_running", "idempotent", "permission", "timeout")


def _rebuild_adapted(recipe: tuple, name: str, runtime: dict[str, Any]) -> AdaptedTool:
    """An unpickled :class:`AdaptedTool`: ``recipe`` run again, the tool named ``name`` picked, its runtime set."""
    function, args, kwargs = recipe
    made = function(*args, **kwargs)
    found = next((item for item in (made if isinstance(made, list) else [made]) if item.tool_name == name), None)
    if found is None:
        raise ValueError(f"Tool '{name}' is no longer among the tools its framework object gives")
    for key, value in runtime.items():
        setattr(found.spec, key, value)
    return found


def text_of(result: ToolResult) -> str:
    """A result's text as a model would read it: its text blocks, else its JSON value as JSON."""
    texts = [str(block["text"]) for block in result.content if "text" in block]
    if texts:
        return "\n".join(texts)
    for block in result.content:
        if "json" in block:
            return json.dumps(block["json"], ensure_ascii=False)
    return ""


class ExportedCall:
    """How an exported tool runs a call: as one ``ToolUse`` through a workbench executor.

    ``executor`` defaults to a ``SequentialExecutor(approver=approver)``; ``log`` (an ``ExecutionLog``)
    gets a row per call; ``registry`` is a one-tool registry of ``tool``, so the executor finds it by
    name. ``run``/``arun`` return the ``ToolResult``; ``value``/``avalue`` return the tool's value or
    raise ``error`` (default :class:`WorkbenchToolError`) for an error result.
    """

    def __init__(
        self,
        tool: Any,
        *,
        executor: Optional[ToolExecutor] = None,
        log: Any = None,
        approver: Any = None,
        error: Callable[[ToolResult], BaseException] = WorkbenchToolError,
        target: str = "an exported tool",
    ) -> None:
        from workbench.adapters import as_workbench_tool

        item = as_workbench_tool(tool, target=target)
        if executor is not None and approver is not None:
            raise TypeError(
                f"{target}: pass approver= to the executor you give ({type(executor).__name__}"
                "(approver=...)), or give approver= without executor="
            )
        if executor is not None and not isinstance(executor, ToolExecutor):
            raise TypeError(
                f"{target}: executor must be a workbench ToolExecutor (SequentialExecutor(), "
                f"ConcurrentExecutor()…), got {type(executor).__name__}"
            )
        self.tool = item
        self.name = item.tool_name
        self.spec = item.spec
        self.executor = executor if executor is not None else SequentialExecutor(approver=approver)
        self.log = log
        self.registry = ToolRegistry([item])
        self._error = error

    def _use(self, arguments: Any, call_id: Optional[str]) -> dict[str, Any]:
        # a non-dict input is the executor's to refuse, with its usual error result
        return {"toolUseId": call_id or new_call_id(), "name": self.name, "input": arguments}

    def run(self, arguments: Any, call_id: Optional[str] = None) -> ToolResult:
        return self.executor.run([self._use(arguments, call_id)], self.registry, log=self.log)[0]

    async def arun(self, arguments: Any, call_id: Optional[str] = None) -> ToolResult:
        return (await self.executor.execute([self._use(arguments, call_id)], self.registry, log=self.log))[0]

    def outcome(self, result: ToolResult) -> Any:
        if result.status == "error":
            raise self._error(result)
        return result.value

    def value(self, arguments: Any, call_id: Optional[str] = None) -> Any:
        return self.outcome(self.run(arguments, call_id))

    async def avalue(self, arguments: Any, call_id: Optional[str] = None) -> Any:
        return self.outcome(await self.arun(arguments, call_id))


def not_a_tool(obj: Any, adapter: str) -> TypeError:
    """The error for an object of a known framework that its adapter cannot turn into a tool."""
    from workbench.adapters import ADAPTERS, _what

    entry = ADAPTERS[adapter]
    if isinstance(obj, type):
        return TypeError(
            f"{_what(obj)} is a {entry.label} class, not a tool: pass an instance of it. "
            f"Accepted from {entry.label}: {entry.accepts}"
        )
    return TypeError(
        f"{_what(obj)} comes from {entry.label} but is not a tool workbench.adapters converts. "
        f"Accepted from {entry.label}: {entry.accepts}"
    )
