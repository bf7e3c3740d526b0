"""Executors: run batches of tool calls (README.md, "A short tour" and "Batch runs").

Every call goes through one pipeline — look up, permission, validation,
idempotency, invoke, result — split into synchronous steps so that a quick
sync tool in a sequential ``run`` never touches an event loop or a thread
(the dominant cost in the peer SDKs), and an ``async def`` tool without a
timeout is awaited in the caller's task (no task, no extra loop iteration),
while everything that needs more (timeouts, concurrency, approvals, thread or
process pools) goes through the general async path. Bad calls become
``status="error"`` results; the executor itself never raises for one.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import functools
import inspect
import threading
import time
import traceback
import types
import uuid
import warnings
from typing import (
    TYPE_CHECKING,
    Any,
    AsyncIterator,
    Callable,
    Iterable,
    Iterator,
    Mapping,
    NamedTuple,
    Optional,
    Sequence,
)

from pydantic import ValidationError as _ValidationError

from workbench._content import canonical_json as _canonical
from workbench._content import to_content_blocks
from workbench._errors import ToolInputError
from workbench._events import EventListener, ToolEvent
from workbench._validation_mode import _context_mode, check_mode, mode_for, validating
from workbench.context import ToolContext
from workbench.registry import as_tool_registry as _as_registry
from workbench.secrets import mask_arguments, mask_result, secret_values
from workbench.tools import BaseTool, DecoratedFunctionTool, NoImplementationError, ToolResponse
from workbench.types import Permission, ToolResult, ToolUse, fast_tool_result, new_tool_use_id, utc_now_iso

if TYPE_CHECKING:
    from workbench.spec import ToolSpec

__all__ = ["ToolExecutor", "SequentialExecutor", "ConcurrentExecutor", "Approver", "approving", "append_masked",
           "validating", "run_sync"]

Approver = Callable[[ToolUse, BaseTool], Any]  # returns bool or an awaitable of bool

# The approver of the calls made in this context (an agent run's ``approver=``); it wins over the
# executor's own, so one shared executor serves concurrent runs that each ask their own user.
_context_approver: contextvars.ContextVar[Optional[Approver]] = contextvars.ContextVar("workbench_approver",
                                                                                        default=None)


@contextlib.contextmanager
def approving(approver: Optional[Approver]) -> Iterator[None]:
    """``with approving(approver):`` — ``approver`` answers the ``ASK_USER`` calls that executors run
    in this context (and the tasks started in it) instead of their own ``approver``; ``None`` leaves
    each executor's own in charge."""
    token = _context_approver.set(approver)
    try:
        yield
    finally:
        _context_approver.reset(token)


_ALLOW, _DENY, _ASK = Permission.ALWAYS_ALLOW, Permission.ALWAYS_DENY, Permission.ASK_USER
_BASE_PERMISSION = BaseTool.__dict__["permission"]
_perf = time.perf_counter
_PLAIN_TYPES = frozenset({int, float, str, bool, type(None), dict, list, tuple, bytes})


def _isawaitable(value: Any, _plain: frozenset = _PLAIN_TYPES, _check: Callable[[Any], bool] = inspect.isawaitable) -> bool:
    """``inspect.isawaitable`` without its ABC check for the common plain return values."""
    return type(value) not in _plain and _check(value)


_current_task = asyncio.current_task
_CoroutineType = types.CoroutineType


def run_sync(coro: Any) -> Any:
    """Run a coroutine to completion from sync code, also when this thread already runs a loop
    (a Jupyter kernel): then it runs on a fresh loop in a helper thread."""
    # Decide first, run after: calling asyncio.run inside ``except RuntimeError`` would chain every
    # exception the coroutine raises to an unrelated "no running event loop" error in tracebacks.
    try:
        asyncio.get_running_loop()
        in_running_loop = True
    except RuntimeError:
        in_running_loop = False
    if not in_running_loop:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="workbench-run") as pool:
        return pool.submit(asyncio.run, coro).result()


# -- small, hot helpers, bound once ----------------------------------------------------------------
_now_iso = utc_now_iso
_content = to_content_blocks
_fast_result = fast_tool_result


def _result(tool_use_id: str, status: str, content: list, metadata: dict, started_at: Optional[str],
            completed_at: Optional[str], value: Any) -> ToolResult:
    return _fast_result(tool_use_id, status, content, metadata, started_at, completed_at, None, value)


class _ProgressEvent(ToolEvent):
    """A ``progress`` event: four stores instead of seven (a tool may report 100k times); the
    per-call fields are read from the call."""

    __slots__ = ("_call",)
    kind = "progress"
    tool_use = property(lambda self: self._call.tool_use)
    index = property(lambda self: self._call.index)
    started_at = property(lambda self: self._call.started_at)

    def __init__(self, call: "_Call", progress: float, message: Optional[str]) -> None:
        self._call = call
        self.progress = progress
        self.message = message
        self._result = None


_SHAPE = "expected a ToolUse dict {'toolUseId', 'name', 'input'}"
_ID_TYPES_COERCED = (int, float, uuid.UUID)  # LangChain's ToolMessage coerces the same ones


def _tool_use_id(raw: Any) -> "tuple[str, Optional[str]]":
    """The id to answer with, and the problem with ``raw`` if it cannot be one.

    A string is used as it is; a number or UUID becomes its ``str()`` (JSON-RPC and some SDKs send
    numbers); ``None`` means absent and gets a fresh id; anything else (bool, list, dict…) is an error
    — the result still gets a fresh string id, so every ``ToolResult`` stays valid."""
    if type(raw) is str:
        return raw, None
    if raw is None:
        return new_tool_use_id(), None
    if isinstance(raw, _ID_TYPES_COERCED) and not isinstance(raw, bool):
        try:
            return str(raw), None
        except ValueError:  # an int past Python's int -> str limit
            pass
    return new_tool_use_id(), f"'toolUseId' must be a string (or a number), got {_describe(raw)}"


def _describe(value: Any) -> str:
    """A short ``repr`` of a bad value and its type, for error messages (never raises)."""
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - e.g. an int too long to print, a broken __repr__
        text = f"<unprintable {type(value).__name__}>"
    return f"{text if len(text) <= 80 else text[:77] + '...'} ({type(value).__name__})"


def _normalise_tool_use(item: Any) -> "tuple[ToolUse, Optional[str]]":
    """A well-formed ``ToolUse`` for any call item, and what is wrong with the item (``None`` if nothing).

    Accepted: ToolUse dicts, ``{"id", "name", "arguments"}`` dicts and ToolCall-like objects (``.id``,
    ``.name``, ``.arguments``/``.input``). A missing or ``None`` input is ``{}``; an input that is not
    an object is left for input validation to reject (a ``ToolInputError`` naming the tool)."""
    if isinstance(item, dict):
        raw_id = item.get("toolUseId")
        if raw_id is None:
            raw_id = item.get("id")
        name = item.get("name")
        args = item["input"] if "input" in item else item.get("arguments")
    elif getattr(item, "name", None) is not None:
        raw_id = getattr(item, "id", None)
        name = item.name
        args = getattr(item, "arguments", getattr(item, "input", None))
    else:
        return {"toolUseId": new_tool_use_id(), "name": "", "input": item}, f"Cannot interpret {_describe(item)} as a tool call: {_SHAPE}"
    use_id, problem = _tool_use_id(raw_id)
    if problem is None and type(name) is not str:
        problem = (f"the tool call has no 'name': {_SHAPE}" if name is None
                   else f"'name' must be a string naming a tool, got {_describe(name)}")
    elif problem is None and not name:
        problem = f"the tool call has an empty 'name': {_SHAPE}"
    return {"toolUseId": use_id, "name": name if type(name) is str else "", "input": {} if args is None else args}, problem


def _call_list(tool_uses: Any) -> list:
    """``tool_uses`` as a list, or a ``TypeError`` saying what was expected (see ``ToolExecutor.execute``)."""
    return tool_uses if type(tool_uses) is list else list(_call_iter(tool_uses))


def _call_iter(tool_uses: Any) -> Any:
    """``tool_uses`` as an iterable of calls (a list as it is), or a ``TypeError`` saying what was expected."""
    if type(tool_uses) is list:
        return tool_uses
    if tool_uses is None or isinstance(tool_uses, (str, bytes, bytearray, dict)):
        hint = "; to run one call, pass [call]" if isinstance(tool_uses, dict) else ""
        raise TypeError(f"tool_uses must be a list of tool calls (ToolUse dicts {{'toolUseId', 'name', 'input'}}), "
                        f"got {_describe(tool_uses)}{hint}")
    try:
        return iter(tool_uses)
    except TypeError:
        raise TypeError(f"tool_uses must be a list of tool calls (ToolUse dicts {{'toolUseId', 'name', 'input'}}), "
                        f"got {_describe(tool_uses)}") from None


class _Plan(NamedTuple):
    """How to run a *plain* tool: one whose permission is ``always_allow``, with no timeout, not
    long-running, not idempotent, with an implementation, no ``ToolContext`` parameter and a
    validator (and a returns checker, if it declares returns) — for which the pipeline's steps past
    validation do nothing. ``func`` is the plain function when calling it with the arguments as
    keywords is exactly what the tool's ``_invoke`` does (else ``None``: ``_invoke`` is called)."""

    spec: Any
    tool: Any
    validator: Callable[[str, Any], dict]
    func: Optional[Callable[..., Any]]
    is_async: bool
    check: Optional[Callable[[Any], Optional[str]]]  # the returns check (None: no returns declared)


_NOT_PLAIN = _Plan(None, None, None, None, False, None)  # type: ignore[arg-type]  # a cached "take the full pipeline"

#: the ``target`` of a sync call running inline, in its caller's thread (``_invoke_inline``): nothing
#: to cancel on a loop; ``cancel(id)`` marks the call and its context instead
_INLINE: Any = object()


def _plan_of(item: Any) -> Optional[_Plan]:
    """``item``'s plan (``None`` if it is not plain), cached on its spec; ``ToolSpec.__setattr__``
    drops the cache when a field changes, and a copied spec or another tool object is told apart by
    identity."""
    spec = item.spec
    private = spec.__pydantic_private__
    plan = private.get("_call_plan") if private else None
    if plan is None or plan.spec is not spec or plan.tool is not item:
        plan = _new_plan(item, spec)
        if private is not None:
            private["_call_plan"] = plan
    return plan if plan.validator is not None else None


def _new_plan(item: Any, spec: Any) -> _Plan:
    try:
        private = spec.__pydantic_private__ or {}
        validator = private.get("_input_validator")
        permission = spec.permission if type(item).permission is _BASE_PERMISSION else item.permission
        if (validator is None or Permission.coerce(permission) is not _ALLOW or spec.timeout is not None
                or spec.long_running or spec.idempotent or not item.has_implementation or item.context_param is not None
                or (spec.returns and private.get("_return_checker") is None)):
            return _NOT_PLAIN._replace(spec=spec, tool=item)
    except Exception:  # noqa: BLE001 - anything odd (a malformed permission…): the full pipeline reports it
        return _NOT_PLAIN._replace(spec=spec, tool=item)
    direct = (type(item)._invoke is DecoratedFunctionTool._invoke and not item._positional_only
              and item.__dict__.get("_wb_ctx") is None)
    return _Plan(spec, item, validator, item._func if direct else None, bool(spec.supports_async), _returns_check(spec))


def append_masked(log: Any, result: ToolResult, tool_use: Any, secret_names: Iterable[str] = (), **where: Any) -> Any:
    """Append a call to ``log`` (anything with ``append(result, tool_use, input=...)``) as every writer of
    a call row does: the values of its tool's secret parameters (``secret_names``, the spec's
    ``secret_parameters``) are ``***`` in the row's input, and nowhere in its output, error or metadata
    (a validation error's ``received``, a message quoting it). ``where`` (``run_id``, ``turn``) goes to
    ``log.append``; returns what it returns."""
    raw = tool_use.get("input") if isinstance(tool_use, Mapping) else None
    masked = mask_arguments(raw, secret_names)
    if masked is raw:  # no secret given
        return log.append(result, tool_use, **where)
    return log.append(mask_result(result, secret_values(raw, secret_names)), tool_use, input=masked, **where)


class _Call:
    """State of one call between the pipeline steps."""

    __slots__ = ("index", "tool_use", "tool", "spec", "arguments", "context", "started_at", "t0", "cancel_event",
                 "idem_key", "synthetic", "target", "cancelled", "approval", "deadline", "finished", "func", "awaitable")
    # set by the pipeline step that learns them (see _begin)
    tool: Any
    spec: ToolSpec
    arguments: Any  # the validated arguments (a dict; None in the error result of a plain call)
    approval: bool  # whether the approver is asked before the call runs
    deadline: float  # perf_counter time by which the call times out (set, with finished, when it has a timeout)
    finished: float  # perf_counter time the call ended

    def __init__(self, index: int, tool_use: Any, started_at: Optional[str], t0: float) -> None:
        self.index = index
        self.tool_use = tool_use
        self.started_at = started_at
        self.t0 = t0
        self.context: Optional[ToolContext] = None
        self.cancel_event: Optional[threading.Event] = None
        self.idem_key: Optional[tuple[str, str]] = None
        self.synthetic = False
        self.cancelled = False
        self.target: Any = None  # what cancel(id) cancels: this call's task, or the future it awaits
        self.func: Any = None  # a plain call's function, called with the arguments as keywords (_Plan)
        self.awaitable: Any = None  # a plain async call the plain path started: what is left to await


def _plain_call(raw_use: Any, started_at: str, t0: float, plan: _Plan, arguments: Optional[dict]) -> _Call:
    """The ``_Call`` of a plain call ``_run_plain`` began: for an error result, or to be awaited."""
    call = _Call(0, raw_use, started_at, t0)
    call.tool, call.spec, call.func, call.arguments, call.approval = plan.tool, plan.spec, plan.func, arguments, False
    return call


class _Run:
    """State shared by the calls of one ``execute``/``run`` (the idempotency cache)."""

    __slots__ = ("registry", "tools", "log", "invocation_state", "idempotent", "ctx_factory", "plain", "validation")

    def __init__(self, registry: Any, log: Any, invocation_state: Optional[dict], ctx_factory: Any = None,
                 plain: bool = False) -> None:
        tools = getattr(registry, "registry", None)
        if type(tools) is not dict:
            registry = _as_registry(registry)
            tools = getattr(registry, "registry", None)
            if type(tools) is not dict:
                tools = {}  # a registry of another kind: every lookup goes through get_tool
        self.registry = registry
        self.tools: dict = tools
        self.log = log
        self.invocation_state = invocation_state
        self.idempotent: dict[tuple[str, str], Any] = {}
        self.ctx_factory = ctx_factory
        self.plain = plain  # whether plain calls may skip the pipeline's steps (see ToolExecutor._new_run)
        self.validation: Optional[str] = None  # the run's validation mode, if it imposes one (_new_run)


class ToolExecutor:
    """Base executor. Options apply to every call it runs.

    Args:
        timeout: default per-call timeout in seconds (a tool's own ``timeout`` wins).
        approver: ``approver(tool_use, tool) -> bool`` (sync or async) for ``ASK_USER`` tools;
            without one they are denied.
        log: an ``ExecutionLog`` every final result is appended to.
        synthetic: let spec-only tools return generated values.
        seed: seed of synthetic values.
        pool: a ``concurrent.futures.Executor`` for sync tools (a thread pool by default; a
            process pool or a Dask ``client.get_executor()`` scales out — tools must then be
            importable module-level functions and receive no ``ToolContext``).
        invocation_state: passed to tools as ``ToolContext.invocation_state``.
        validation: the validation mode of every call it runs, ``"strict"`` or ``"lax"`` (pydantic's
            lax mode), over each tool's and registry's own; ``None`` (default) leaves them in charge.
            A ``validating(mode)`` context wins over it (``run_agent(validation=...)`` uses one).
    """

    _hop_sync_tools = False  # concurrent executors move every sync call off the loop

    def __init__(self, *, timeout: Optional[float] = None, approver: Optional[Approver] = None, log: Any = None,
                 synthetic: bool = False, seed: int = 0, pool: Optional[concurrent.futures.Executor] = None,
                 invocation_state: Optional[dict[str, Any]] = None, validation: Optional[str] = None) -> None:
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0):
            raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
        self.timeout = timeout
        self.approver = approver
        self.log = log
        self.synthetic = synthetic
        self.seed = seed
        self.pool = pool
        self.invocation_state = invocation_state
        self.validation = check_mode(validation, type(self).__name__)
        self._listeners: list[EventListener] = []  # copy-on-write: emitting iterates it without a lock
        self._own_pool: Optional[concurrent.futures.ThreadPoolExecutor] = None
        self._running: dict[str, _Call] = {}  # calls that cancel(id) can reach
        self._lock = threading.Lock()

    # -- listeners -------------------------------------------------------------------------------
    def on_event(self, listener: EventListener) -> Callable[[], None]:
        """Call ``listener(ToolEvent)`` on start, progress, log and end of every call. Returns an unsubscribe function.

        A listener follows the calls that start after it subscribed. Listeners run in the thread
        that produced the event (a worker thread for progress of a sync tool under a concurrent
        executor), so they should be quick; a listener that raises is reported with a warning."""
        with self._lock:
            self._listeners = [*self._listeners, listener]

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners = [item for item in self._listeners if item is not listener]

        return unsubscribe

    def _emit(self, event: ToolEvent) -> None:
        for listener in self._listeners:
            try:
                listener(event)
            except Exception as exc:  # noqa: BLE001 - a broken listener must not fail the call
                _listener_failed(listener, exc)

    # -- cancellation ----------------------------------------------------------------------------
    def cancel(self, tool_use_id: str) -> bool:
        """Cancel a running call; it ends as an error result "cancelled". Returns False if it is not running.

        Safe to call from any thread. A sync tool already running cannot be interrupted: its
        ``ToolContext.cancelled`` becomes True so it can stop early, and its result is the
        cancelled error — at once for a tool running in a worker thread, when it returns for one
        running inline in the caller's thread (``SequentialExecutor``). What ``running()`` lists can
        be cancelled; a *plain* call made while no log and no listener follow the executor runs in
        one step, unlisted (see :meth:`running`)."""
        call = self._running.get(tool_use_id)
        if call is None:
            return False
        if call.target is _INLINE:
            with self._lock:  # not after _invoke_inline unlisted it: then its result is decided
                if self._running.get(tool_use_id) is not call:
                    return False
                call.cancelled = True
            if call.cancel_event is not None:
                call.cancel_event.set()
            return True
        if call.cancel_event is not None:
            call.cancel_event.set()
        try:
            call.target.get_loop().call_soon_threadsafe(self._cancel_on_loop, tool_use_id, call)
        except RuntimeError:  # the loop has closed: the call is over
            return False
        return True

    def _cancel_on_loop(self, tool_use_id: str, call: _Call) -> None:
        if self._running.get(tool_use_id) is not call or call.cancelled:
            return  # it finished in the meantime
        call.cancelled = True
        call.target.cancel()

    def running(self) -> list[str]:
        """Ids of the calls in flight, which :meth:`cancel` can reach.

        Every call is listed while its tool runs, except a *plain* one (a sync or async function
        tool, always allowed, no ``ToolContext``, timeout or idempotency, on an executor without
        timeout, pool or synthetic values) made while nobody follows the executor — no log and no
        listener (:meth:`on_event`): that one runs in a single step with no run state, at full speed,
        and could not notice a cancellation anyway. Subscribe a listener (as the notebook's forms
        do) or pass a log to make every call cancellable."""
        return list(self._running)

    # -- public API --------------------------------------------------------------------------------
    async def execute(self, tool_uses: Sequence[Any], registry: Any, ctx_factory: Any = None, *, log: Any = None,
                      invocation_state: Optional[dict[str, Any]] = None) -> list[ToolResult]:
        """Run every call; results in input order.

        ``tool_uses`` is a list (or any iterable) of calls; ``None``, a string, a single dict or a
        non-iterable raises ``TypeError`` naming what was expected — the one thing an executor raises
        for. Every item gets a result, and every executor (and ``run``, ``execute``,
        ``execute_streaming``) treats every item alike:

        * a ToolUse dict ``{"toolUseId", "name", "input"}``, an ``{"id", "name", "arguments"}`` dict
          or a ToolCall-like object (``.id``, ``.name``, ``.arguments``);
        * ``toolUseId``: a string is kept; a number (or UUID) becomes its ``str()``; missing or
          ``None`` gets a fresh id; any other type is an error result (``error_type`` ``"TypeError"``,
          ``"'toolUseId' must be a string"``) carrying a fresh id, so results are always valid;
        * ``name`` missing, empty or not a string, or an item of no call shape at all: an error
          result, ``error_type`` ``"TypeError"``; an unknown name: ``"ToolNotFoundError"``;
        * ``input`` missing or ``None`` is ``{}``; anything else that is not an object fails input
          validation (``"ToolInputError"``, naming the tool).
        """
        raise NotImplementedError

    async def execute_streaming(self, tool_uses: Sequence[Any], registry: Any, ctx_factory: Any = None, *,
                                log: Any = None, invocation_state: Optional[dict[str, Any]] = None
                                ) -> AsyncIterator[tuple[int, ToolResult]]:
        """Yield ``(input_index, result)`` as calls finish; breaking out cancels the calls in flight."""
        raise NotImplementedError
        yield  # pragma: no cover

    def run(self, tool_uses: Sequence[Any], registry: Any, *, log: Any = None,
            invocation_state: Optional[dict[str, Any]] = None) -> list[ToolResult]:
        """Synchronous ``execute`` (same rules); works in plain scripts and inside a running event loop (Jupyter)."""
        tool_uses = _call_list(tool_uses)
        return run_sync(self.execute(tool_uses, registry, log=log, invocation_state=invocation_state))

    def call(self, registry: Any, name: str, input: Optional[dict[str, Any]] = None, **kwargs: Any) -> ToolResult:
        """Run one call synchronously: ``executor.call(registry, "add", {"a": 1, "b": 2})``."""
        return self.run([{"toolUseId": new_tool_use_id(), "name": name, "input": {} if input is None else input}], registry, **kwargs)[0]

    def map(self, tool: Any, inputs: Any, *, registry: Any = None, log: Any = None, resume: bool = False,
            progress: Any = None) -> Any:
        """Run ``tool`` over many inputs; a pandas DataFrame with one row per input, in input order.

        ``tool`` is a tool object or a registered name (looked up in ``registry``, the default
        registry if none). ``inputs`` is an iterable of argument dicts, a list of ToolUses, or a
        DataFrame: its columns that are parameters form each input (a missing/NaN cell is "not
        set"), the others are carried through. Columns: the carried ones, then ``status``, ``value``
        (the JSON value), ``error_type``, ``error``, ``duration_ms``, ``tool_use_id``. Every call is
        logged as an ordinary call. ``resume=True`` (with a file log) skips inputs that already have
        a success row for this tool and the same input, taking their row from the log. ``progress``:
        ``None`` shows a notebook widget or a tqdm bar on stderr, ``False`` none. Cancelling (the
        widget's Cancel, or interrupting the kernel / Ctrl-C) stops the pending calls and returns the
        finished rows.
        """
        from workbench._batch import map_batch

        return map_batch(self, tool, inputs, registry=registry, log=log, resume=resume, progress=progress)

    def close(self) -> None:
        """Shut down the executor's own thread pool (not a user-supplied one)."""
        if self._own_pool is not None:
            self._own_pool.shutdown(wait=False, cancel_futures=True)
            self._own_pool = None

    # -- pipeline: synchronous steps ---------------------------------------------------------------
    def _new_run(self, registry: Any, log: Any, invocation_state: Optional[dict], ctx_factory: Any = None) -> _Run:
        run = _Run(registry, self.log if log is None else log,
                   self.invocation_state if invocation_state is None else invocation_state, ctx_factory,
                   self._adds_nothing() and ctx_factory is None)
        mode = _context_mode.get() or self.validation
        if mode is not None or getattr(run.registry, "validation", None) is not None:
            run.validation, run.plain = mode, False  # each call's validator is chosen in _begin: no plain path
        return run

    def _adds_nothing(self) -> bool:
        """Whether this executor adds nothing to a plain call (``_Plan``): no default timeout, pool,
        synthetic values or validation mode. (Listeners are checked per call: one may subscribe while a
        run goes on; a ``validating()`` context or a registry's mode per run, see ``_no_modes``.)"""
        return self.timeout is None and self.pool is None and not self.synthetic and self.validation is None

    def _begin_plain(self, index: int, raw_use: Any, run: _Run) -> "_Call | ToolResult | None":
        """``_begin`` for a plain call (see ``_Plan``) of a well-formed ToolUse dict when nobody listens:
        the validated ``_Call`` (or the final result of input its validator refused), or ``None`` —
        having done nothing — for anything else, which ``_begin`` then takes. What it skips is what
        the plan says does not apply: the permission, approval, idempotency, synthetic-value and
        context steps, and the start event (no listener)."""
        if type(raw_use) is not dict or self._listeners:
            return None
        name: Any = raw_use.get("name")
        item = run.tools.get(name) if type(name) is str else None
        raw_input = raw_use.get("input")
        if item is None or type(raw_input) is not dict or type(raw_use.get("toolUseId")) is not str:
            return None
        plan = _plan_of(item)
        if plan is None:
            return None
        call = _Call(index, raw_use, _now_iso(), _perf())
        call.tool, call.spec, call.func, call.approval = item, plan.spec, plan.func, False
        try:
            call.arguments = plan.validator(name, raw_input)
        except Exception as exc:  # noqa: BLE001 - bad input (or a broken validator): its result, as _begin gives it
            return self._end(call, self._refused(call, exc), run)
        return call

    def _begin(self, index: int, raw_use: Any, run: _Run) -> "_Call | ToolResult":
        """Look up, validate and prepare a call. Returns the prepared call, or the final result
        (already logged and announced) of a call that failed here."""
        t0 = _perf()
        started_at = _now_iso()
        tool_use: Any = None
        if type(raw_use) is dict:
            try:  # already a well-formed ToolUse: used as it is, no copy
                name = raw_use["name"]
                if (type(name) is str and name != "" and type(raw_use["toolUseId"]) is str
                        and type(raw_use["input"]) is dict):
                    tool_use, bad_shape = raw_use, None
            except KeyError:
                pass
        if tool_use is None:
            tool_use, bad_shape = _normalise_tool_use(raw_use)
            name = tool_use["name"]
        call = _Call(index, tool_use, started_at, t0)
        if self._listeners:
            self._emit(ToolEvent("start", tool_use, index, 0.0, None, None, started_at))
        if bad_shape is not None:
            return self._fail(call, run, bad_shape, "TypeError")
        try:
            item = run.tools.get(name)
            if item is None:
                try:
                    item = run.registry.get_tool(name)
                except KeyError as exc:
                    listing = getattr(run.registry, "list_tools", None)
                    return self._fail(call, run, str(exc), "ToolNotFoundError",
                                      {"available": list(listing()) if listing is not None else []})
            call.tool = item
            spec = call.spec = item.spec
            permission = spec.permission if type(item).permission is _BASE_PERMISSION else item.permission
            if permission is _ALLOW:
                call.approval = False
            else:
                permission = Permission.coerce(permission)
                if permission is _DENY:
                    return self._fail(call, run, f"Tool '{name}' is not allowed to run (permission: always_deny)", "PermissionDenied")
                call.approval = permission is _ASK
            raw_input = tool_use["input"]
            private = spec.__pydantic_private__
            validator = private.get("_input_validator") if private else None
            if not run.plain and (run.validation is not None or getattr(run.registry, "validation", None)):
                # a mode the run or registry sets: the tool's validator of the mode that wins (run > tool > registry)
                validator = spec.input_validator(mode_for(spec, run.validation, run.registry))
            try:
                # the spec's own cached validator, as spec.check_inputs would call it (one lookup less)
                call.arguments = validator(spec.name, raw_input) if validator is not None else spec.check_inputs(raw_input)
            except Exception as exc:  # noqa: BLE001 - bad input, a malformed schema (ToolSpecError), a broken validator
                return self._end(call, self._refused(call, exc), run)
            if spec.idempotent:
                call.idem_key = (name, _canonical(raw_input))
            if not item.has_implementation:
                if not self.synthetic and not getattr(run.registry, "synthetic", False):
                    return self._fail(call, run, str(NoImplementationError(
                        f"Tool '{name}' has no implementation: it was registered from a spec only. Call it with "
                        "synthetic=True (on the registry or executor) to get a generated value matching its returns schema.")),
                        "NoImplementationError")
                call.synthetic = True
            elif item.context_param is not None:
                call.cancel_event = threading.Event()
                call.context = self._make_context(call, run)
            return call
        except Exception as exc:  # noqa: BLE001 - e.g. a class tool with a malformed permission
            return self._fail(call, run, f"{type(exc).__name__}: {exc}", type(exc).__name__)

    def _make_context(self, call: _Call, run: _Run) -> ToolContext:
        tool_use = call.tool_use
        if run.ctx_factory is not None:
            ctx = run.ctx_factory(tool_use)
        else:
            ctx = ToolContext(tool_use, run.invocation_state)
        if self._listeners:
            ctx._on_progress, ctx._on_log = self._reporters(call)
        ctx._cancel_event = call.cancel_event
        return ctx

    def _reporters(self, call: _Call) -> tuple[Callable, Callable]:
        """The progress and log callbacks of one call's ``ToolContext``: one small event object per
        report (its ``in_progress`` ToolResult is built only if a listener reads ``.result``)."""
        executor = self
        tool_use, index, started_at = call.tool_use, call.index, call.started_at

        def progress(value: float, message: Optional[str]) -> None:
            event = _ProgressEvent(call, value, message)
            for listener in executor._listeners:
                try:
                    listener(event)
                except Exception as exc:  # noqa: BLE001
                    _listener_failed(listener, exc)

        def log(message: str) -> None:
            event = ToolEvent("log", tool_use, index, None, message, None, started_at)
            for listener in executor._listeners:
                try:
                    listener(event)
                except Exception as exc:  # noqa: BLE001
                    _listener_failed(listener, exc)

        return progress, log

    def _timeout_of(self, call: _Call) -> Optional[float]:
        timeout = call.spec.timeout
        return self.timeout if timeout is None else timeout

    def _synthetic_value(self, call: _Call) -> Any:
        from workbench._synthetic import synthesize, synthetic_seed

        return synthesize(call.spec.returns, synthetic_seed(call.spec.name, call.tool_use.get("input"), self.seed), tool=call.spec.name)

    def _success(self, call: _Call, value: Any) -> ToolResult:
        spec = call.spec
        return _success_result(spec.name, call.tool_use["toolUseId"], value, call.t0, call.started_at,
                               _returns_check(spec), call.synthetic)

    def _refused(self, call: _Call, exc: Exception) -> ToolResult:
        """The error result of input its validator refused (or a validator that broke)."""
        if isinstance(exc, ToolInputError):
            return self._error(call, str(exc), "ToolInputError", {"errors": exc.errors})
        return self._error(call, str(exc), type(exc).__name__)

    def _error(self, call: _Call, message: str, error_type: str, extra: Optional[dict] = None, tb: Optional[str] = None) -> ToolResult:
        metadata: dict[str, Any] = {"tool_name": call.tool_use.get("name", ""), "error_type": error_type, "error": message}
        if tb is not None:
            metadata["traceback"] = tb
        if extra:
            metadata.update(extra)
        metadata["latency_ms"] = (_perf() - call.t0) * 1000.0
        return _result(call.tool_use["toolUseId"], "error", [{"text": f"Error: {message}"}], metadata, call.started_at,
                       _now_iso(), None)

    def _fail(self, call: _Call, run: _Run, message: str, error_type: str, extra: Optional[dict] = None) -> ToolResult:
        return self._end(call, self._error(call, message, error_type, extra), run)

    def _exception(self, call: _Call, exc: BaseException) -> ToolResult:
        tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        return self._error(call, f"{type(exc).__name__}: {exc}", type(exc).__name__, tb=tb)

    def _cancelled(self, call: _Call) -> ToolResult:
        return self._error(call, f"Tool '{call.spec.name}' was cancelled", "CancelledError")

    def _timed_out(self, call: _Call) -> ToolResult:
        if call.cancel_event is not None:
            call.cancel_event.set()
        timeout = self._timeout_of(call)
        return self._error(call, f"Tool '{call.spec.name}' timed out after {timeout:g} s", "TimeoutError", {"timeout": timeout})

    def _end(self, call: _Call, result: ToolResult, run: _Run) -> ToolResult:
        """Log and announce a final result."""
        context = call.context
        if context is not None and context.entries:  # its ctx.log lines and questions go with the row
            result.metadata["logs"] = list(context.entries)
        if run.log is not None:
            try:
                spec = getattr(call, "spec", None)  # unset: the tool was not found
                if spec is not None and spec.secret_parameters:
                    append_masked(run.log, result, call.tool_use, spec.secret_parameters)
                else:
                    run.log.append(result, call.tool_use)
            except Exception as exc:  # noqa: BLE001 - a full disk must not turn into a lost result
                result.metadata["log_error"] = f"{type(exc).__name__}: {exc}"
                warnings.warn(f"workbench: could not write the execution log: {exc}", RuntimeWarning, stacklevel=2)
        if self._listeners:
            self._emit(ToolEvent("end", call.tool_use, call.index, 1.0, None, result, call.started_at))
        return result

    @staticmethod
    def _reuse(call: _Call, original: ToolResult) -> ToolResult:
        metadata = {**original.metadata, "idempotent_reuse": True, "original_tool_use_id": original.tool_use_id,
                    "latency_ms": (_perf() - call.t0) * 1000.0}
        return _result(call.tool_use["toolUseId"], original.status, original.content, metadata,
                       call.started_at, _now_iso(), original.value)

    # -- pipeline: the async path --------------------------------------------------------------------
    def _thread_pool(self) -> concurrent.futures.Executor:
        if self.pool is not None:
            return self.pool
        with self._lock:
            if self._own_pool is None:
                self._own_pool = concurrent.futures.ThreadPoolExecutor(
                    max_workers=max(8, getattr(self, "max_concurrency", 8)), thread_name_prefix="workbench-tool")
            return self._own_pool

    def _needs_hop(self, call: _Call, timeout: Optional[float]) -> bool:
        return (self._hop_sync_tools or timeout is not None or call.spec.long_running or self.pool is not None
                or call.context is not None)

    async def _call_async(self, index: int, raw_use: Any, run: _Run, prepared: Optional[_Call] = None) -> ToolResult:
        if prepared is not None:
            call = prepared
        else:
            call = self._begin_plain(index, raw_use, run) if run.plain else None  # type: ignore[assignment]
            if call is None:
                call = self._begin(index, raw_use, run)
            if type(call) is not _Call:
                return call  # type: ignore[return-value]  # a ToolResult: mypy does not narrow on type(...) is not
        spec = call.spec
        if call.approval:
            denied = await self._approve(call)
            if denied is not None:
                return self._end(call, denied, run)
        elif call.awaitable is not None or (  # the rest of a plain call _run_plain started
                spec.supports_async and (call.func is not None  # a plain call (_Plan): none of the below applies
                                         or (call.idem_key is None and spec.timeout is None and self.timeout is None
                                             and self.pool is None and not call.synthetic))):
            # the fast path of an async tool: await its coroutine in this task (no task, no loop
            # iteration); cancel(id) cancels this task and the cancellation is turned into a result
            try:
                func = call.func
                awaitable = call.awaitable
                if awaitable is None:
                    awaitable = func(**call.arguments) if func is not None else call.tool._invoke(call.arguments, call.context)
            except Exception as exc:  # noqa: BLE001
                return self._end(call, self._exception(call, exc), run)
            if type(awaitable) is not _CoroutineType and not _isawaitable(awaitable):
                return self._end(call, self._value_result(call, awaitable), run)
            use_id = call.tool_use["toolUseId"]
            call.target = task = _current_task()
            running = self._running
            running[use_id] = call
            try:
                value = await awaitable
            except asyncio.CancelledError:
                if not call.cancelled:
                    raise
                _uncancel(task)
                return self._end(call, self._cancelled(call), run)
            except Exception as exc:  # noqa: BLE001 - every tool failure becomes a result
                if call.cancelled:
                    _uncancel(task)
                    return self._end(call, self._cancelled(call), run)
                return self._end(call, self._exception(call, exc), run)
            finally:
                if running.get(use_id) is call:
                    del running[use_id]
            if call.cancelled:  # the tool swallowed the cancellation
                _uncancel(task)
                return self._end(call, self._cancelled(call), run)
            try:
                result = _success_result(spec.name, use_id, value, call.t0, call.started_at, _returns_check(spec),
                                         call.synthetic)
            except Exception as exc:  # noqa: BLE001
                result = self._exception(call, exc)
            if run.log is None and not self._listeners:
                return result  # nothing for _end to do
            return self._end(call, result, run)
        key = call.idem_key
        if key is None:
            return self._end(call, await self._outcome(call), run)
        return await self._call_idempotent(call, key, run)

    def _value_result(self, call: _Call, value: Any) -> ToolResult:
        try:
            return self._success(call, value)
        except Exception as exc:  # noqa: BLE001 - e.g. a returns checker that breaks on an odd value
            return self._exception(call, exc)

    async def _call_idempotent(self, call: _Call, key: tuple[str, str], run: _Run) -> ToolResult:
        """One execution per (name, canonical input) in a run; identical calls in flight wait for it."""
        while True:
            earlier = run.idempotent.get(key)
            if earlier is None:
                break
            if not isinstance(earlier, asyncio.Future):
                return self._end(call, self._reuse(call, earlier), run)
            try:
                original = await asyncio.shield(earlier)
            except asyncio.CancelledError:
                if earlier.cancelled() and not call.cancelled:
                    continue  # the original was cancelled by id: run it here instead
                raise
            return self._end(call, self._reuse(call, original), run)
        future = run.idempotent[key] = asyncio.get_running_loop().create_future()
        try:
            result = await self._outcome(call)
        except BaseException:
            run.idempotent.pop(key, None)
            future.cancel()
            raise
        if call.cancelled:  # a call cancelled by id is not an answer for the identical ones
            run.idempotent.pop(key, None)
            future.cancel()
        else:
            run.idempotent[key] = result
            future.set_result(result)
        return self._end(call, result, run)

    async def _outcome(self, call: _Call) -> ToolResult:
        """Invoke the tool and turn whatever happens into a result."""
        if call.synthetic:
            try:
                return self._success(call, self._synthetic_value(call))
            except Exception as exc:  # noqa: BLE001
                return self._exception(call, exc)
        try:
            value = await self._invoke_general(call, self._timeout_of(call))
        except _Deadline:
            if call.cancelled:
                return self._cancelled(call)
            return self._timed_out(call)
        except asyncio.CancelledError:
            if not call.cancelled:
                raise
            return self._cancelled(call)
        except Exception as exc:  # noqa: BLE001 - every tool failure becomes a result
            return self._exception(call, exc)
        return self._value_result(call, value)

    async def _invoke_general(self, call: _Call, timeout: Optional[float]) -> Any:
        """Invoke with a timeout, in a pool, or both: a coroutine runs as its own task; a sync
        function inline (quick calls of a sequential executor) or in the pool.

        The deadline is the moment the tool was started plus its timeout. A tool that finishes
        (returns or raises) after it is a timeout, even when the result reached this loop before
        the loop got round to firing the timer (a loop made late by CPU load or blocking code)."""
        tool = call.tool
        if timeout is not None:
            call.finished = 0.0
            call.deadline = _perf() + timeout
        if call.spec.supports_async:
            awaitable = tool._invoke(call.arguments, call.context)
            if not _isawaitable(awaitable):
                if timeout is not None and _perf() > call.deadline:  # it ran inline, on the loop, too long
                    raise _Deadline()
                return awaitable
            inner: asyncio.Future = asyncio.ensure_future(awaitable if timeout is None else _stamped(awaitable, call))
        elif self._needs_hop(call, timeout):
            pool = self._thread_pool()
            if isinstance(pool, concurrent.futures.ThreadPoolExecutor):
                ctx = contextvars.copy_context()
                func = functools.partial(ctx.run, tool._invoke, call.arguments, call.context)
            else:  # processes / Dask: the tool travels by reference, without a context
                func = functools.partial(_invoke_plain, tool, call.arguments)
            submitted = pool.submit(func)
            if timeout is not None:  # stamped in the thread that completes it, before the loop hears of it
                submitted.add_done_callback(functools.partial(_stamp_finish, call))
            inner = asyncio.wrap_future(submitted)
        else:
            try:
                value = self._invoke_inline(call)
            except Exception:
                if call.cancelled:
                    raise asyncio.CancelledError() from None  # _outcome answers it as cancelled
                raise
            if call.cancelled:
                raise asyncio.CancelledError()
            if _isawaitable(value):  # an undeclared async tool
                value = await value
            return value
        value = await self._await_inner(call, inner, timeout)
        if _isawaitable(value):  # a sync wrapper that returned a coroutine: same deadline for it
            value = await self._await_inner(
                call, asyncio.ensure_future(value if timeout is None else _stamped(value, call)), timeout)
        return value

    def _invoke_inline(self, call: _Call) -> Any:
        """Run a sync call here, in the caller's thread, listed in ``running()`` meanwhile: ``cancel(id)``
        cannot stop this thread, so it marks the call (and sets its context's ``cancelled``), and the
        caller answers it as cancelled once the tool returns."""
        use_id = call.tool_use["toolUseId"]
        running = self._running
        call.target = _INLINE
        running[use_id] = call
        try:
            if call.func is not None:
                return call.func(**call.arguments)
            return call.tool._invoke(call.arguments, call.context)
        finally:
            with self._lock:  # against cancel(): once unlisted, the call's outcome is decided
                if running.get(use_id) is call:
                    del running[use_id]

    async def _await_inner(self, call: _Call, inner: asyncio.Future, timeout: Optional[float]) -> Any:
        """Await a started tool as a cancellable target of ``cancel(id)``, within its deadline."""
        use_id = call.tool_use["toolUseId"]
        call.target = inner
        self._running[use_id] = call
        try:
            if timeout is None:
                value = await inner
            else:
                try:
                    value = await asyncio.wait_for(inner, max(call.deadline - _perf(), 0.0))
                except asyncio.TimeoutError:
                    if inner.cancelled() or call.finished > call.deadline:
                        raise _Deadline() from None
                    raise  # the tool's own TimeoutError, in time: an ordinary failure
                except Exception:
                    if call.finished > call.deadline:
                        raise _Deadline() from None
                    raise
                if call.finished > call.deadline:
                    raise _Deadline()
        finally:
            if self._running.get(use_id) is call:
                del self._running[use_id]
            if not inner.done():
                inner.cancel()
        if call.cancelled:
            raise asyncio.CancelledError()
        return value

    async def _approve(self, call: _Call) -> Optional[ToolResult]:
        name = call.spec.name
        approver = _context_approver.get() or self.approver
        if approver is None:
            return self._error(call, f"Tool '{name}' requires user approval (permission: ask_user) and no approver is configured",
                               "PermissionDenied")
        try:
            decision = approver(call.tool_use, call.tool)
            if _isawaitable(decision):
                decision = await decision
        except Exception as exc:  # noqa: BLE001
            return self._error(call, f"Approver failed for tool '{name}': {type(exc).__name__}: {exc}", "PermissionDenied")
        if not decision:
            return self._error(call, f"Tool '{name}' was denied by the approver", "PermissionDenied")
        return None

    # -- pipeline: the sync fast path ----------------------------------------------------------------
    def _run_plain(self, raw_use: Any, tools: dict, in_loop: bool = False) -> "ToolResult | _Call | None":
        """A plain call (``_Plan``) of a tool in ``tools`` (a registry's dict) when nobody listens, in one
        step: validate, call, wrap — the caller makes sure there is no log. ``None``, having done
        nothing, for anything else: the step-by-step pipeline runs it. Skipped: the ``_Call`` state
        (made only when a call needs more), the steps the plan says cannot apply, and ``_end``
        (nothing to log, nobody to tell).

        An ``async def`` tool only ``in_loop`` (called from a coroutine of the running loop). Its
        coroutine's first step runs here, as ``await`` would run it, in the same task; one that
        finishes there (no real wait) is wrapped at once, with no task bookkeeping — nothing could
        have cancelled it. One that waits comes back as a ``_Call`` whose ``awaitable`` is the rest,
        for ``_call_async`` (where ``cancel(id)`` can reach it)."""
        if type(raw_use) is not dict or self._listeners:
            return None
        try:
            name, raw_input, use_id = raw_use["name"], raw_use["input"], raw_use["toolUseId"]
            item: Any = tools.get(name)
            # _plan_of, inlined (this is every call), reading the spec a tool caches in its __dict__
            # (not its .spec property); a tool whose .spec is another never matches and takes _plan_of
            spec = item.__dict__.get("_wb_spec")
            if spec is None:
                spec = item.spec  # a deferred spec is built by .spec
        except (KeyError, TypeError, AttributeError):  # a key missing, an unhashable name, no such tool
            return None
        if type(raw_input) is not dict or type(use_id) is not str:
            return None
        private = spec.__pydantic_private__
        plan = private.get("_call_plan")
        if plan is None or plan.spec is not spec or plan.tool is not item:
            plan = _plan_of(item)
            if plan is None:
                return None
        _spec, _item, validator, func, is_async, check = plan
        if func is None or (is_async and not in_loop):
            return None
        t0 = _perf()
        started_at = _now_iso()
        try:
            # a scalar-parameter tool's flat check, as ToolSpec.check_inputs calls it: the validator's own
            # first step, one call less; what it refuses, the validator explains (raising ToolInputError)
            flat_check = private.get("_flat_check")
            try:
                arguments = flat_check(raw_input) if flat_check is not None else validator(name, raw_input)
            except _ValidationError:
                arguments = validator(name, raw_input)
        except Exception as exc:  # noqa: BLE001 - bad input: its error result, as _begin gives it
            return self._refused(_plain_call(raw_use, started_at, t0, plan, None), exc)
        try:
            value = func(**arguments)
            if is_async and type(value) is _CoroutineType:
                try:
                    waits_for = value.send(None)
                except StopIteration as finished:
                    value = finished.value
                else:
                    call = _plain_call(raw_use, started_at, t0, plan, arguments)
                    call.awaitable = _resume(value, waits_for)
                    return call
            elif type(value) not in _PLAIN_TYPES and _isawaitable(value):
                if in_loop:  # another kind of awaitable: the async path awaits it
                    call = _plain_call(raw_use, started_at, t0, plan, arguments)
                    call.awaitable = value
                    return call
                value = run_sync(_await(value))  # an undeclared async tool: finish it on a loop
            return _success_result(name, use_id, value, t0, started_at, check)
        except Exception as exc:  # noqa: BLE001 - every tool failure becomes a result
            return self._exception(_plain_call(raw_use, started_at, t0, plan, None), exc)

    def _call_sync(self, index: int, raw_use: Any, run: _Run) -> "ToolResult | _Call":
        """Run one call without a loop when nothing needs one; a returned ``_Call`` (validated, not yet
        run) must continue on the async path."""
        call = self._begin_plain(index, raw_use, run) if run.plain else None
        if call is not None:
            if type(call) is not _Call:
                return call
            if call.spec.supports_async:
                return call
        else:
            call = self._begin(index, raw_use, run)
            if type(call) is not _Call:
                return call
            spec = call.spec
            if (spec.supports_async or spec.timeout is not None or self.timeout is not None or self.pool is not None
                    or spec.long_running or call.approval):
                return call
        key = call.idem_key
        if key is not None and key in run.idempotent:
            return self._end(call, self._reuse(call, run.idempotent[key]), run)
        try:
            if call.synthetic:
                value = self._synthetic_value(call)
            else:
                value = self._invoke_inline(call)
                if call.func is None and type(value) not in _PLAIN_TYPES and _isawaitable(value):
                    value = run_sync(_await(value))  # an undeclared async tool: finish it on a loop
            result = self._cancelled(call) if call.cancelled else self._success(call, value)
        except Exception as exc:  # noqa: BLE001
            result = self._cancelled(call) if call.cancelled else self._exception(call, exc)
        if key is not None and not call.cancelled:  # a cancelled call answers no identical one
            run.idempotent[key] = result
        return self._end(call, result, run)


def _no_modes(registry: Any) -> bool:
    """Whether no ``validating()`` context and no registry's ``validation`` apply: each tool's own
    validator (its own mode) then checks its calls, as the plain paths call it."""
    return _context_mode.get() is None and getattr(registry, "validation", None) is None


def _returns_check(spec: Any) -> Optional[Callable[[Any], Optional[str]]]:
    """``check(value)`` → ``None`` or how ``value`` breaks the spec's returns schema; ``None`` when the
    spec declares no returns."""
    if not spec.returns:
        return None
    private = spec.__pydantic_private__
    checker = private.get("_return_checker") if private else None
    return checker if checker is not None else spec.check_returns


def _success_result(name: str, use_id: str, value: Any, t0: float, started_at: Optional[str],
                    check: Optional[Callable[[Any], Optional[str]]], synthetic: bool = False,
                    _int_text: Callable[[int], str] = int.__repr__) -> ToolResult:
    """The ``success`` result of a call of tool ``name`` that returned ``value``: its content, metadata
    and ``check`` of the returns schema (see ``_returns_check``)."""
    kind = type(value)
    checked = value  # what the returns schema checks: a ToolResponse/ToolResult's wrapped value
    if kind is int:
        content = [{"text": _int_text(value)}, {"json": value}]
        metadata: dict[str, Any] = {"tool_name": name}
    elif kind is str:
        content = [{"text": value}]
        metadata = {"tool_name": name}
    else:
        metadata = {"tool_name": name}
        if isinstance(value, ToolResponse):
            metadata["final_answer"] = value.final_answer
            if value.extras:
                metadata["extras"] = value.extras
            content = _content(value.observation)
            checked = value.observation
        elif isinstance(value, ToolResult):
            # a forwarded result (an MCP proxy's, an OpenAPI tool's): its blocks and metadata become the
            # call's, its value (the structured content / response body, else its JSON block) the value
            content = value.content
            metadata.update(value.metadata)
            metadata["tool_name"] = name
            checked = value = value.value if value.value is not None else value.json
        else:
            content = _content(value)
    if synthetic:
        metadata["synthetic"] = True
    if check is not None:
        mismatch = check(checked)
        if mismatch is not None:
            metadata["returns_mismatch"] = mismatch
    metadata["latency_ms"] = (_perf() - t0) * 1000.0
    return _fast_result(use_id, "success", content, metadata, started_at, _now_iso(), None, value)


class _Deadline(Exception):
    """A call's timeout expired (as opposed to a ``TimeoutError`` raised by the tool itself)."""


def _listener_failed(listener: Any, exc: Exception) -> None:
    warnings.warn(f"workbench event listener {listener!r} raised {type(exc).__name__}: {exc}", RuntimeWarning, stacklevel=3)


def _uncancel(task: Any) -> None:
    """Undo the ``task.cancel()`` of a cancelled call (Python ≥ 3.11), so the task carries on."""
    uncancel = getattr(task, "uncancel", None)
    if uncancel is not None and task.cancelling():
        uncancel()


async def _await(awaitable: Any) -> Any:
    return await awaitable


@types.coroutine
def _resume(coro: Any, waits_for: Any) -> Any:
    """The rest of a coroutine whose first step already ran and yielded ``waits_for``: awaiting this
    hands ``waits_for`` to the task, then passes what the task sends or throws back in, step by step
    — what ``await coro`` would have done from its start (``yield from`` cannot take over a started
    coroutine's pending yield)."""
    try:
        while True:
            try:
                sent = yield waits_for
            except GeneratorExit:
                raise
            except BaseException as thrown:  # e.g. the task's CancelledError: into the coroutine
                try:
                    waits_for = coro.throw(thrown)
                except StopIteration as finished:
                    return finished.value
            else:
                try:
                    waits_for = coro.send(sent)
                except StopIteration as finished:
                    return finished.value
    finally:
        coro.close()  # a no-op once it finished; closes it if this is dropped half-way


def _stamp_finish(call: _Call, _future: Any) -> None:
    call.finished = _perf()


async def _stamped(awaitable: Any, call: _Call) -> Any:
    """Await a tool's coroutine, noting when it finished (returned, raised or was cancelled)."""
    try:
        return await awaitable
    finally:
        call.finished = _perf()


def _invoke_plain(tool: BaseTool, arguments: dict) -> Any:
    return tool._invoke(arguments, None)


class SequentialExecutor(ToolExecutor):
    """Run calls one at a time, in order. Quick sync tools run inline, without a thread hop."""

    async def execute(self, tool_uses, registry, ctx_factory=None, *, log=None, invocation_state=None):
        uses = tool_uses if type(tool_uses) is list else _call_iter(tool_uses)
        log = self.log if log is None else log
        # as in run(): plain calls with no log need no run state, made for the first call that does
        tools: Any = getattr(registry, "registry", None)
        plain = (type(tools) is dict and log is None and ctx_factory is None  # and _adds_nothing(), inlined:
                 and self.timeout is None and self.pool is None and not self.synthetic  # a call less per execute
                 and self.validation is None and _no_modes(registry))
        run: Optional[_Run] = None
        results = []
        for i, use in enumerate(uses):
            outcome: Any = self._run_plain(use, tools, True) if plain else None  # True: in the running loop
            if type(outcome) is ToolResult:
                results.append(outcome)
                continue
            if run is None:
                run = self._new_run(registry, log, invocation_state, ctx_factory)
            if outcome is not None:  # a plain async call that waits: the rest of it, where cancel(id) reaches it
                outcome.index = i
                results.append(await self._call_async(i, use, run, prepared=outcome))
            else:
                results.append(await self._call_async(i, use, run))
        return results

    async def execute_streaming(self, tool_uses, registry, ctx_factory=None, *, log=None, invocation_state=None):
        uses = _call_iter(tool_uses)  # lazily: a generator may produce calls from earlier results
        run = self._new_run(registry, log, invocation_state, ctx_factory)
        for i, use in enumerate(uses):
            yield i, await self._call_async(i, use, run)

    def run(self, tool_uses, registry, *, log=None, invocation_state=None):
        uses = tool_uses if type(tool_uses) is list else _call_list(tool_uses)
        log = self.log if log is None else log
        # plain calls with no log need no run state: it is made for the first call that does
        tools: Any = getattr(registry, "registry", None)
        run_plain = (self._run_plain if type(tools) is dict and log is None and self._adds_nothing() and _no_modes(registry)
                     else None)
        run: Optional[_Run] = None
        results: list[ToolResult] = []
        for i, use in enumerate(uses):
            outcome: Any
            if run_plain is not None:
                outcome = run_plain(use, tools)
                if outcome is not None:
                    results.append(outcome)
                    continue
            if run is None:
                run = self._new_run(registry, log, invocation_state)
            outcome = self._call_sync(i, use, run)
            if type(outcome) is _Call:  # this call needs a loop: finish it, and the rest, on the async path
                return results + run_sync(self._execute_rest(uses, outcome, run))
            results.append(outcome)
        return results

    def _batch_lane(self, tool: Any, registry: Any, log: Any) -> Optional[Callable[[list], list]]:
        """The batch fast lane of ``map`` for ``tool``, or ``None`` when the general path is needed.

        It applies to a sync function tool that needs nothing but validate-and-call (no timeout, pool,
        approval, idempotency, long-running, context, synthetic value) and a batch with nobody to tell
        (no log, no listeners). It returns ``rows(uses) -> [(status, value, error_type, error,
        duration_ms, tool_use_id), ...]`` — the rows the general path's results give — without
        building ``ToolResult`` objects. A use that is not a well-formed ToolUse of this tool, or a
        value that is not a plain int/str, takes the general path for that row."""
        if (log is not None or self._listeners or not self._adds_nothing() or not isinstance(tool, BaseTool)
                or not _no_modes(registry)):
            return None
        try:
            registry = _as_registry(registry)
            plan = _plan_of(tool)  # the same verdict as every plain call's: nothing but validate-and-call
            if plan is None or plan.is_async or registry.get_tool(plan.spec.name) is not tool:
                return None  # (the general path would call what the registry holds)
        except Exception:  # noqa: BLE001 - anything odd: the general path reports it
            return None
        spec, name, validator, checker = plan.spec, plan.spec.name, plan.validator, plan.check
        invoke = tool._invoke
        general = self._call_sync
        perf = _perf

        def rows(uses: list) -> list:
            out: list = []
            append = out.append
            run = None
            for use in uses:
                if (type(use) is not dict or use.get("name") != name or type(use.get("toolUseId")) is not str
                        or type(use.get("input")) is not dict):
                    if run is None:
                        run = _Run(registry, None, self.invocation_state)
                    append(_row_of(general(0, use, run), run, self))
                    continue
                t0 = perf()
                use_id = use["toolUseId"]
                try:
                    arguments = validator(name, use["input"])
                except ToolInputError as exc:
                    append(("error", None, "ToolInputError", str(exc), (perf() - t0) * 1000.0, use_id))
                    continue
                except Exception as exc:  # noqa: BLE001
                    append(("error", None, type(exc).__name__, str(exc), (perf() - t0) * 1000.0, use_id))
                    continue
                try:
                    value = invoke(arguments, None)
                    kind = type(value)
                    if kind is int:
                        int.__repr__(value)  # as the general path renders it: raises past the int -> str limit
                    elif kind is not str:
                        if run is None:
                            run = _Run(registry, None, self.invocation_state)
                        call = _Call(0, use, None, t0)
                        call.tool, call.spec, call.arguments = tool, spec, arguments
                        if kind not in _PLAIN_TYPES and _isawaitable(value):
                            value = run_sync(_await(value))
                        result = self._success(call, value)
                        append(_row_of(result, run, self))
                        continue
                    if checker is not None:
                        checker(value)
                except Exception as exc:  # noqa: BLE001
                    append(("error", None, type(exc).__name__, f"{type(exc).__name__}: {exc}",
                            (perf() - t0) * 1000.0, use_id))
                    continue
                append(("success", value, None, None, (perf() - t0) * 1000.0, use_id))
            return out

        return rows

    async def _execute_rest(self, uses: list, pending: _Call, run: _Run) -> list[ToolResult]:
        results = [await self._call_async(pending.index, pending.tool_use, run, prepared=pending)]
        for i in range(pending.index + 1, len(uses)):
            results.append(await self._call_async(i, uses[i], run))
        return results


def _row_of(result: Any, run: _Run, executor: Any) -> tuple:
    """A ``map`` result row of a ``ToolResult`` (see ``workbench._batch``)."""
    from workbench._batch import _row

    if type(result) is _Call:  # a use that needs a loop after all
        result = run_sync(executor._call_async(result.index, result.tool_use, run, prepared=result))
    return _row(result)


class ConcurrentExecutor(ToolExecutor):
    """Run calls concurrently, at most ``max_concurrency`` at a time. Sync tools run in a thread pool."""

    _hop_sync_tools = True

    def __init__(self, max_concurrency: int = 8, **options: Any) -> None:
        if isinstance(max_concurrency, bool) or not isinstance(max_concurrency, int) or max_concurrency < 1:
            raise ValueError(f"max_concurrency must be a positive integer, got {max_concurrency!r}")
        super().__init__(**options)
        self.max_concurrency = max_concurrency

    async def execute(self, tool_uses, registry, ctx_factory=None, *, log=None, invocation_state=None):
        uses = _call_list(tool_uses)
        run = self._new_run(registry, log, invocation_state, ctx_factory)
        semaphore = asyncio.Semaphore(self.max_concurrency)

        async def limited(i: int, use: Any) -> ToolResult:
            async with semaphore:
                return await self._call_async(i, use, run)

        tasks = [asyncio.ensure_future(limited(i, use)) for i, use in enumerate(uses)]
        try:
            return list(await asyncio.gather(*tasks))
        finally:
            for task in tasks:
                if not task.done():
                    task.cancel()

    async def execute_streaming(self, tool_uses, registry, ctx_factory=None, *, log=None, invocation_state=None):
        uses = _call_list(tool_uses)
        if not uses:
            return
        run = self._new_run(registry, log, invocation_state, ctx_factory)
        semaphore = asyncio.Semaphore(self.max_concurrency)
        queue: asyncio.Queue = asyncio.Queue()
        done_marker = object()

        async def one(i: int, use: Any) -> None:
            # exactly one marker per task, even when cancelled, so the consumer never waits forever
            try:
                async with semaphore:
                    queue.put_nowait((i, await self._call_async(i, use, run)))
            finally:
                queue.put_nowait((i, done_marker))

        tasks = [asyncio.ensure_future(one(i, use)) for i, use in enumerate(uses)]
        try:
            remaining = len(tasks)
            while remaining:
                i, item = await queue.get()
                if item is done_marker:
                    remaining -= 1
                    continue
                yield i, item
        finally:
            for task in tasks:
                if not task.done():
                    task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
