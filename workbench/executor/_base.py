"""``ToolExecutor``: every call goes through one pipeline of public phases.

``start_run`` (the run's registry, log, idempotency cache) → ``prepare`` (normalise, look up,
permission, validate: a ``PreparedCall``, or the final result of a call that failed there) →
``invoke`` (sync: run it here when nothing needs a loop) or ``ainvoke`` (approve, idempotency, run
within its timeout in the caller's task, a thread or a pool, shape the result) → ``finish`` (log and
announce the result). ``outcome`` (run and shape, no log), ``approve`` and ``reuse`` are the steps of
``ainvoke`` an executor that runs tools elsewhere (``DaskExecutor``) composes itself.

A tool whose calls need nothing but validate-and-call has a cached ``CallPlan``: ``prepare`` then skips
the steps the plan says cannot apply, and ``run_planned`` does both phases of such a call in one step
(no ``PreparedCall``, no run state). Bad calls become ``status="error"`` results; the executor never
raises for one.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import functools
import inspect
import threading
import time
import traceback
import types
import warnings
from typing import Any, AsyncIterator, Callable, NamedTuple, Optional, Sequence

from pydantic import ValidationError as _ValidationError

from workbench._async import await_value, resume_started, run_sync, uncancel
from workbench._content import canonical_json as _canonical
from workbench._errors import ToolInputError
from workbench._events import EventListener, ToolEvent
from workbench._validation_mode import _context_mode, check_mode, mode_for
from workbench.context import ToolContext
from workbench.executor._calls import call_list, normalise_tool_use
from workbench.executor._plan import CallPlan, call_plan
from workbench.executor._results import append_masked, success_result
from workbench.executor._state import Approver, CallRun, PreparedCall, ProgressEvent, current_approver
from workbench.tools import BaseTool, NoImplementationError
from workbench.types import Permission, ToolResult, error_result, fast_tool_result, new_tool_use_id, utc_now_iso

__all__ = ["ToolExecutor", "MapChunks", "no_run_modes", "is_awaitable"]

_ALLOW, _DENY, _ASK = Permission.ALWAYS_ALLOW, Permission.ALWAYS_DENY, Permission.ASK_USER
_BASE_PERMISSION = BaseTool.__dict__["permission"]
_perf = time.perf_counter
_now_iso = utc_now_iso
_NEVER_AWAITABLE = frozenset({int, float, str, bool, type(None), dict, list, tuple, bytes})
_current_task = asyncio.current_task
_CoroutineType = types.CoroutineType

#: the ``target`` of a sync call running in its caller's thread (``_invoke_in_caller_thread``):
#: nothing to cancel on a loop; ``cancel(id)`` marks the call and its context instead
RUNS_IN_CALLER_THREAD: Any = object()


def is_awaitable(
    value: Any, _never: frozenset = _NEVER_AWAITABLE, _check: Callable[[Any], bool] = inspect.isawaitable
) -> bool:
    """``inspect.isawaitable`` without its ABC check for the common plain return values."""
    return type(value) not in _never and _check(value)


_isawaitable = is_awaitable


def no_run_modes(registry: Any) -> bool:
    """Whether no ``validating()`` context and no registry's ``validation`` apply: each tool's own
    validator (its own mode) then checks its calls, as a ``CallPlan`` calls it."""
    return _context_mode.get() is None and getattr(registry, "validation", None) is None


class MapChunks(NamedTuple):
    """How ``map`` cuts a batch into chunks that each go through ``run``: at least ``smallest`` calls,
    about ``seconds`` of work, at most ``largest`` calls per chunk."""

    smallest: int
    seconds: float
    largest: int


_PHASES = ("prepare", "invoke", "ainvoke", "finish")  # what a subclass overrides to add a step


class _Deadline(Exception):
    """A call's timeout expired (as opposed to a ``TimeoutError`` raised by the tool itself)."""


def _listener_failed(listener: Any, exc: Exception) -> None:
    warnings.warn(
        f"workbench event listener {listener!r} raised {type(exc).__name__}: {exc}", RuntimeWarning, stacklevel=3
    )


def _stamp_finish(call: PreparedCall, _future: Any) -> None:
    call.finished = _perf()


async def _stamped(awaitable: Any, call: PreparedCall) -> Any:
    """Await a tool's coroutine, noting when it finished (returned, raised or was cancelled)."""
    try:
        return await awaitable
    finally:
        call.finished = _perf()


def _invoke_without_context(tool: BaseTool, arguments: dict) -> Any:
    return tool._invoke(arguments, None)


def _planned_call(raw_use: Any, started_at: str, t0: float, plan: CallPlan, arguments: Optional[dict]) -> PreparedCall:
    """The ``PreparedCall`` of a call ``run_planned`` began: for an error result, or to be awaited."""
    call = PreparedCall(0, raw_use, started_at, t0)
    call.tool, call.spec, call.func, call.arguments = plan.tool, plan.spec, plan.func, arguments
    return call


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

    _sync_tools_off_loop = False  # concurrent executors move every sync call off the loop
    #: whether this class runs the phases as defined here; a subclass that overrides one (to add a
    #: step) has every call go through every phase: no ``run_planned`` shortcut, no skipped ``finish``
    _stock_phases = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._stock_phases = all(getattr(cls, name) is getattr(ToolExecutor, name) for name in _PHASES)

    def __init__(
        self,
        *,
        timeout: Optional[float] = None,
        approver: Optional[Approver] = None,
        log: Any = None,
        synthetic: bool = False,
        seed: int = 0,
        pool: Optional[concurrent.futures.Executor] = None,
        invocation_state: Optional[dict[str, Any]] = None,
        validation: Optional[str] = None,
    ) -> None:
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
        self._running: dict[str, PreparedCall] = {}  # calls that cancel(id) can reach
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
        be cancelled; a validate-and-call one (``CallPlan``) made while no log and no listener follow the
        executor runs in one step, unlisted (see :meth:`running`)."""
        call = self._running.get(tool_use_id)
        if call is None:
            return False
        if call.target is RUNS_IN_CALLER_THREAD:
            with self._lock:  # not after _invoke_in_caller_thread unlisted it: then its result is decided
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

    def _cancel_on_loop(self, tool_use_id: str, call: PreparedCall) -> None:
        if self._running.get(tool_use_id) is not call or call.cancelled:
            return  # it finished in the meantime
        call.cancelled = True
        call.target.cancel()

    def running(self) -> list[str]:
        """Ids of the calls in flight, which :meth:`cancel` can reach.

        Every call is listed while its tool runs, except a validate-and-call one (``CallPlan``: a sync or async function
        tool, always allowed, no ``ToolContext``, timeout or idempotency, on an executor without
        timeout, pool or synthetic values) made while nobody follows the executor — no log and no
        listener (:meth:`on_event`): that one runs in a single step with no run state, at full speed,
        and could not notice a cancellation anyway. Subscribe a listener (as the notebook's forms
        do) or pass a log to make every call cancellable."""
        return list(self._running)

    # -- public API --------------------------------------------------------------------------------
    async def execute(
        self,
        tool_uses: Sequence[Any],
        registry: Any,
        ctx_factory: Any = None,
        *,
        log: Any = None,
        invocation_state: Optional[dict[str, Any]] = None,
    ) -> list[ToolResult]:
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

    async def execute_streaming(
        self,
        tool_uses: Sequence[Any],
        registry: Any,
        ctx_factory: Any = None,
        *,
        log: Any = None,
        invocation_state: Optional[dict[str, Any]] = None,
    ) -> AsyncIterator[tuple[int, ToolResult]]:
        """Yield ``(input_index, result)`` as calls finish; breaking out cancels the calls in flight."""
        raise NotImplementedError
        yield  # pragma: no cover

    def run(
        self,
        tool_uses: Sequence[Any],
        registry: Any,
        *,
        log: Any = None,
        invocation_state: Optional[dict[str, Any]] = None,
    ) -> list[ToolResult]:
        """Synchronous ``execute`` (same rules); works in plain scripts and inside a running event loop (Jupyter)."""
        tool_uses = call_list(tool_uses)
        return run_sync(self.execute(tool_uses, registry, log=log, invocation_state=invocation_state))

    def call(self, registry: Any, name: str, input: Optional[dict[str, Any]] = None, **kwargs: Any) -> ToolResult:
        """Run one call synchronously: ``executor.call(registry, "add", {"a": 1, "b": 2})``."""
        return self.run(
            [{"toolUseId": new_tool_use_id(), "name": name, "input": {} if input is None else input}],
            registry,
            **kwargs,
        )[0]

    def map(
        self,
        tool: Any,
        inputs: Any,
        *,
        registry: Any = None,
        log: Any = None,
        resume: bool = False,
        progress: Any = None,
    ) -> Any:
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

    # -- phase 0: the run ----------------------------------------------------------------------------
    def start_run(
        self, registry: Any, log: Any = None, invocation_state: Optional[dict] = None, ctx_factory: Any = None
    ) -> CallRun:
        """The state of one batch of calls (``execute``/``run``): its registry, log (this executor's if
        ``None``), invocation state and idempotency cache. ``ctx_factory(tool_use) -> ToolContext``
        makes the context of a tool that takes one."""
        run = CallRun(
            registry,
            self.log if log is None else log,
            self.invocation_state if invocation_state is None else invocation_state,
            ctx_factory,
            self._adds_no_steps() and ctx_factory is None,
        )
        mode = _context_mode.get() or self.validation
        if mode is not None or getattr(run.registry, "validation", None) is not None:
            run.validation, run.planned = mode, False  # each call's validator is chosen in prepare: no plans
        return run

    def _adds_no_steps(self) -> bool:
        """Whether this executor adds no step to a validate-and-call tool's call (``CallPlan``): no
        default timeout, pool, synthetic values or validation mode, and no phase overridden by a subclass.
        (A ``validating()`` context or a registry's mode is checked per run, see ``no_run_modes``.)"""
        return (
            self.timeout is None
            and self.pool is None
            and not self.synthetic
            and self.validation is None
            and self._stock_phases
        )

    # -- phase 1: prepare ----------------------------------------------------------------------------
    def prepare(self, tool_use: Any, run: CallRun, index: int = 0) -> "PreparedCall | ToolResult":
        """Normalise, look up, permit and validate one call: the ``PreparedCall`` to invoke, or the
        final result (already logged and announced, see ``finish``) of a call that failed here —
        ``TypeError`` (no call shape), ``ToolNotFoundError`` (with ``available``), ``PermissionDenied``
        (``always_deny``), ``ToolInputError`` (naming the tool and every bad field, ``errors``),
        ``NoImplementationError`` (a spec-only tool without synthetic values). A tool with a
        ``CallPlan`` skips the steps its plan says cannot apply."""
        t0 = _perf()
        started_at = _now_iso()
        normalised: Any = None
        if type(tool_use) is dict:
            try:  # already a well-formed ToolUse: used as it is, no copy
                name = tool_use["name"]
                if (
                    type(name) is str
                    and name != ""
                    and type(tool_use["toolUseId"]) is str
                    and type(tool_use["input"]) is dict
                ):
                    normalised, bad_shape = tool_use, None
            except KeyError:
                pass
        if normalised is None:
            normalised, bad_shape = normalise_tool_use(tool_use)
            name = normalised["name"]
        call = PreparedCall(index, normalised, started_at, t0)
        if self._listeners:
            self._emit(ToolEvent("start", normalised, index, 0.0, None, None, started_at))
        if bad_shape is not None:
            return self._fail(call, run, bad_shape, "TypeError")
        try:
            item = run.tools.get(name)
            if item is None:
                try:
                    item = run.registry.get_tool(name)
                except KeyError as exc:
                    listing = getattr(run.registry, "list_tools", None)
                    return self._fail(
                        call,
                        run,
                        str(exc),
                        "ToolNotFoundError",
                        {"available": list(listing()) if listing is not None else []},
                    )
            call.tool = item
            plan = call_plan(item) if run.planned else None
            if plan is not None:  # validate-and-call: permission, idempotency, synthetic values, context do not apply
                call.spec, call.func = plan.spec, plan.func
                try:
                    call.arguments = plan.validate(name, normalised["input"])
                except Exception as exc:  # noqa: BLE001 - bad input, or a broken validator
                    return self.finish(call, self._refused(call, exc), run)
                return call
            spec = call.spec = item.spec
            permission = spec.permission if type(item).permission is _BASE_PERMISSION else item.permission
            if permission is not _ALLOW:
                permission = Permission.coerce(permission)
                if permission is _DENY:
                    return self._fail(
                        call, run, f"Tool '{name}' is not allowed to run (permission: always_deny)", "PermissionDenied"
                    )
                call.approval = permission is _ASK
            raw_input = normalised["input"]
            try:
                if run.validation is not None or getattr(run.registry, "validation", None):
                    # a mode the run or registry sets: the tool's validator of the mode that wins (run > tool > registry)
                    call.arguments = spec.input_validator(mode_for(spec, run.validation, run.registry))(
                        spec.name, raw_input
                    )
                else:
                    call.arguments = spec.check_inputs(raw_input)
            except Exception as exc:  # noqa: BLE001 - bad input, a malformed schema (ToolSpecError), a broken validator
                return self.finish(call, self._refused(call, exc), run)
            if spec.idempotent:
                call.idem_key = (name, _canonical(raw_input))
            if not item.has_implementation:
                if not self.synthetic and not getattr(run.registry, "synthetic", False):
                    return self._fail(
                        call,
                        run,
                        str(
                            NoImplementationError(
                                f"Tool '{name}' has no implementation: it was registered from a spec only. Call it with "
                                "synthetic=True (on the registry or executor) to get a generated value matching its returns schema."
                            )
                        ),
                        "NoImplementationError",
                    )
                call.synthetic = True
            elif item.context_param is not None:
                call.cancel_event = threading.Event()
                call.context = self._make_context(call, run)
            return call
        except Exception as exc:  # noqa: BLE001 - e.g. a class tool with a malformed permission
            return self._fail(call, run, f"{type(exc).__name__}: {exc}", type(exc).__name__)

    def _make_context(self, call: PreparedCall, run: CallRun) -> ToolContext:
        tool_use = call.tool_use
        if run.ctx_factory is not None:
            ctx = run.ctx_factory(tool_use)
        else:
            ctx = ToolContext(tool_use, run.invocation_state)
        if self._listeners:
            ctx._on_progress, ctx._on_log = self._reporters(call)
        ctx._cancel_event = call.cancel_event
        return ctx

    def _reporters(self, call: PreparedCall) -> tuple[Callable, Callable]:
        """The progress and log callbacks of one call's ``ToolContext``: one small event object per
        report (its ``in_progress`` ToolResult is built only if a listener reads ``.result``)."""
        executor = self
        tool_use, index, started_at = call.tool_use, call.index, call.started_at

        def progress(value: float, message: Optional[str]) -> None:
            event = ProgressEvent(call, value, message)
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

    # -- shaping a call's result (public for executors that run tools elsewhere) ---------------------
    def timeout_of(self, call: PreparedCall) -> Optional[float]:
        """The call's time limit in seconds: its tool's ``timeout``, else this executor's (``None``: none)."""
        timeout = call.spec.timeout
        return self.timeout if timeout is None else timeout

    def _synthetic_value(self, call: PreparedCall) -> Any:
        from workbench._synthetic import synthesize, synthetic_seed

        return synthesize(
            call.spec.returns,
            synthetic_seed(call.spec.name, call.tool_use.get("input"), self.seed),
            tool=call.spec.name,
        )

    def _success(self, call: PreparedCall, value: Any) -> ToolResult:
        spec = call.spec
        return success_result(
            spec.name,
            call.tool_use["toolUseId"],
            value,
            call.t0,
            call.started_at,
            spec.returns_checker(),
            call.synthetic,
        )

    def _refused(self, call: PreparedCall, exc: Exception) -> ToolResult:
        """The error result of input its validator refused (or a validator that broke)."""
        if isinstance(exc, ToolInputError):
            return self.result_of_error(call, str(exc), "ToolInputError", {"errors": exc.errors})
        return self.result_of_error(call, str(exc), type(exc).__name__)

    def result_of_error(
        self, call: PreparedCall, message: str, error_type: str, extra: Optional[dict] = None, tb: Optional[str] = None
    ) -> ToolResult:
        """``call``'s error result (``workbench.types.error_result``), its latency measured from its start;
        ``tb`` goes to ``metadata["traceback"]``."""
        if tb is not None:
            extra = {"traceback": tb, **(extra or {})}
        return error_result(
            call.tool_use["toolUseId"],
            message,
            error_type,
            tool_name=call.tool_use.get("name", ""),
            extra=extra,
            started_at=call.started_at,
            latency_ms=(_perf() - call.t0) * 1000.0,
        )

    def _fail(
        self, call: PreparedCall, run: CallRun, message: str, error_type: str, extra: Optional[dict] = None
    ) -> ToolResult:
        return self.finish(call, self.result_of_error(call, message, error_type, extra), run)

    def _exception(self, call: PreparedCall, exc: BaseException) -> ToolResult:
        tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        return self.result_of_error(call, f"{type(exc).__name__}: {exc}", type(exc).__name__, tb=tb)

    def cancelled_result(self, call: PreparedCall) -> ToolResult:
        """``call``'s result when it was cancelled (``CancelledError``)."""
        return self.result_of_error(call, f"Tool '{call.spec.name}' was cancelled", "CancelledError")

    def timed_out_result(self, call: PreparedCall) -> ToolResult:
        """``call``'s result when its time limit passed (``TimeoutError``, with ``timeout``); tells its context."""
        if call.cancel_event is not None:
            call.cancel_event.set()
        timeout = self.timeout_of(call)
        return self.result_of_error(
            call, f"Tool '{call.spec.name}' timed out after {timeout:g} s", "TimeoutError", {"timeout": timeout}
        )

    # -- phase 3: finish ---------------------------------------------------------------------------------
    def finish(self, call: PreparedCall, result: ToolResult, run: CallRun) -> ToolResult:
        """Log ``result`` as ``call``'s row (secret parameters masked; a log that fails is noted in
        ``metadata["log_error"]``, never raised), attach its ``ctx.log`` entries, announce the ``end``
        event; returns ``result``."""
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
    def reuse(call: PreparedCall, original: ToolResult) -> ToolResult:
        """``call``'s result when it repeats an idempotent call of the same run that gave ``original``
        (marked ``idempotent_reuse``, with the ``original_tool_use_id``); to ``finish`` like any result."""
        metadata = {
            **original.metadata,
            "idempotent_reuse": True,
            "original_tool_use_id": original.tool_use_id,
            "latency_ms": (_perf() - call.t0) * 1000.0,
        }
        return fast_tool_result(
            call.tool_use["toolUseId"],
            original.status,
            original.content,
            metadata,
            call.started_at,
            _now_iso(),
            None,
            original.value,
        )

    # -- the steps of ainvoke -------------------------------------------------------------------------
    def _thread_pool(self) -> concurrent.futures.Executor:
        if self.pool is not None:
            return self.pool
        with self._lock:
            if self._own_pool is None:
                self._own_pool = concurrent.futures.ThreadPoolExecutor(
                    max_workers=max(8, getattr(self, "max_concurrency", 8)), thread_name_prefix="workbench-tool"
                )
            return self._own_pool

    def _runs_off_loop(self, call: PreparedCall, timeout: Optional[float]) -> bool:
        return (
            self._sync_tools_off_loop
            or timeout is not None
            or call.spec.long_running
            or self.pool is not None
            or call.context is not None
        )

    # -- phase 2: invoke (async) ---------------------------------------------------------------------
    async def ainvoke(self, call: PreparedCall, run: CallRun) -> ToolResult:
        """Run a prepared call to its final result, logged and announced (``finish``): ask the approver
        (``ask_user``), reuse an identical idempotent call's result, run the tool — awaited in this task
        when nothing more applies, else as its own task, in a thread or in the pool, within its
        timeout — and shape what it returned or raised. ``cancel(id)`` reaches it while it runs."""
        spec = call.spec
        spec = call.spec
        if call.approval:
            denied = await self.approve(call)
            if denied is not None:
                return self.finish(call, denied, run)
        elif call.awaitable is not None or (  # the rest of a planned call run_planned started
            spec.supports_async
            and (
                call.func is not None  # a planned call (CallPlan): none of the below applies
                or (
                    call.idem_key is None
                    and spec.timeout is None
                    and self.timeout is None
                    and self.pool is None
                    and not call.synthetic
                )
            )
        ):
            # the fast path of an async tool: await its coroutine in this task (no task, no loop
            # iteration); cancel(id) cancels this task and the cancellation is turned into a result
            try:
                func = call.func
                awaitable = call.awaitable
                if awaitable is None:
                    awaitable = (
                        func(**call.arguments) if func is not None else call.tool._invoke(call.arguments, call.context)
                    )
            except Exception as exc:  # noqa: BLE001
                return self.finish(call, self._exception(call, exc), run)
            if type(awaitable) is not _CoroutineType and not _isawaitable(awaitable):
                return self.finish(call, self.result_of_value(call, awaitable), run)
            use_id = call.tool_use["toolUseId"]
            call.target = task = _current_task()
            running = self._running
            running[use_id] = call
            try:
                value = await awaitable
            except asyncio.CancelledError:
                if not call.cancelled:
                    raise
                uncancel(task)
                return self.finish(call, self.cancelled_result(call), run)
            except Exception as exc:  # noqa: BLE001 - every tool failure becomes a result
                if call.cancelled:
                    uncancel(task)
                    return self.finish(call, self.cancelled_result(call), run)
                return self.finish(call, self._exception(call, exc), run)
            finally:
                if running.get(use_id) is call:
                    del running[use_id]
            if call.cancelled:  # the tool swallowed the cancellation
                uncancel(task)
                return self.finish(call, self.cancelled_result(call), run)
            try:
                result = success_result(
                    spec.name, use_id, value, call.t0, call.started_at, spec.returns_checker(), call.synthetic
                )
            except Exception as exc:  # noqa: BLE001
                result = self._exception(call, exc)
            if run.log is None and not self._listeners and call.context is None and self._stock_phases:
                return result  # nothing for finish to do (no log, no listener, no ctx.log lines)
            return self.finish(call, result, run)
        key = call.idem_key
        if key is None:
            return self.finish(call, await self.outcome(call), run)
        return await self._call_idempotent(call, key, run)

    async def _call_async(self, index: int, tool_use: Any, run: CallRun) -> ToolResult:
        """``prepare`` then ``ainvoke``: one call, from what the caller passed to its final result."""
        call = self.prepare(tool_use, run, index)
        if type(call) is not PreparedCall:
            return call  # type: ignore[return-value]
        return await self.ainvoke(call, run)

    def result_of_value(self, call: PreparedCall, value: Any) -> ToolResult:
        """``call``'s success result for the ``value`` its tool returned (or the error result of a
        returns check that broke on it)."""
        try:
            return self._success(call, value)
        except Exception as exc:  # noqa: BLE001 - e.g. a returns checker that breaks on an odd value
            return self._exception(call, exc)

    async def _call_idempotent(self, call: PreparedCall, key: tuple[str, str], run: CallRun) -> ToolResult:
        """One execution per (name, canonical input) in a run; identical calls in flight wait for it."""
        while True:
            earlier = run.idempotent.get(key)
            if earlier is None:
                break
            if not isinstance(earlier, asyncio.Future):
                return self.finish(call, self.reuse(call, earlier), run)
            try:
                original = await asyncio.shield(earlier)
            except asyncio.CancelledError:
                if earlier.cancelled() and not call.cancelled:
                    continue  # the original was cancelled by id: run it here instead
                raise
            return self.finish(call, self.reuse(call, original), run)
        future = run.idempotent[key] = asyncio.get_running_loop().create_future()
        try:
            result = await self.outcome(call)
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
        return self.finish(call, result, run)

    async def outcome(self, call: PreparedCall) -> ToolResult:
        """Run the tool (or make its synthetic value) within its time limit and turn whatever happens into
        a result — not logged: ``finish`` does that. A step of ``ainvoke``."""
        if call.synthetic:
            try:
                return self._success(call, self._synthetic_value(call))
            except Exception as exc:  # noqa: BLE001
                return self._exception(call, exc)
        try:
            value = await self._invoke_general(call, self.timeout_of(call))
        except _Deadline:
            if call.cancelled:
                return self.cancelled_result(call)
            return self.timed_out_result(call)
        except asyncio.CancelledError:
            if not call.cancelled:
                raise
            return self.cancelled_result(call)
        except Exception as exc:  # noqa: BLE001 - every tool failure becomes a result
            return self._exception(call, exc)
        return self.result_of_value(call, value)

    async def _invoke_general(self, call: PreparedCall, timeout: Optional[float]) -> Any:
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
        elif self._runs_off_loop(call, timeout):
            pool = self._thread_pool()
            if isinstance(pool, concurrent.futures.ThreadPoolExecutor):
                ctx = contextvars.copy_context()
                func = functools.partial(ctx.run, tool._invoke, call.arguments, call.context)
            else:  # processes / Dask: the tool travels by reference, without a context
                func = functools.partial(_invoke_without_context, tool, call.arguments)
            submitted = pool.submit(func)
            if timeout is not None:  # stamped in the thread that completes it, before the loop hears of it
                submitted.add_done_callback(functools.partial(_stamp_finish, call))
            inner = asyncio.wrap_future(submitted)
        else:
            try:
                value = self._invoke_in_caller_thread(call)
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
                call, asyncio.ensure_future(value if timeout is None else _stamped(value, call)), timeout
            )
        return value

    def _invoke_in_caller_thread(self, call: PreparedCall) -> Any:
        """Run a sync call here, in the caller's thread, listed in ``running()`` meanwhile: ``cancel(id)``
        cannot stop this thread, so it marks the call (and sets its context's ``cancelled``), and the
        caller answers it as cancelled once the tool returns."""
        use_id = call.tool_use["toolUseId"]
        running = self._running
        call.target = RUNS_IN_CALLER_THREAD
        running[use_id] = call
        try:
            if call.func is not None:
                return call.func(**call.arguments)
            return call.tool._invoke(call.arguments, call.context)
        finally:
            with self._lock:  # against cancel(): once unlisted, the call's outcome is decided
                if running.get(use_id) is call:
                    del running[use_id]

    async def _await_inner(self, call: PreparedCall, inner: asyncio.Future, timeout: Optional[float]) -> Any:
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

    async def approve(self, call: PreparedCall) -> Optional[ToolResult]:
        """Ask the approver (the ``approving()`` context's, else this executor's) about an ``ask_user``
        call: ``None`` if it may run, else its ``PermissionDenied`` result. A step of ``ainvoke``."""
        name = call.spec.name
        approver = current_approver() or self.approver
        if approver is None:
            return self.result_of_error(
                call,
                f"Tool '{name}' requires user approval (permission: ask_user) and no approver is configured",
                "PermissionDenied",
            )
        try:
            decision = approver(call.tool_use, call.tool)
            if _isawaitable(decision):
                decision = await decision
        except Exception as exc:  # noqa: BLE001
            return self.result_of_error(
                call, f"Approver failed for tool '{name}': {type(exc).__name__}: {exc}", "PermissionDenied"
            )
        if not decision:
            return self.result_of_error(call, f"Tool '{name}' was denied by the approver", "PermissionDenied")
        return None

    # -- phase 2: invoke (sync) ----------------------------------------------------------------------
    def invoke(self, call: PreparedCall, run: CallRun) -> "ToolResult | PreparedCall":
        """Run a prepared call here, in the caller's thread, to its final result (logged and announced)
        when nothing needs a loop; otherwise — an async tool, a timeout, a pool, a long-running tool,
        an approval to ask — hand ``call`` back, untouched, for ``ainvoke``. ``cancel(id)`` marks a
        call running here (its context's ``cancelled`` is set) and it ends as cancelled once it returns."""
        spec = call.spec
        if (
            spec.supports_async
            or spec.timeout is not None
            or self.timeout is not None
            or self.pool is not None
            or spec.long_running
            or call.approval
        ):
            return call
        key = call.idem_key
        if key is not None and key in run.idempotent:
            return self.finish(call, self.reuse(call, run.idempotent[key]), run)
        try:
            if call.synthetic:
                value = self._synthetic_value(call)
            else:
                value = self._invoke_in_caller_thread(call)
                if type(value) not in _NEVER_AWAITABLE and _isawaitable(value):
                    value = run_sync(await_value(value))  # an undeclared async tool: finish it on a loop
            result = self.cancelled_result(call) if call.cancelled else self._success(call, value)
        except Exception as exc:  # noqa: BLE001
            result = self.cancelled_result(call) if call.cancelled else self._exception(call, exc)
        if key is not None and not call.cancelled:  # a cancelled call answers no identical one
            run.idempotent[key] = result
        return self.finish(call, result, run)

    def _call_sync(self, index: int, tool_use: Any, run: CallRun) -> "ToolResult | PreparedCall":
        """``prepare`` then ``invoke``: a returned ``PreparedCall`` must go on with ``ainvoke``."""
        call = self.prepare(tool_use, run, index)
        if type(call) is not PreparedCall:
            return call
        return self.invoke(call, run)

    # -- both phases of a planned call in one step ---------------------------------------------------------
    def run_planned(self, tool_use: Any, tools: dict, in_loop: bool = False) -> "ToolResult | PreparedCall | None":
        """``prepare`` and ``invoke`` of a call whose tool has a ``CallPlan`` (looked up in ``tools``, a
        registry's dict), in one step, for a caller with no log and no run state: validate, call, shape
        the result — the plan's steps, with no ``PreparedCall`` (made only when a call needs more) and
        no ``finish`` (nothing to log; it is not taken while a listener follows the executor). ``None``,
        having done nothing, for anything else: the caller then takes the phases one by one.

        An ``async def`` tool only ``in_loop`` (called from a coroutine of the running loop). Its
        coroutine's first step runs here, as ``await`` would run it, in the same task; one that
        finishes there (no real wait) is shaped at once — nothing could have cancelled it. One that
        waits comes back as a ``PreparedCall`` whose ``awaitable`` is the rest, for ``ainvoke`` (where
        ``cancel(id)`` can reach it)."""
        if type(tool_use) is not dict or self._listeners:
            return None
        try:
            name, raw_input, use_id = tool_use["name"], tool_use["input"], tool_use["toolUseId"]
            item: Any = tools.get(name)
            # the spec a tool caches in its __dict__ (not its .spec property); a tool whose .spec is
            # another never matches its plan and takes call_plan
            spec = item.__dict__.get("_wb_spec")
            if spec is None:
                spec = item.spec  # a deferred spec is built by .spec
        except (KeyError, TypeError, AttributeError):  # a key missing, an unhashable name, no such tool
            return None
        if type(raw_input) is not dict or type(use_id) is not str:
            return None
        plan = spec.call_plan()
        if plan is None or plan.spec is not spec or plan.tool is not item:
            plan = call_plan(item)
            if plan is None:
                return None
        _spec, _tool, validator, func, is_async, check, flat_check = plan
        if func is None or (is_async and not in_loop):
            return None
        t0 = _perf()
        started_at = _now_iso()
        try:
            # CallPlan.validate, inlined (this is every call): the flat check, else the validator explains
            if flat_check is not None:
                try:
                    arguments = flat_check(raw_input)
                except _ValidationError:
                    arguments = validator(name, raw_input)
            else:
                arguments = validator(name, raw_input)
        except Exception as exc:  # noqa: BLE001 - bad input: its error result, as prepare gives it
            return self._refused(_planned_call(tool_use, started_at, t0, plan, None), exc)
        try:
            value = func(**arguments)
            if is_async and type(value) is _CoroutineType:
                try:
                    waits_for = value.send(None)
                except StopIteration as finished:
                    value = finished.value
                else:
                    call = _planned_call(tool_use, started_at, t0, plan, arguments)
                    call.awaitable = resume_started(value, waits_for)
                    return call
            elif type(value) not in _NEVER_AWAITABLE and _isawaitable(value):
                if in_loop:  # another kind of awaitable: ainvoke awaits it
                    call = _planned_call(tool_use, started_at, t0, plan, arguments)
                    call.awaitable = value
                    return call
                value = run_sync(await_value(value))  # an undeclared async tool: finish it on a loop
            return success_result(name, use_id, value, t0, started_at, check)
        except Exception as exc:  # noqa: BLE001 - every tool failure becomes a result
            return self._exception(_planned_call(tool_use, started_at, t0, plan, None), exc)

    def map_chunks(self) -> MapChunks:
        """How ``map`` cuts a batch into chunks on this executor (see ``MapChunks``)."""
        return MapChunks(1, 0.1, 4096)

    # -- an optional fast lane for batches -------------------------------------------------------------
    def batch_rows(self, tool: Any, registry: Any, log: Any) -> Optional[Callable[[list], list]]:
        """A fast lane for ``map``: ``rows(uses) -> [row | ToolResult, ...]`` giving each use of ``tool``
        its ``map`` row ``(status, value, error_type, error, duration_ms, tool_use_id)`` without a
        ``ToolResult``, or the ``ToolResult`` of a use it gave to the ordinary phases — or ``None``
        when this executor has no such lane for ``tool`` (``map`` then runs the batch through ``run``)."""
        return None
