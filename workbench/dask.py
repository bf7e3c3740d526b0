"""``DaskExecutor``: the executor API on a Dask (``distributed``) cluster (issue 11).

Everything that decides about a call — lookup, permission, approval, input validation,
idempotency — happens on the client, exactly as in the local executors; only the tool invocation
runs on the workers. Calls are grouped into batches (one Dask task each) to amortise the per-task
scheduling cost; results come back as batches finish and are logged and announced by the client
(workers never touch the log). A tool reaches the workers by reference (``pkg.mod:name``, imported
there) when it has one, and by cloudpickle otherwise (a function defined in ``__main__`` or a
notebook). A batch whose worker dies is resubmitted up to ``retries`` times; after that each of its
calls gets an error result — every input ends with exactly one result.

``distributed`` is imported only when a ``DaskExecutor`` is created (the ``dask`` extra).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import math
import pickle
import sys
import threading
import time
import traceback
import uuid
from typing import Any, Optional

from workbench._peer import PEER_KEY
from workbench.executor import MapChunks, PreparedCall, ToolExecutor, call_list, is_awaitable
from workbench.types import ToolResult

__all__ = ["DaskExecutor"]

_MAX_BATCH = 1000
_PLAIN = frozenset({int, float, str, bool, type(None)})


# -- worker side -------------------------------------------------------------------------------------
_loaded: dict[Any, Any] = {}  # payload -> tool, per worker process
_timeout_pool: Optional[concurrent.futures.ThreadPoolExecutor] = None


def _load(payload: tuple) -> Any:
    tool = _loaded.get(payload)
    if tool is None:
        kind, data = payload
        if kind == "ref":
            from workbench.registry import _resolve_ref

            tool = _resolve_ref(data)
            if not hasattr(tool, "_invoke"):
                from workbench.tools import tool as make_tool

                tool = make_tool(tool)
        else:
            import cloudpickle

            tool = cloudpickle.loads(data)
            if kind == "func":  # a function tool pickled by value: rebuilt around its function
                from workbench.spec import ToolSpec
                from workbench.tools import DecoratedFunctionTool

                func, spec, context_param, positional_only, is_async = tool
                tool = DecoratedFunctionTool(
                    func,
                    ToolSpec.coerce(spec),
                    context_param=context_param,
                    positional_only=positional_only,
                    is_async=is_async,
                )
        _loaded[payload] = tool
    return tool


def _invoke(tool: Any, arguments: dict, ctx: Any) -> Any:
    value = tool._invoke(arguments, ctx)
    if is_awaitable(value):

        async def finish() -> Any:
            return await value

        value = asyncio.run(finish())
    return value


def _sendable(value: Any) -> Optional[str]:
    """Why ``value`` cannot travel back to the client (``None`` if it can)."""
    if type(value) in _PLAIN:
        return None
    try:
        pickle.dumps(value)
    except Exception:  # noqa: BLE001
        try:
            import cloudpickle

            cloudpickle.dumps(value)
        except Exception as exc:  # noqa: BLE001
            return f"the return value ({type(value).__name__}) cannot be sent back from the worker: {exc}"
    return None


def _run_one(
    tool: Any, arguments: dict, tool_use: Optional[dict], invocation_state: Any, timeout: Optional[float]
) -> tuple:
    global _timeout_pool
    ctx = None
    if tool_use is not None:  # the tool takes a ToolContext
        from workbench.context import ToolContext

        ctx = ToolContext(tool_use, invocation_state)  # type: ignore[arg-type]  # a ToolUse, as the client sent it
        ctx._cancel_event = threading.Event()
    t0 = time.perf_counter()
    try:
        if timeout is None:
            value = _invoke(tool, arguments, ctx)
        else:
            if _timeout_pool is None:
                _timeout_pool = concurrent.futures.ThreadPoolExecutor(thread_name_prefix="workbench-dask-call")
            future = _timeout_pool.submit(_invoke, tool, arguments, ctx)
            try:
                value = future.result(timeout)
            except TimeoutError:
                if future.done():
                    raise  # the tool's own TimeoutError, in time
                if ctx is not None and ctx._cancel_event is not None:  # (set above)
                    ctx._cancel_event.set()
                return ("timeout", None, None, None, (time.perf_counter() - t0) * 1000.0)
    except Exception as exc:  # noqa: BLE001 - every tool failure becomes a result
        tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        return ("error", type(exc).__name__, f"{type(exc).__name__}: {exc}", tb, (time.perf_counter() - t0) * 1000.0)
    problem = _sendable(value)
    if problem is not None:
        return ("error", "TypeError", problem, None, (time.perf_counter() - t0) * 1000.0)
    return ("ok", value, None, None, (time.perf_counter() - t0) * 1000.0)


def _run_batch(payload: tuple, calls: bytes, invocation_state: Any, timeout: Optional[float]) -> bytes:
    """Run one batch on a worker: pickled ``[(arguments, tool_use or None), ...]`` -> pickled outcomes in
    order (one opaque blob each way: Dask does not walk thousands of small arguments)."""
    tool = _load(payload)
    outcomes = [
        _run_one(tool, arguments, tool_use, invocation_state, timeout) for arguments, tool_use in pickle.loads(calls)
    ]
    try:
        return pickle.dumps(outcomes, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # noqa: BLE001 - a value only cloudpickle can carry
        import cloudpickle

        return cloudpickle.dumps(outcomes)


# -- client side -------------------------------------------------------------------------------------
def _payload(tool: Any, ref: Optional[str]) -> tuple:
    """How ``tool`` travels: ``("ref", "pkg.mod:name")`` when it can be imported by that name on the
    workers, else by value with cloudpickle (``"func"``: a function tool's function, rebuilt on the
    worker; ``"pickle"``: any other tool object)."""
    if ref:
        return ("ref", ref)
    func = getattr(tool, "_func", None)
    for obj in (tool, func):
        module_name = getattr(obj, "__module__", None) if obj is not None else None
        qualname = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
        if not module_name or module_name == "__main__" or not qualname or "<" in qualname:
            continue
        module = sys.modules.get(module_name)
        if module is not None and getattr(module, qualname, None) is tool:
            return ("ref", f"{module_name}:{qualname}")
    import cloudpickle

    from workbench.tools import DecoratedFunctionTool

    try:
        if isinstance(tool, DecoratedFunctionTool):  # it pickles by reference: send its function by value
            return (
                "func",
                cloudpickle.dumps(
                    (func, tool.spec.to_json(), tool.__dict__.get("_wb_ctx"), tool._positional_only, tool._is_async)
                ),
            )
        return ("pickle", cloudpickle.dumps(tool))
    except Exception as exc:  # noqa: BLE001
        raise TypeError(
            f"Tool '{tool.spec.name}' cannot be sent to the Dask workers: it has no importable "
            f"reference and cloudpickle failed: {type(exc).__name__}: {exc}"
        ) from None


class _Batch:
    __slots__ = ("calls", "payload", "timeout", "attempts", "future")

    def __init__(self, calls: list, payload: tuple, timeout: Optional[float]) -> None:
        self.calls = calls
        self.payload = payload
        self.timeout = timeout
        self.attempts = 0
        self.future: Any = None


class DaskExecutor(ToolExecutor):
    """Run tool calls on a Dask cluster; same API and result shapes as the local executors.

    Args:
        address: ``None`` starts a ``distributed.LocalCluster`` of worker processes sized to the
            machine (closed by ``close()`` / the ``with`` block); a scheduler address
            (``"tcp://host:8786"``) or a ``distributed.Client`` uses that cluster (left open).
        batch_size: calls per Dask task (default: enough for about four tasks per worker thread,
            at most 1000).
        timeout: default per-call timeout in seconds (a tool's own ``timeout`` wins), enforced on the worker.
        retries: how many times a batch whose worker died is resubmitted before its calls become errors.
        n_workers, threads_per_worker, cluster_options: for the LocalCluster started when no address is given.
        **options: the ``ToolExecutor`` options (``approver``, ``log``, ``synthetic``, ``seed``, ``invocation_state``).

    Tools must be importable on the workers by their module (or be picklable with cloudpickle), and
    ``workbench`` must be installed there. Tools run without progress streaming: a ``ToolContext``
    on a worker reports nowhere.
    """

    def __init__(
        self,
        address: Any = None,
        *,
        batch_size: Optional[int] = None,
        timeout: Optional[float] = None,
        retries: int = 1,
        n_workers: Optional[int] = None,
        threads_per_worker: int = 1,
        cluster_options: Optional[dict[str, Any]] = None,
        **options: Any,
    ) -> None:
        if batch_size is not None and (
            isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1
        ):
            raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
        if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
            raise ValueError(f"retries must be a non-negative integer, got {retries!r}")
        super().__init__(timeout=timeout, **options)
        import distributed

        self.batch_size = batch_size
        self.retries = retries
        self._cluster = None
        self._own_client = True
        if isinstance(address, distributed.Client):
            self.client = address
            self._own_client = False
        elif address is None:
            kwargs = {
                "processes": True,
                "dashboard_address": ":0",
                "threads_per_worker": threads_per_worker,
                **(cluster_options or {}),
            }
            if n_workers is not None:
                kwargs["n_workers"] = n_workers
            self._cluster = distributed.LocalCluster(**kwargs)
            self.client = distributed.Client(self._cluster)
        else:
            self.client = distributed.Client(address)
        self._pending: dict[str, tuple[PreparedCall, Any]] = {}  # tool_use_id -> (call, its stream's cancel hook)

    # -- sizing --------------------------------------------------------------------------------------
    @property
    def max_concurrency(self) -> int:
        """Worker threads of the cluster (at least 1)."""
        try:
            return max(1, sum(self.client.nthreads().values()))
        except Exception:  # noqa: BLE001 - a closed client
            return 1

    def map_chunks(self) -> MapChunks:
        """Bigger chunks than local ones (a Dask round trip costs milliseconds): eight calls per worker
        thread at least, about a second of work each."""
        return MapChunks(8 * self.max_concurrency, 1.0, 50_000)

    def _batch_size(self, count: int) -> int:
        if self.batch_size is not None:
            return self.batch_size
        return max(1, min(_MAX_BATCH, math.ceil(count / (4 * self.max_concurrency))))

    # -- lifecycle -----------------------------------------------------------------------------------
    def close(self) -> None:
        """Close the client and the LocalCluster this executor started (not a cluster it was given)."""
        if self._own_client:
            self.client.close()
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None
        super().close()

    def __enter__(self) -> "DaskExecutor":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        scheduler: Any = self.client.scheduler  # (None only on a closed client)
        return f"DaskExecutor({getattr(scheduler, 'address', None)!r}, batch_size={self.batch_size}, retries={self.retries})"

    # -- cancellation ----------------------------------------------------------------------------------
    def cancel(self, tool_use_id: str) -> bool:
        """Cancel a submitted call: it ends at once as "cancelled" (a running call's late result is dropped)."""
        entry = self._pending.get(tool_use_id)
        if entry is None:
            return False
        call, hook = entry
        hook(call)
        return True

    def running(self) -> list[str]:
        return list(self._pending)

    # -- execution ---------------------------------------------------------------------------------------
    async def execute(self, tool_uses, registry, ctx_factory=None, *, log=None, invocation_state=None):
        uses = call_list(tool_uses)
        results: list[Optional[ToolResult]] = [None] * len(uses)
        async for i, result in self.execute_streaming(
            uses, registry, ctx_factory, log=log, invocation_state=invocation_state
        ):
            results[i] = result
        return results

    async def execute_streaming(self, tool_uses, registry, ctx_factory=None, *, log=None, invocation_state=None):
        uses = call_list(tool_uses)
        run = self.start_run(registry, log, invocation_state, ctx_factory)
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue = asyncio.Queue()
        ready: list[PreparedCall] = []
        followers: dict[Any, list[PreparedCall]] = {}
        for i, use in enumerate(uses):
            call = self.prepare(use, run, i)
            if type(call) is not PreparedCall:
                yield i, call
                continue
            if call.approval:
                denied = await self.approve(call)
                if denied is not None:
                    yield i, self.finish(call, denied, run)
                    continue
            if call.synthetic:
                yield i, self.finish(call, await self.outcome(call), run)
                continue
            key = call.idem_key
            if key is not None:
                if key in followers:
                    followers[key].append(call)
                    continue
                followers[key] = []
            ready.append(call)
        batches = self._make_batches(ready, run)
        finished: set[int] = set()
        batch_of = {call.index: number for number, batch in enumerate(batches) for call in batch.calls}
        pending_batches = set(range(len(batches)))

        def cancel_hook(call: PreparedCall) -> None:
            loop.call_soon_threadsafe(queue.put_nowait, ("cancel", call))

        for call in ready:
            self._pending[call.tool_use["toolUseId"]] = (call, cancel_hook)
        try:
            for number, batch in enumerate(batches):
                self._submit(batch, number, run, loop, queue)
            while pending_batches:
                kind, item = await queue.get()
                if kind == "cancel":
                    call = item
                    if call.index in finished:
                        continue
                    finished.add(call.index)
                    for result_index, result in self._finish_with_followers(
                        call, self.cancelled_result(call), run, followers
                    ):
                        yield result_index, result
                    number = batch_of[call.index]
                    if number in pending_batches and all(c.index in finished for c in batches[number].calls):
                        pending_batches.discard(number)  # nothing left to wait for: stop it on the worker
                        self.client.cancel([batches[number].future])
                    continue
                number, outcomes, failure = item
                if number not in pending_batches:
                    continue
                batch = batches[number]
                if failure is not None:
                    if batch.attempts <= self.retries and not isinstance(failure, asyncio.CancelledError):
                        self._submit(batch, number, run, loop, queue)
                        continue
                    message = f"the Dask task running this call failed after {batch.attempts} attempt(s): {failure}"
                    outcomes = [("lost", type(failure).__name__, message, None, None)] * len(batch.calls)
                pending_batches.discard(number)
                for call, outcome in zip(batch.calls, outcomes):
                    if call.index in finished:
                        continue
                    finished.add(call.index)
                    for result_index, result in self._finish_with_followers(
                        call, self._from_outcome(call, outcome), run, followers
                    ):
                        yield result_index, result
        finally:
            for call in ready:
                self._pending.pop(call.tool_use["toolUseId"], None)
            live = [batches[n].future for n in pending_batches if batches[n].future is not None]
            if live:
                self.client.cancel(live)

    def _make_batches(self, ready: list[PreparedCall], run: Any) -> list[_Batch]:
        by_tool: dict[str, list[PreparedCall]] = {}
        for call in ready:
            by_tool.setdefault(call.spec.name, []).append(call)
        size = self._batch_size(len(ready))
        refs = getattr(run.registry, "tool_refs", None) or {}
        batches: list[Any] = []
        for name, calls in by_tool.items():
            payload = _payload(calls[0].tool, refs.get(name))
            timeout = self.timeout_of(calls[0])
            batches.extend(
                _Batch(calls[start : start + size], payload, timeout) for start in range(0, len(calls), size)
            )
        return batches

    def _submit(self, batch: _Batch, number: int, run: Any, loop: Any, queue: asyncio.Queue) -> None:
        batch.attempts += 1
        work = pickle.dumps(
            [(call.arguments, call.tool_use if call.context is not None else None) for call in batch.calls],
            protocol=pickle.HIGHEST_PROTOCOL,
        )
        # a call's peer (an MCP request, a notebook form) stays here: on the cluster nobody can answer
        state = {k: v for k, v in (run.invocation_state or {}).items() if k != PEER_KEY}
        future = batch.future = self.client.submit(
            _run_batch, batch.payload, work, state, batch.timeout, pure=False, key=f"workbench-batch-{uuid.uuid4().hex}"
        )

        def done(fut: Any) -> None:  # runs in a Dask client thread
            item: tuple[int, Any, Optional[BaseException]]
            try:
                item = (number, pickle.loads(fut.result()), None)
            except BaseException as exc:  # noqa: BLE001 - a dead worker, a cancelled task…
                item = (number, None, exc)
            try:
                loop.call_soon_threadsafe(queue.put_nowait, ("batch", item))
            except RuntimeError:  # the loop has closed: the stream was abandoned
                pass

        future.add_done_callback(done)

    def _from_outcome(self, call: PreparedCall, outcome: tuple) -> ToolResult:
        kind, first, message, tb, duration = outcome
        if kind == "ok":
            result = self.result_of_value(call, first)
        elif kind == "timeout":
            result = self.timed_out_result(call)
        elif kind == "lost":
            result = self.result_of_error(call, message, "WorkerLost")
        else:
            result = self.result_of_error(call, message, first, tb=tb)
        if duration is not None:
            result.metadata["latency_ms"] = duration
        return result

    def _finish_with_followers(self, call: PreparedCall, result: ToolResult, run: Any, followers: dict) -> list:
        """Log and announce ``call``'s result, and the reuse results of identical idempotent calls."""
        self._pending.pop(call.tool_use["toolUseId"], None)
        out = [(call.index, self.finish(call, result, run))]
        if call.idem_key is not None:
            for other in followers.pop(call.idem_key, []):
                out.append((other.index, self.finish(other, self.reuse(other, result), run)))
        return out
