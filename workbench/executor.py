"""Executors: run batches of tool calls (DESIGN.md §4).

Every call goes through one pipeline — look up, permission, validation,
idempotency, invoke, result — split into synchronous steps so that a quick
sync tool in a sequential ``run`` never touches an event loop or a thread
(the dominant cost in the peer SDKs), while everything that needs one
(timeouts, async tools, concurrency, approvals, cancellation) goes through
the async path. Bad calls become ``status="error"`` results; the executor
itself never raises for one.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import functools
import inspect
import json
import threading
import time
import traceback
import warnings
from typing import Any, AsyncIterator, Callable, Iterable, Optional, Sequence

from workbench._content import to_content_blocks
from workbench._errors import ToolInputError
from workbench._events import EventListener, ToolEvent
from workbench.context import ToolContext
from workbench.tools import BaseTool, NoImplementationError, ToolResponse
from workbench.types import Permission, ToolResult, ToolUse, new_tool_use_id, utc_now_iso

__all__ = ["ToolExecutor", "SequentialExecutor", "ConcurrentExecutor", "Approver", "run_sync"]

Approver = Callable[[ToolUse, BaseTool], Any]  # returns bool or an awaitable of bool

_ALLOW, _DENY, _ASK = Permission.ALWAYS_ALLOW, Permission.ALWAYS_DENY, Permission.ASK_USER


def run_sync(coro: Any) -> Any:
    """Run a coroutine to completion from sync code, also when this thread already runs a loop
    (a Jupyter kernel): then it runs on a fresh loop in a helper thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="workbench-run") as pool:
        return pool.submit(asyncio.run, coro).result()


def _normalise_tool_use(item: Any) -> ToolUse:
    """Accept ToolUse dicts, ``{"id","name","arguments"}`` dicts and ToolCall-like objects."""
    if isinstance(item, dict):
        if "toolUseId" in item and "input" in item:
            return item  # type: ignore[return-value]
        use_id = item.get("toolUseId") or item.get("id") or new_tool_use_id()
        args = item.get("input", item.get("arguments", {}))
        return {"toolUseId": use_id, "name": item.get("name", ""), "input": {} if args is None else args}
    name = getattr(item, "name", None)
    if name is not None:
        args = getattr(item, "arguments", getattr(item, "input", {}))
        return {"toolUseId": getattr(item, "id", None) or new_tool_use_id(), "name": name, "input": args}
    raise TypeError(f"Cannot interpret {item!r} as a tool call: expected a ToolUse dict {{'toolUseId', 'name', 'input'}}")


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=repr)


class _Call:
    """State of one call between the pipeline steps."""

    __slots__ = ("index", "tool_use", "tool", "spec", "arguments", "context", "started_at", "t0", "cancel_event",
                 "idem_key", "synthetic")

    def __init__(self, index: int, tool_use: ToolUse, started_at: str, t0: float) -> None:
        self.index = index
        self.tool_use = tool_use
        self.started_at = started_at
        self.t0 = t0
        self.tool: Optional[BaseTool] = None
        self.spec: Any = None
        self.arguments: dict = {}
        self.context: Optional[ToolContext] = None
        self.cancel_event: Optional[threading.Event] = None
        self.idem_key: Optional[tuple[str, str]] = None
        self.synthetic = False


class _Run:
    """State shared by the calls of one ``execute``/``run`` (the idempotency cache)."""

    __slots__ = ("registry", "tools", "log", "invocation_state", "idempotent", "ctx_factory")

    def __init__(self, registry: Any, log: Any, invocation_state: Optional[dict], ctx_factory: Any = None) -> None:
        self.registry = registry
        self.tools: dict = getattr(registry, "registry", None) or {}
        self.log = log
        self.invocation_state = invocation_state
        self.idempotent: dict[tuple[str, str], Any] = {}
        self.ctx_factory = ctx_factory


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
    """

    _hop_sync_tools = False  # concurrent executors move every sync call off the loop

    def __init__(self, *, timeout: Optional[float] = None, approver: Optional[Approver] = None, log: Any = None,
                 synthetic: bool = False, seed: int = 0, pool: Optional[concurrent.futures.Executor] = None,
                 invocation_state: Optional[dict[str, Any]] = None) -> None:
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0):
            raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
        self.timeout = timeout
        self.approver = approver
        self.log = log
        self.synthetic = synthetic
        self.seed = seed
        self.pool = pool
        self.invocation_state = invocation_state
        self._listeners: list[EventListener] = []
        self._own_pool: Optional[concurrent.futures.ThreadPoolExecutor] = None
        self._running: dict[str, tuple[asyncio.AbstractEventLoop, asyncio.Future, Optional[threading.Event]]] = {}
        self._cancel_requested: set[str] = set()
        self._lock = threading.Lock()

    # -- listeners -------------------------------------------------------------------------------
    def on_event(self, listener: EventListener) -> Callable[[], None]:
        """Call ``listener(ToolEvent)`` on start, progress, log and end of every call. Returns an unsubscribe function."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def _emit(self, event: ToolEvent) -> None:
        for listener in self._listeners:
            try:
                listener(event)
            except Exception as exc:  # noqa: BLE001 - a broken listener must not fail the call
                warnings.warn(f"workbench event listener {listener!r} raised {type(exc).__name__}: {exc}", RuntimeWarning, stacklevel=2)

    # -- cancellation ----------------------------------------------------------------------------
    def cancel(self, tool_use_id: str) -> bool:
        """Cancel a running call; it ends as an error result "cancelled". Returns False if it is not running."""
        with self._lock:
            entry = self._running.get(tool_use_id)
            if entry is None:
                return False
            self._cancel_requested.add(tool_use_id)
        loop, future, event = entry
        if event is not None:
            event.set()
        loop.call_soon_threadsafe(future.cancel)
        return True

    def running(self) -> list[str]:
        """Ids of the calls in flight."""
        return list(self._running)

    # -- public API --------------------------------------------------------------------------------
    async def execute(self, tool_uses: Sequence[Any], registry: Any, ctx_factory: Any = None, *, log: Any = None,
                      invocation_state: Optional[dict[str, Any]] = None) -> list[ToolResult]:
        """Run every call; results in input order."""
        raise NotImplementedError

    async def execute_streaming(self, tool_uses: Sequence[Any], registry: Any, ctx_factory: Any = None, *,
                                log: Any = None, invocation_state: Optional[dict[str, Any]] = None
                                ) -> AsyncIterator[tuple[int, ToolResult]]:
        """Yield ``(input_index, result)`` as calls finish; breaking out cancels the calls in flight."""
        raise NotImplementedError
        yield  # pragma: no cover

    def run(self, tool_uses: Sequence[Any], registry: Any, *, log: Any = None,
            invocation_state: Optional[dict[str, Any]] = None) -> list[ToolResult]:
        """Synchronous ``execute``; works in plain scripts and inside a running event loop (Jupyter)."""
        return run_sync(self.execute(tool_uses, registry, log=log, invocation_state=invocation_state))

    def call(self, registry: Any, name: str, input: Optional[dict[str, Any]] = None, **kwargs: Any) -> ToolResult:
        """Run one call synchronously: ``executor.call(registry, "add", {"a": 1, "b": 2})``."""
        return self.run([{"toolUseId": new_tool_use_id(), "name": name, "input": {} if input is None else input}], registry, **kwargs)[0]

    def close(self) -> None:
        """Shut down the executor's own thread pool (not a user-supplied one)."""
        if self._own_pool is not None:
            self._own_pool.shutdown(wait=False, cancel_futures=True)
            self._own_pool = None

    # -- pipeline: synchronous steps ---------------------------------------------------------------
    def _new_run(self, registry: Any, log: Any, invocation_state: Optional[dict], ctx_factory: Any = None) -> _Run:
        return _Run(registry, self.log if log is None else log,
                    self.invocation_state if invocation_state is None else invocation_state, ctx_factory)

    def _begin(self, index: int, raw_use: Any, run: _Run) -> tuple[_Call, Optional[ToolResult]]:
        """Look up, validate and prepare a call. Returns the call and, if it already failed, its result."""
        started_at, t0 = utc_now_iso(), time.perf_counter()
        try:
            tool_use = _normalise_tool_use(raw_use)
        except TypeError as exc:
            tool_use = {"toolUseId": new_tool_use_id(), "name": str(getattr(raw_use, "name", "?")), "input": raw_use}
            call = _Call(index, tool_use, started_at, t0)
            return call, self._error(call, str(exc), "TypeError")
        call = _Call(index, tool_use, started_at, t0)
        if self._listeners:
            self._emit(ToolEvent("start", tool_use, index, progress=0.0, started_at=started_at))
        name = tool_use.get("name") or ""
        item = run.tools.get(name)
        if item is None:
            try:
                item = run.registry.get_tool(name)
            except KeyError as exc:
                return call, self._error(call, str(exc), "ToolNotFoundError", {"available": list(run.registry.list_tools())})
        call.tool = item
        spec = call.spec = item.spec
        permission = item.permission
        if permission is not _ALLOW and Permission.coerce(permission) is _DENY:
            return call, self._error(call, f"Tool '{name}' is not allowed to run (permission: always_deny)", "PermissionDenied")
        try:
            call.arguments = spec.check_inputs(tool_use.get("input"))
        except ToolInputError as exc:
            return call, self._error(call, str(exc), "ToolInputError", {"errors": exc.errors})
        except ValueError as exc:  # a malformed schema surfaces here as ToolSpecError
            return call, self._error(call, str(exc), type(exc).__name__)
        if spec.idempotent:
            call.idem_key = (name, _canonical(tool_use.get("input")))
        if not item.has_implementation:
            if not self.synthetic and not getattr(run.registry, "synthetic", False):
                return call, self._error(call, str(NoImplementationError(
                    f"Tool '{name}' has no implementation: it was registered from a spec only. Call it with "
                    "synthetic=True (on the registry or executor) to get a generated value matching its returns schema.")),
                    "NoImplementationError")
            call.synthetic = True
        if item.context_param is not None and not call.synthetic:
            call.cancel_event = threading.Event()
            call.context = self._make_context(call, run)
        return call, None

    def _make_context(self, call: _Call, run: _Run) -> ToolContext:
        emit, listeners, tool_use, index, started = self._emit, self._listeners, call.tool_use, call.index, call.started_at
        if run.ctx_factory is not None:
            ctx = run.ctx_factory(tool_use)
        else:
            ctx = ToolContext(tool_use, run.invocation_state)
        if listeners:
            ctx._on_progress = lambda p, m: emit(ToolEvent("progress", tool_use, index, progress=p, message=m, started_at=started))
            ctx._on_log = lambda m: emit(ToolEvent("log", tool_use, index, message=m, started_at=started))
        ctx._cancel_event = call.cancel_event
        return ctx

    def _permission_needs_approval(self, call: _Call) -> bool:
        permission = call.tool.permission  # type: ignore[union-attr]
        return permission is not _ALLOW and Permission.coerce(permission) is _ASK

    def _synthetic_value(self, call: _Call) -> Any:
        from workbench._synthetic import synthesize, synthetic_seed

        return synthesize(call.spec.returns, synthetic_seed(call.spec.name, call.tool_use.get("input"), self.seed))

    def _success(self, call: _Call, value: Any) -> ToolResult:
        metadata: dict[str, Any] = {"tool_name": call.spec.name}
        if isinstance(value, ToolResponse):
            metadata["final_answer"] = value.final_answer
            if value.extras:
                metadata["extras"] = value.extras
            content = to_content_blocks(value.observation)
        elif isinstance(value, ToolResult):
            content = value.content
            metadata.update(value.metadata)
            metadata["tool_name"] = call.spec.name
        else:
            content = to_content_blocks(value)
        if call.synthetic:
            metadata["synthetic"] = True
        if call.spec.returns:
            mismatch = call.spec.check_returns(value.observation if isinstance(value, ToolResponse) else value)
            if mismatch is not None:
                metadata["returns_mismatch"] = mismatch
        return self._finish(call, "success", content, metadata, value)

    def _error(self, call: _Call, message: str, error_type: str, extra: Optional[dict] = None, tb: Optional[str] = None) -> ToolResult:
        metadata: dict[str, Any] = {"tool_name": call.tool_use.get("name", ""), "error_type": error_type, "error": message}
        if tb is not None:
            metadata["traceback"] = tb
        if extra:
            metadata.update(extra)
        return self._finish(call, "error", [{"text": f"Error: {message}"}], metadata, None)

    def _exception(self, call: _Call, exc: BaseException) -> ToolResult:
        tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        return self._error(call, f"{type(exc).__name__}: {exc}", type(exc).__name__, tb=tb)

    def _finish(self, call: _Call, status: str, content: list, metadata: dict, value: Any) -> ToolResult:
        metadata["latency_ms"] = (time.perf_counter() - call.t0) * 1000.0
        return ToolResult._fast(call.tool_use["toolUseId"], status, content, metadata, call.started_at, utc_now_iso(), None, value)

    def _end(self, call: _Call, result: ToolResult, run: _Run) -> ToolResult:
        """Log and announce a final result."""
        if run.log is not None:
            try:
                run.log.append(result, call.tool_use)
            except Exception as exc:  # noqa: BLE001 - a full disk must not turn into a lost result
                result.metadata["log_error"] = f"{type(exc).__name__}: {exc}"
                warnings.warn(f"workbench: could not write the execution log: {exc}", RuntimeWarning, stacklevel=2)
        if self._listeners:
            self._emit(ToolEvent("end", call.tool_use, call.index, result=result, progress=1.0, started_at=call.started_at))
        return result

    @staticmethod
    def _reuse(call: _Call, original: ToolResult) -> ToolResult:
        metadata = {**original.metadata, "idempotent_reuse": True, "original_tool_use_id": original.tool_use_id}
        return ToolResult._fast(call.tool_use["toolUseId"], original.status, original.content, metadata,
                                call.started_at, utc_now_iso(), None, original.value)

    # -- pipeline: the async path --------------------------------------------------------------------
    def _thread_pool(self) -> concurrent.futures.Executor:
        if self.pool is not None:
            return self.pool
        if self._own_pool is None:
            self._own_pool = concurrent.futures.ThreadPoolExecutor(
                max_workers=max(8, getattr(self, "max_concurrency", 8)), thread_name_prefix="workbench-tool")
        return self._own_pool

    def _needs_hop(self, call: _Call, timeout: Optional[float]) -> bool:
        return (self._hop_sync_tools or timeout is not None or call.spec.long_running or self.pool is not None
                or call.context is not None)

    async def _invoke_async(self, call: _Call) -> Any:
        """Invoke the tool: coroutine on the loop, sync function inline or in the pool."""
        tool = call.tool
        timeout = call.spec.timeout if call.spec.timeout is not None else self.timeout
        if call.synthetic:
            return self._synthetic_value(call)
        if call.spec.supports_async:
            awaitable = tool.invoke(call.arguments, call.context)  # type: ignore[union-attr]
            if not inspect.isawaitable(awaitable):
                return awaitable
            inner: asyncio.Future = asyncio.ensure_future(awaitable)
        elif self._needs_hop(call, timeout):
            loop = asyncio.get_running_loop()
            pool = self._thread_pool()
            if isinstance(pool, concurrent.futures.ThreadPoolExecutor):
                ctx = contextvars.copy_context()
                func = functools.partial(ctx.run, tool.invoke, call.arguments, call.context)  # type: ignore[union-attr]
            else:  # processes / Dask: the tool travels by reference, without a context
                func = functools.partial(_invoke_plain, tool, call.arguments)
            inner = loop.run_in_executor(pool, func)
        else:
            value = tool.invoke(call.arguments, call.context)  # type: ignore[union-attr]
            if inspect.isawaitable(value):
                value = await value
            return value
        use_id = call.tool_use["toolUseId"]
        with self._lock:
            self._running[use_id] = (asyncio.get_running_loop(), inner, call.cancel_event)
        try:
            if timeout is None:
                value = await inner
            else:
                value = await asyncio.wait_for(inner, timeout)
        finally:
            with self._lock:
                self._running.pop(use_id, None)
        if inspect.isawaitable(value):  # a sync wrapper that returned a coroutine
            value = await value
        return value

    async def _call_async(self, index: int, raw_use: Any, run: _Run, prepared: Optional[_Call] = None) -> ToolResult:
        if prepared is None:
            call, failed = self._begin(index, raw_use, run)
            if failed is not None:
                return self._end(call, failed, run)
        else:
            call = prepared
        if self._permission_needs_approval(call):
            denied = await self._approve(call)
            if denied is not None:
                return self._end(call, denied, run)
        future: Optional[asyncio.Future] = None
        if call.idem_key is not None:
            earlier = run.idempotent.get(call.idem_key)
            if earlier is not None:
                original = await asyncio.shield(earlier) if isinstance(earlier, asyncio.Future) else earlier
                return self._end(call, self._reuse(call, original), run)
            future = run.idempotent[call.idem_key] = asyncio.get_running_loop().create_future()
        try:
            result = await self._outcome(call)
        except BaseException as exc:
            if future is not None and not future.done():
                future.cancel()
                run.idempotent.pop(call.idem_key, None)
            raise exc
        if future is not None and not future.done():
            future.set_result(result)
            run.idempotent[call.idem_key] = result  # type: ignore[index]
        return self._end(call, result, run)

    async def _outcome(self, call: _Call) -> ToolResult:
        use_id = call.tool_use["toolUseId"]
        try:
            value = await self._invoke_async(call)
        except asyncio.TimeoutError:
            if call.cancel_event is not None:
                call.cancel_event.set()
            timeout = call.spec.timeout if call.spec.timeout is not None else self.timeout
            return self._error(call, f"Tool '{call.spec.name}' timed out after {timeout:g} s", "TimeoutError", {"timeout": timeout})
        except asyncio.CancelledError:
            if use_id in self._cancel_requested:
                self._cancel_requested.discard(use_id)
                return self._error(call, f"Tool '{call.spec.name}' was cancelled", "CancelledError")
            raise
        except Exception as exc:  # noqa: BLE001 - every tool failure becomes a result
            return self._exception(call, exc)
        try:
            return self._success(call, value)
        except Exception as exc:  # noqa: BLE001
            return self._exception(call, exc)

    async def _approve(self, call: _Call) -> Optional[ToolResult]:
        name = call.spec.name
        if self.approver is None:
            return self._error(call, f"Tool '{name}' requires user approval (permission: ask_user) and no approver is configured",
                               "PermissionDenied")
        try:
            decision = self.approver(call.tool_use, call.tool)  # type: ignore[arg-type]
            if inspect.isawaitable(decision):
                decision = await decision
        except Exception as exc:  # noqa: BLE001
            return self._error(call, f"Approver failed for tool '{name}': {type(exc).__name__}: {exc}", "PermissionDenied")
        if not decision:
            return self._error(call, f"Tool '{name}' was denied by the approver", "PermissionDenied")
        return None

    # -- pipeline: the sync fast path ----------------------------------------------------------------
    def _call_sync(self, index: int, raw_use: Any, run: _Run) -> "ToolResult | _Call":
        """Run one call without a loop when nothing needs one; a returned ``_Call`` (validated, not yet
        run) must continue on the async path."""
        call, failed = self._begin(index, raw_use, run)
        if failed is not None:
            return self._end(call, failed, run)
        timeout = call.spec.timeout if call.spec.timeout is not None else self.timeout
        if (call.spec.supports_async or timeout is not None or self.pool is not None or call.spec.long_running
                or self._permission_needs_approval(call)):
            return call
        if call.idem_key is not None and call.idem_key in run.idempotent:
            return self._end(call, self._reuse(call, run.idempotent[call.idem_key]), run)
        try:
            value = self._synthetic_value(call) if call.synthetic else call.tool.invoke(call.arguments, call.context)  # type: ignore[union-attr]
            if inspect.isawaitable(value):  # an undeclared async tool: finish it on a loop
                value = run_sync(_await(value))
            result = self._success(call, value)
        except Exception as exc:  # noqa: BLE001
            result = self._exception(call, exc)
        if call.idem_key is not None:
            run.idempotent[call.idem_key] = result
        return self._end(call, result, run)


async def _await(awaitable: Any) -> Any:
    return await awaitable


def _invoke_plain(tool: BaseTool, arguments: dict) -> Any:
    return tool.invoke(arguments, None)


class SequentialExecutor(ToolExecutor):
    """Run calls one at a time, in order. Quick sync tools run inline, without a thread hop."""

    async def execute(self, tool_uses, registry, ctx_factory=None, *, log=None, invocation_state=None):
        run = self._new_run(registry, log, invocation_state, ctx_factory)
        return [await self._call_async(i, use, run) for i, use in enumerate(tool_uses)]

    async def execute_streaming(self, tool_uses, registry, ctx_factory=None, *, log=None, invocation_state=None):
        run = self._new_run(registry, log, invocation_state, ctx_factory)
        for i, use in enumerate(tool_uses):
            yield i, await self._call_async(i, use, run)

    def run(self, tool_uses, registry, *, log=None, invocation_state=None):
        run = self._new_run(registry, log, invocation_state)
        results: list[ToolResult] = []
        uses = list(tool_uses)
        for i, use in enumerate(uses):
            outcome = self._call_sync(i, use, run)
            if isinstance(outcome, _Call):  # this call needs a loop: finish it, and the rest, on the async path
                return results + run_sync(self._execute_rest(uses, outcome, run))
            results.append(outcome)
        return results

    async def _execute_rest(self, uses: list, pending: _Call, run: _Run) -> list[ToolResult]:
        results = [await self._call_async(pending.index, pending.tool_use, run, prepared=pending)]
        for i in range(pending.index + 1, len(uses)):
            results.append(await self._call_async(i, uses[i], run))
        return results


class ConcurrentExecutor(ToolExecutor):
    """Run calls concurrently, at most ``max_concurrency`` at a time. Sync tools run in a thread pool."""

    _hop_sync_tools = True

    def __init__(self, max_concurrency: int = 8, **options: Any) -> None:
        if isinstance(max_concurrency, bool) or not isinstance(max_concurrency, int) or max_concurrency < 1:
            raise ValueError(f"max_concurrency must be a positive integer, got {max_concurrency!r}")
        super().__init__(**options)
        self.max_concurrency = max_concurrency

    async def execute(self, tool_uses, registry, ctx_factory=None, *, log=None, invocation_state=None):
        run = self._new_run(registry, log, invocation_state, ctx_factory)
        semaphore = asyncio.Semaphore(self.max_concurrency)

        async def limited(i: int, use: Any) -> ToolResult:
            async with semaphore:
                return await self._call_async(i, use, run)

        tasks = [asyncio.ensure_future(limited(i, use)) for i, use in enumerate(tool_uses)]
        try:
            return list(await asyncio.gather(*tasks))
        finally:
            for task in tasks:
                if not task.done():
                    task.cancel()

    async def execute_streaming(self, tool_uses, registry, ctx_factory=None, *, log=None, invocation_state=None):
        uses = list(tool_uses)
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
