"""Executors: ordering, streaming, sync run, failures as results, timeouts,
cancellation, pools, idempotency, progress events, timing, logging and synthetic mode."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import gc
import json
import os
import subprocess
import sys
import textwrap
import threading
import time
import warnings
from datetime import datetime, timezone

import jsonschema
import pytest

from tests import executor_tools  # a module of its own: process pools import its tools by reference
from workbench import ConcurrentExecutor, SequentialExecutor, ToolContext, ToolRegistry, tool
from workbench._events import ToolEvent
from workbench.types import ToolResult

EXECUTORS = [SequentialExecutor, ConcurrentExecutor]


def use(name, input=None, id=None):
    return {
        "toolUseId": id or f"id-{name}-{os.urandom(4).hex()}",
        "name": name,
        "input": {} if input is None else input,
    }


def run_all(executor, uses, registry, **kwargs):
    """``executor.run`` — the sync entry point used by most tests."""
    return executor.run(uses, registry, **kwargs)


# -- tools -----------------------------------------------------------------------------------------
@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
async def async_add(a: int, b: int) -> int:
    """Add two integers, asynchronously."""
    await asyncio.sleep(0)
    return a + b


@tool
def boom(message: str) -> str:
    """Always raises."""
    raise ValueError(f"kaboom: {message}")


@tool(permission="always_deny")
def forbidden() -> str:
    """Never allowed."""
    CALLS["forbidden"] += 1
    return "ran"


@tool(permission="ask_user")
def guarded(x: int) -> int:
    """Needs approval."""
    CALLS["guarded"] += 1
    return x * 10


CALLS: dict[str, int] = {"forbidden": 0, "guarded": 0}


def registry_of(*tools):
    return ToolRegistry(list(tools))


@pytest.fixture(autouse=True)
def _reset_calls():
    for key in CALLS:
        CALLS[key] = 0
    yield


def assert_error(result, error_type, *fragments):
    assert isinstance(result, ToolResult)
    assert result.status == "error", result
    assert result.metadata["error_type"] == error_type, result.metadata
    for fragment in fragments:
        assert fragment in result.metadata["error"], (fragment, result.metadata["error"])
    assert result.text.startswith("Error: ")
    return result


# == ordering, streaming, sync run ===================================================================
def _ordered_tool(order):
    """An async tool whose calls finish in ``order`` (of their ``n``), whatever order they start in."""
    events: dict[int, asyncio.Event] = {}

    @tool
    async def ordered(n: int) -> int:
        """Finish in the prescribed order."""
        event = events.setdefault(n, asyncio.Event())
        if n == order[0]:
            event.set()
        await event.wait()
        position = order.index(n)
        if position + 1 < len(order):
            events.setdefault(order[position + 1], asyncio.Event()).set()
        return n

    return ordered


def test_execute_returns_results_in_input_order():
    ordered = _ordered_tool([2, 0, 3, 1])
    registry = registry_of(ordered)
    uses = [use("ordered", {"n": n}, id=f"c{n}") for n in range(4)]

    async def main():
        return await ConcurrentExecutor().execute(uses, registry)

    results = asyncio.run(main())
    assert [r.tool_use_id for r in results] == ["c0", "c1", "c2", "c3"]
    assert [r.json for r in results] == [0, 1, 2, 3]
    assert all(r.status == "success" for r in results)


def test_sequential_execute_returns_results_in_input_order():
    registry = registry_of(add, async_add)
    uses = [
        use("add", {"a": 1, "b": 1}, "s0"),
        use("async_add", {"a": 2, "b": 2}, "s1"),
        use("add", {"a": 3, "b": 3}, "s2"),
    ]
    results = asyncio.run(SequentialExecutor().execute(uses, registry))
    assert [(r.tool_use_id, r.json) for r in results] == [("s0", 2), ("s1", 4), ("s2", 6)]


def test_execute_streaming_yields_in_completion_order():
    order = [2, 0, 3, 1]
    ordered = _ordered_tool(order)
    registry = registry_of(ordered)
    uses = [use("ordered", {"n": n}, id=f"c{n}") for n in range(4)]

    async def main():
        return [(i, r) async for i, r in ConcurrentExecutor().execute_streaming(uses, registry)]

    streamed = asyncio.run(main())
    assert [i for i, _ in streamed] == order
    assert [r.json for _, r in streamed] == order
    assert [r.tool_use_id for _, r in streamed] == [f"c{n}" for n in order]


def test_sequential_execute_streaming_yields_every_result():
    registry = registry_of(add, async_add)
    uses = [use("add", {"a": 1, "b": 2}), use("async_add", {"a": 3, "b": 4})]

    async def main():
        return [(i, r.json) async for i, r in SequentialExecutor().execute_streaming(uses, registry)]

    assert asyncio.run(main()) == [(0, 3), (1, 7)]


def test_breaking_out_of_execute_streaming_cancels_calls_in_flight():
    state = {"started": 0, "cancelled": 0, "finished": 0}

    @tool
    async def slow(n: int) -> int:
        """Sleeps for a long time."""
        state["started"] += 1
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            state["cancelled"] += 1
            raise
        state["finished"] += 1
        return n

    @tool
    async def quick() -> str:
        """Returns at once."""
        return "first"

    registry = registry_of(slow, quick)
    uses = [use("slow", {"n": n}) for n in range(3)] + [use("quick")]

    async def main():
        started = time.perf_counter()
        got = []
        async for index, result in ConcurrentExecutor(max_concurrency=8).execute_streaming(uses, registry):
            got.append((index, result.text))
            break
        await asyncio.sleep(0.1)
        left = asyncio.all_tasks() - {asyncio.current_task()}
        return got, left, time.perf_counter() - started

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got, left, elapsed = asyncio.run(main())
        gc.collect()
    assert got == [(3, "first")]
    assert left == set(), left
    assert state == {"started": 3, "cancelled": 3, "finished": 0}
    assert elapsed < 4  # the 5 s sleeps were cancelled, not waited for
    never_awaited = [w for w in caught if "never awaited" in str(w.message)]
    assert never_awaited == []
    assert [w for w in caught if issubclass(w.category, RuntimeWarning)] == []


@pytest.mark.parametrize("executor_cls", EXECUTORS)
def test_run_in_a_plain_script_context(executor_cls):
    with pytest.raises(RuntimeError):
        asyncio.get_running_loop()  # no loop here: run() must create what it needs
    registry = registry_of(add, async_add)
    results = executor_cls().run([use("add", {"a": 1, "b": 2}), use("async_add", {"a": 5, "b": 6})], registry)
    assert [r.json for r in results] == [3, 11]


@pytest.mark.parametrize("executor_cls", EXECUTORS)
def test_run_inside_a_running_event_loop(executor_cls):
    """As in a Jupyter kernel: sync run() called from a coroutine while the loop is running."""
    registry = registry_of(add, async_add)

    async def cell():
        loop = asyncio.get_running_loop()
        results = executor_cls().run([use("add", {"a": 1, "b": 2}), use("async_add", {"a": 5, "b": 6})], registry)
        assert asyncio.get_running_loop() is loop and loop.is_running()
        return results

    results = asyncio.run(cell())
    assert [r.json for r in results] == [3, 11]
    assert all(r.status == "success" for r in results)


def test_run_from_a_subprocess_script(tmp_path):
    script = tmp_path / "use_run.py"
    script.write_text(
        textwrap.dedent(
            """
        import asyncio, json, warnings
        from workbench import ConcurrentExecutor, SequentialExecutor, ToolRegistry, tool
        warnings.simplefilter("always")  # anything run() triggers (e.g. a never-awaited coroutine) reaches stderr

        @tool
        def add(a: int, b: int) -> int:
            '''Add.'''
            return a + b

        @tool
        async def mul(a: int, b: int) -> int:
            '''Multiply.'''
            await asyncio.sleep(0.01)
            return a * b

        registry = ToolRegistry([add, mul])
        calls = [{"toolUseId": "1", "name": "add", "input": {"a": 2, "b": 3}},
                 {"toolUseId": "2", "name": "mul", "input": {"a": 2, "b": 3}},
                 {"toolUseId": "3", "name": "nope", "input": {}}]
        out = {"sequential": [r.to_dict() for r in SequentialExecutor().run(calls, registry)],
               "concurrent": [r.to_dict() for r in ConcurrentExecutor().run(calls, registry)]}

        async def notebook_cell():
            return [r.to_dict() for r in SequentialExecutor().run(calls, registry)]

        out["in_loop"] = asyncio.run(notebook_cell())
        print(json.dumps(out))
        """
        )
    )
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "Warning" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    out = json.loads(proc.stdout)
    for key in ("sequential", "concurrent", "in_loop"):
        results = out[key]
        assert [r["status"] for r in results] == ["success", "success", "error"], key
        assert [r["content"][-1].get("json") for r in results[:2]] == [5, 6]
        assert results[2]["metadata"]["error_type"] == "ToolNotFoundError"


# == every failure is an error result =================================================================
@pytest.mark.parametrize("executor_cls", EXECUTORS)
def test_unknown_tool_is_an_error_listing_close_names(executor_cls):
    registry = registry_of(add, async_add, boom)
    [result] = executor_cls().run([use("ad")], registry)
    assert_error(result, "ToolNotFoundError", "Unknown tool 'ad'", "Did you mean 'add'?", "'async_add'", "'boom'")
    assert set(result.metadata["available"]) == {"add", "async_add", "boom"}
    assert result.metadata["tool_name"] == "ad"


@pytest.mark.parametrize("executor_cls", EXECUTORS)
def test_invalid_input_is_an_error_with_the_check_inputs_message(executor_cls):
    registry = registry_of(add)
    bad = {"a": "one", "c": 3}
    with pytest.raises(ValueError) as raised:
        add.spec.check_inputs(bad)
    [result] = executor_cls().run([use("add", bad)], registry)
    assert_error(result, "ToolInputError")
    assert result.metadata["error"] == str(raised.value)
    assert "Invalid input for tool 'add'" in result.metadata["error"]
    assert {e["field"] for e in result.metadata["errors"]} >= {"a", "b"}


@pytest.mark.parametrize("executor_cls", EXECUTORS)
def test_non_object_input_and_uninterpretable_calls_are_errors(executor_cls):
    registry = registry_of(add)
    results = executor_cls().run([use("add", [1, 2]), 42], registry)  # type: ignore[list-item]
    assert_error(results[0], "ToolInputError", "Invalid input for tool 'add'")
    assert_error(results[1], "TypeError", "Cannot interpret 42")


@pytest.mark.parametrize("executor_cls", EXECUTORS)
def test_always_deny_is_an_error_and_never_runs(executor_cls):
    [result] = executor_cls().run([use("forbidden")], registry_of(forbidden))
    assert_error(result, "PermissionDenied", "not allowed", "always_deny")
    assert CALLS["forbidden"] == 0


@pytest.mark.parametrize("executor_cls", EXECUTORS)
def test_ask_user_without_approver_is_denied(executor_cls):
    [result] = executor_cls().run([use("guarded", {"x": 1})], registry_of(guarded))
    assert_error(result, "PermissionDenied", "requires user approval", "no approver")
    assert CALLS["guarded"] == 0


@pytest.mark.parametrize("executor_cls", EXECUTORS)
def test_ask_user_with_a_denying_approver(executor_cls):
    seen = []

    def approver(tool_use, tool_obj):
        seen.append((tool_use["name"], tool_obj))
        return False

    [result] = executor_cls(approver=approver).run([use("guarded", {"x": 1})], registry_of(guarded))
    assert_error(result, "PermissionDenied", "denied by the approver")
    assert seen == [("guarded", guarded)]
    assert CALLS["guarded"] == 0


@pytest.mark.parametrize("executor_cls", EXECUTORS)
def test_ask_user_with_an_approving_sync_approver(executor_cls):
    seen = []

    def approver(tool_use, tool_obj):
        seen.append(tool_use["input"])
        return True

    [result] = executor_cls(approver=approver).run([use("guarded", {"x": 4})], registry_of(guarded))
    assert result.status == "success" and result.json == 40
    assert seen == [{"x": 4}] and CALLS["guarded"] == 1


@pytest.mark.parametrize("executor_cls", EXECUTORS)
def test_ask_user_with_async_approvers(executor_cls):
    async def yes(tool_use, tool_obj):
        await asyncio.sleep(0)
        return tool_use["input"]["x"] > 0

    results = executor_cls(approver=yes).run(
        [use("guarded", {"x": 4}), use("guarded", {"x": -1})], registry_of(guarded)
    )
    assert results[0].status == "success" and results[0].json == 40
    assert_error(results[1], "PermissionDenied", "denied by the approver")
    assert CALLS["guarded"] == 1


def test_an_approver_that_raises_denies_the_call():
    def broken(tool_use, tool_obj):
        raise RuntimeError("approval service down")

    [result] = SequentialExecutor(approver=broken).run([use("guarded", {"x": 1})], registry_of(guarded))
    assert_error(result, "PermissionDenied", "approval service down")
    assert CALLS["guarded"] == 0


@pytest.mark.parametrize("executor_cls", EXECUTORS)
def test_an_exception_in_the_tool_is_an_error_with_a_traceback(executor_cls):
    @tool
    async def async_boom() -> str:
        """Raises after an await."""
        await asyncio.sleep(0)
        raise KeyError("missing-key")

    results = executor_cls().run([use("boom", {"message": "hi"}), use("async_boom")], registry_of(boom, async_boom))
    sync_error = assert_error(results[0], "ValueError", "ValueError: kaboom: hi")
    assert "Traceback (most recent call last)" in sync_error.metadata["traceback"]
    assert 'raise ValueError(f"kaboom: {message}")' in sync_error.metadata["traceback"]
    assert sync_error.metadata["tool_name"] == "boom"
    async_error = assert_error(results[1], "KeyError", "missing-key")
    assert "async_boom" in async_error.metadata["traceback"]


def test_the_executor_never_raises_for_a_batch_of_bad_calls():
    registry = registry_of(add, boom, forbidden, guarded)
    batch = [
        use("nope"),
        use("add", {"a": "x"}),
        use("forbidden"),
        use("guarded", {"x": 1}),
        use("boom", {"message": "m"}),
        {"name": "add", "arguments": {"a": 1, "b": 2}},
    ]
    for executor in (SequentialExecutor(), ConcurrentExecutor()):
        results = executor.run(batch, registry)
        assert [r.status for r in results] == ["error"] * 5 + ["success"]
        results = asyncio.run(executor.execute(batch, registry))
        assert [r.status for r in results] == ["error"] * 5 + ["success"]


# == timeouts =======================================================================================
def _sleeper(timeout=None):
    state = {"cancelled": False, "finally": False, "finished": False}

    @tool(timeout=timeout)
    async def sleeper() -> str:
        """Sleeps five seconds."""
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            state["cancelled"] = True
            raise
        finally:
            state["finally"] = True
        state["finished"] = True
        return "woke up"

    return sleeper, state


@pytest.mark.parametrize("executor_cls", EXECUTORS)
def test_per_tool_timeout_really_cancels_an_async_tool(executor_cls):
    sleeper, state = _sleeper(timeout=0.2)
    started = time.perf_counter()
    [result] = executor_cls().run([use("sleeper")], registry_of(sleeper))
    elapsed = time.perf_counter() - started
    assert_error(result, "TimeoutError", "timed out after 0.2 s")
    assert result.metadata["timeout"] == 0.2
    assert state == {"cancelled": True, "finally": True, "finished": False}
    assert elapsed < 4  # ended at the deadline, well before the 5 s sleep


@pytest.mark.parametrize("executor_cls", EXECUTORS)
def test_executor_default_timeout(executor_cls):
    sleeper, state = _sleeper()
    registry = registry_of(sleeper, add)

    async def main():
        return await executor_cls(timeout=0.2).execute([use("sleeper"), use("add", {"a": 1, "b": 1})], registry)

    started = time.perf_counter()
    results = asyncio.run(main())
    assert time.perf_counter() - started < 4
    assert_error(results[0], "TimeoutError", "timed out after 0.2 s")
    assert results[1].json == 2  # quick calls are unaffected by the default
    assert state["cancelled"] and state["finally"] and not state["finished"]


def test_a_tools_own_timeout_wins_over_the_executor_default():
    sleeper, state = _sleeper(timeout=0.1)
    [result] = ConcurrentExecutor(timeout=30).run([use("sleeper")], registry_of(sleeper))
    assert_error(result, "TimeoutError", "timed out after 0.1 s")
    assert state["cancelled"]


@pytest.mark.parametrize("executor_cls", EXECUTORS)
def test_an_overrunning_sync_tool_is_reported_at_the_deadline(executor_cls):
    release = threading.Event()
    seen: dict = {}

    @tool(timeout=0.5)
    def stubborn(ctx: ToolContext) -> str:
        """Blocks until released, ignoring the deadline."""
        seen["ctx"] = ctx
        seen["thread"] = threading.get_ident()
        release.wait(10)
        seen["finished"] = True
        return "late"

    try:
        started = time.perf_counter()
        [result] = executor_cls().run([use("stubborn")], registry_of(stubborn))
        elapsed = time.perf_counter() - started
        # the tool is still blocked: the result came at the deadline, not when the tool finished
        assert "finished" not in seen
        assert_error(result, "TimeoutError", "timed out after 0.5 s")
        assert seen["ctx"].cancelled is True
        assert seen["thread"] != threading.get_ident()
        assert elapsed < 5
    finally:
        release.set()


@pytest.mark.parametrize("executor_cls", EXECUTORS)
def test_an_overrunning_sync_tool_without_context_under_an_executor_timeout(executor_cls):
    release = threading.Event()
    seen: dict = {}

    @tool
    def plain_blocker() -> str:
        """Blocks until released."""
        release.wait(10)
        seen["finished"] = True
        return "late"

    async def main():
        return await executor_cls(timeout=0.5).execute([use("plain_blocker")], registry_of(plain_blocker))

    try:
        [result] = (
            asyncio.run(main())
            if executor_cls is ConcurrentExecutor
            else executor_cls(timeout=0.5).run([use("plain_blocker")], registry_of(plain_blocker))
        )
        assert "finished" not in seen
        assert_error(result, "TimeoutError", "timed out after 0.5 s")
    finally:
        release.set()


@pytest.mark.parametrize("executor_cls", EXECUTORS)
@pytest.mark.parametrize("timeout", [None, 5.0])
def test_a_timeout_error_raised_by_the_tool_is_an_ordinary_failure(executor_cls, timeout):
    @tool(timeout=timeout)
    def flaky_socket() -> str:
        """Raises its own TimeoutError at once."""
        raise TimeoutError("upstream did not answer")

    @tool(timeout=timeout)
    async def flaky_async() -> str:
        """Raises its own TimeoutError after an await."""
        await asyncio.sleep(0)
        raise TimeoutError("upstream did not answer either")

    results = executor_cls().run([use("flaky_socket"), use("flaky_async")], registry_of(flaky_socket, flaky_async))
    assert_error(results[0], "TimeoutError", "TimeoutError: upstream did not answer")
    assert_error(results[1], "TimeoutError", "TimeoutError: upstream did not answer either")
    for result in results:
        assert "timed out after" not in result.metadata["error"]
        assert "traceback" in result.metadata and "timeout" not in result.metadata


# == cancellation ===================================================================================
def test_cancel_by_id_from_another_task():
    sleeper, state = _sleeper()
    registry = registry_of(sleeper, add)
    executor = ConcurrentExecutor()

    async def canceller():
        while "target" not in executor.running():
            await asyncio.sleep(0.005)
        return executor.cancel("target")

    async def main():
        batch = executor.execute([use("sleeper", id="target"), use("add", {"a": 2, "b": 2}, id="other")], registry)
        return await asyncio.gather(batch, canceller())

    started = time.perf_counter()
    results, cancelled = asyncio.run(main())
    assert cancelled is True
    assert_error(results[0], "CancelledError", "was cancelled")
    assert results[1].status == "success" and results[1].json == 4
    assert state["cancelled"] and not state["finished"]
    assert time.perf_counter() - started < 4
    assert executor.running() == []
    assert executor.cancel("target") is False
    assert executor.cancel("never-ran") is False


def test_cancel_by_id_under_a_sequential_execute_leaves_the_caller_running():
    sleeper, state = _sleeper()
    registry = registry_of(sleeper, add)
    executor = SequentialExecutor()

    async def canceller():
        while "target" not in executor.running():
            await asyncio.sleep(0.005)
        assert executor.cancel("target")

    async def main():
        task = asyncio.ensure_future(canceller())
        results = await executor.execute([use("sleeper", id="target"), use("add", {"a": 1, "b": 2})], registry)
        await task
        await asyncio.sleep(0)  # the calling task was not left cancelled
        return results, asyncio.current_task().cancelling()

    results, cancelling = asyncio.run(main())
    assert_error(results[0], "CancelledError", "was cancelled")
    assert results[1].json == 3  # the rest of the batch still ran
    assert cancelling == 0
    assert state["cancelled"] and not state["finished"]


def test_cancel_a_sync_tool_running_in_a_thread():
    release, entered = threading.Event(), threading.Event()
    seen = {}

    @tool
    def blocking(ctx: ToolContext) -> str:
        """Waits to be released."""
        seen["ctx"] = ctx
        entered.set()
        release.wait(10)
        return "done"

    executor = ConcurrentExecutor()

    async def canceller():
        while not entered.is_set():  # cancel once the tool runs in its worker thread
            await asyncio.sleep(0.005)
        assert executor.running() == ["blocked"]
        return executor.cancel("blocked")

    async def main():
        return await asyncio.gather(
            executor.execute([use("blocking", id="blocked")], registry_of(blocking)), canceller()
        )

    try:
        [result], cancelled = asyncio.run(main())
        assert cancelled is True
        assert_error(result, "CancelledError", "was cancelled")
        assert seen["ctx"].cancelled is True
    finally:
        release.set()


def test_cancel_from_another_thread():
    sleeper, state = _sleeper()
    executor = ConcurrentExecutor()

    def cancel_soon():
        deadline = time.monotonic() + 10
        while "t" not in executor.running() and time.monotonic() < deadline:
            time.sleep(0.005)
        executor.cancel("t")

    thread = threading.Thread(target=cancel_soon)
    thread.start()
    [result] = executor.run([use("sleeper", id="t")], registry_of(sleeper))
    thread.join()
    assert_error(result, "CancelledError")
    assert state["cancelled"]


# == where tools run ================================================================================
REQUEST_ID: contextvars.ContextVar[str] = contextvars.ContextVar("REQUEST_ID", default="unset")


def test_sync_tools_run_in_a_thread_pool_with_contextvars():
    @tool
    def whoami() -> dict:
        """Report the context variable and the thread."""
        return {"request": REQUEST_ID.get(), "thread": threading.get_ident()}

    async def main():
        REQUEST_ID.set("req-42")
        return await ConcurrentExecutor().execute([use("whoami"), use("whoami")], registry_of(whoami))

    results = asyncio.run(main())
    assert [r.json["request"] for r in results] == ["req-42", "req-42"]
    assert all(r.json["thread"] != threading.get_ident() for r in results)


def test_async_tools_run_on_the_callers_loop():
    @tool
    async def where() -> dict:
        """Report the loop and the thread."""
        return {"loop": id(asyncio.get_running_loop()), "thread": threading.get_ident()}

    async def main():
        loop = asyncio.get_running_loop()
        results = await ConcurrentExecutor().execute([use("where")], registry_of(where))
        results += await SequentialExecutor().execute([use("where")], registry_of(where))
        return id(loop), results

    loop_id, results = asyncio.run(main())
    for result in results:
        assert result.json == {"loop": loop_id, "thread": threading.get_ident()}


def test_a_user_supplied_process_pool_is_honoured():
    registry = registry_of(executor_tools.getpid, executor_tools.square)
    with concurrent.futures.ProcessPoolExecutor(2) as pool:
        executor = ConcurrentExecutor(pool=pool)
        results = executor.run([use("getpid"), use("square", {"x": 7})], registry)
    assert results[0].status == "success", results[0]
    assert isinstance(results[0].json, int) and results[0].json != os.getpid()
    assert results[1].json == 49


def test_a_user_supplied_thread_pool_is_used():
    @tool
    def thread_name() -> str:
        """The worker thread's name."""
        return threading.current_thread().name

    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="custom-pool") as pool:
        results = SequentialExecutor(pool=pool).run([use("thread_name")], registry_of(thread_name))
    assert results[0].text.startswith("custom-pool")


# == idempotency ====================================================================================
def _counting(idempotent=True, is_async=False, pause=0.0):
    counter = {"n": 0}
    if is_async:

        @tool(idempotent=idempotent)
        async def fetch(url: str, limit: int = 10) -> dict:
            """Counts its executions."""
            counter["n"] += 1
            await asyncio.sleep(pause)
            return {"url": url, "limit": limit, "execution": counter["n"]}
    else:

        @tool(idempotent=idempotent)
        def fetch(url: str, limit: int = 10) -> dict:
            """Counts its executions."""
            counter["n"] += 1
            time.sleep(pause)
            return {"url": url, "limit": limit, "execution": counter["n"]}

    return fetch, counter


@pytest.mark.parametrize("executor_cls", EXECUTORS)
def test_identical_idempotent_calls_execute_once_per_run(executor_cls):
    fetch, counter = _counting()
    registry = registry_of(fetch)
    batch = [
        use("fetch", {"url": "u", "limit": 3}),
        use("fetch", {"limit": 3, "url": "u"}),  # key order differs
        use("fetch", {"url": "v", "limit": 3}),
    ]
    executor = executor_cls(max_concurrency=1) if executor_cls is ConcurrentExecutor else executor_cls()
    results = executor.run(batch, registry)
    assert counter["n"] == 2
    assert results[0].content == results[1].content
    assert results[1].metadata["idempotent_reuse"] is True
    assert results[1].metadata["original_tool_use_id"] == results[0].tool_use_id
    assert results[1].tool_use_id == batch[1]["toolUseId"]
    assert results[2].json["url"] == "v"
    executor.run(batch, registry)  # a new run executes again
    assert counter["n"] == 4


def test_non_idempotent_tools_always_execute():
    fetch, counter = _counting(idempotent=False)
    SequentialExecutor().run([use("fetch", {"url": "u"}), use("fetch", {"url": "u"})], registry_of(fetch))
    assert counter["n"] == 2


@pytest.mark.parametrize("is_async", [True, False])
def test_identical_idempotent_calls_in_flight_at_once_execute_once(is_async):
    fetch, counter = _counting(is_async=is_async, pause=0.1)
    registry = registry_of(fetch)
    batch = [use("fetch", {"url": "u", "limit": 1}), use("fetch", {"limit": 1, "url": "u"})]

    async def main():
        return await ConcurrentExecutor(max_concurrency=4).execute(batch, registry)

    results = asyncio.run(main())
    assert counter["n"] == 1
    assert [r.status for r in results] == ["success", "success"]
    assert results[0].content == results[1].content
    assert results[0].json == {"url": "u", "limit": 1, "execution": 1}
    assert [r.tool_use_id for r in results] == [batch[0]["toolUseId"], batch[1]["toolUseId"]]


def test_idempotency_key_uses_canonical_json_of_nested_input():
    counter = {"n": 0}

    @tool(idempotent=True)
    def query(filters: dict) -> int:
        """Counts executions."""
        counter["n"] += 1
        return len(filters)

    batch = [
        use("query", {"filters": {"a": 1, "b": {"x": 1, "y": 2}}}),
        use("query", {"filters": {"b": {"y": 2, "x": 1}, "a": 1}}),
    ]
    results = SequentialExecutor().run(batch, registry_of(query))
    assert counter["n"] == 1 and [r.json for r in results] == [2, 2]


# == progress and listeners =========================================================================
@tool
def crunch(steps: int, ctx: ToolContext) -> str:
    """Reports progress at each step."""
    for i in range(1, steps + 1):
        ctx.report_progress(i / steps, f"step {i}")
    return "crunched"


@tool
async def async_crunch(steps: int, ctx: ToolContext) -> str:
    """Reports progress at each step, asynchronously."""
    for i in range(1, steps + 1):
        await asyncio.sleep(0)
        ctx.report_progress(i / steps, f"step {i}")
    ctx.log("all done")
    return "crunched"


def _collect(executor):
    events: list[ToolEvent] = []
    lock = threading.Lock()

    def listener(event):
        with lock:
            events.append(event)

    executor.on_event(listener)
    return events


@pytest.mark.parametrize("executor_cls", EXECUTORS)
@pytest.mark.parametrize("tool_name", ["crunch", "async_crunch"])
def test_report_progress_reaches_listeners_as_in_progress_results(executor_cls, tool_name):
    executor = executor_cls()
    events = _collect(executor)
    [result] = executor.run([use(tool_name, {"steps": 4}, id="p1")], registry_of(crunch, async_crunch))
    assert result.status == "success"
    kinds = [e.kind for e in events if e.kind != "log"]
    assert kinds == ["start", "progress", "progress", "progress", "progress", "end"]
    progress = [e for e in events if e.kind == "progress"]
    assert [e.progress for e in progress] == [0.25, 0.5, 0.75, 1.0]
    for event, expected in zip(progress, [0.25, 0.5, 0.75, 1.0]):
        assert event.result.status == "in_progress"
        assert event.result.progress == expected
        assert event.result.tool_use_id == "p1"
        assert event.message == event.result.metadata["message"]
        assert event.tool_name == tool_name and event.tool_use_id == "p1"
        assert event.index == 0 and event.tool_use["input"] == {"steps": 4}
        assert event.started_at == result.started_at == event.result.started_at
        assert "progress" in repr(event) and isinstance(event, ToolEvent)
    assert [e.message for e in progress] == ["step 1", "step 2", "step 3", "step 4"]
    assert events[-1].result is result
    if tool_name == "async_crunch":
        assert [e.message for e in events if e.kind == "log"] == ["all done"]


def test_progress_outside_0_1_is_clamped():
    @tool
    def wild(ctx: ToolContext) -> int:
        """Reports odd progress values."""
        ctx.report_progress(-3)
        ctx.report_progress(7)
        return 0

    executor = SequentialExecutor()
    events = _collect(executor)
    executor.run([use("wild")], registry_of(wild))
    assert [e.result.progress for e in events if e.kind == "progress"] == [0.0, 1.0]


@pytest.mark.parametrize("executor_cls", EXECUTORS)
def test_listeners_see_start_and_end_of_every_call_including_failures(executor_cls):
    executor = executor_cls(approver=lambda tool_use, tool_obj: False)
    events = _collect(executor)
    sleeper, _ = _sleeper(timeout=0.1)
    registry = registry_of(add, boom, forbidden, guarded, sleeper)
    batch = [
        use("add", {"a": 1, "b": 2}, "ok"),
        use("nope", id="unknown"),
        use("add", {"a": "x"}, "invalid"),
        use("forbidden", id="denied"),
        use("guarded", {"x": 1}, "refused"),
        use("boom", {"message": "m"}, "raised"),
        use("sleeper", id="slow"),
        42,
    ]
    results = executor.run(batch, registry)
    assert [r.status for r in results] == ["success"] + ["error"] * 7
    by_id: dict[str, list[ToolEvent]] = {}
    for event in events:
        by_id.setdefault(event.tool_use_id, []).append(event)
    assert set(by_id) == {u["toolUseId"] for u in batch[:-1]} | {results[-1].tool_use_id}
    for use_id, seen in by_id.items():
        assert [e.kind for e in seen] == ["start", "end"], use_id
        assert seen[0].result.status == "in_progress"
        assert seen[1].result.status == ("success" if use_id == "ok" else "error")
    assert {e.index for e in events if e.kind == "end"} == set(range(len(batch)))


def test_unsubscribe_and_broken_listeners():
    executor = SequentialExecutor()
    events = []
    unsubscribe = executor.on_event(events.append)

    def broken(event):
        raise RuntimeError("listener bug")

    unsubscribe_broken = executor.on_event(broken)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        [result] = executor.run([use("crunch", {"steps": 1})], registry_of(crunch))
    assert result.status == "success"  # a broken listener does not fail the call
    assert any("listener bug" in str(w.message) for w in caught)
    assert len(events) == 3
    unsubscribe()
    unsubscribe_broken()
    executor.run([use("crunch", {"steps": 1})], registry_of(crunch))
    assert len(events) == 3


def test_report_progress_without_listeners_is_harmless():
    executor = SequentialExecutor()
    [result] = executor.run([use("crunch", {"steps": 3})], registry_of(crunch))
    assert result.status == "success" and result.text == "crunched"


# == timing =========================================================================================
def _parse(stamp: str) -> datetime:
    assert stamp.endswith("Z"), stamp
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def test_every_result_carries_timestamps_and_latency():
    sleeper, _ = _sleeper(timeout=0.1)

    @tool
    async def nap() -> str:
        """Sleeps 50 ms."""
        await asyncio.sleep(0.05)
        return "rested"

    registry = registry_of(add, boom, forbidden, sleeper, nap)
    batch = [
        use("add", {"a": 1, "b": 2}),
        use("nope"),
        use("add", {"a": "x"}),
        use("forbidden"),
        use("boom", {"message": "m"}),
        use("sleeper"),
        use("nap"),
    ]
    before = datetime.now(timezone.utc).replace(microsecond=0)
    for executor in (SequentialExecutor(), ConcurrentExecutor()):
        results = executor.run(batch, registry)
        assert [r.status for r in results] == ["success"] + ["error"] * 5 + ["success"]
        for result in results:
            started, completed = _parse(result.started_at), _parse(result.completed_at)
            assert started.utcoffset().total_seconds() == 0
            assert before <= started <= completed <= datetime.now(timezone.utc)
            latency = result.metadata["latency_ms"]
            assert isinstance(latency, float) and latency >= 0
            assert result.progress is None
    nap_result = results[-1]
    assert nap_result.metadata["latency_ms"] >= 40  # the latency measures the call


# == execution log ==================================================================================
def _log_class():
    try:
        from workbench.log import ExecutionLog
    except ImportError:  # pragma: no cover - the log is written in parallel
        return None
    return ExecutionLog


class FakeLog:
    def __init__(self):
        self.entries = []

    def append(self, result, tool_use):
        self.entries.append((result, tool_use))


def _logged(log):
    if isinstance(log, FakeLog):
        return [(r.metadata.get("tool_name"), r.tool_use_id, r.status) for r, _ in log.entries]
    return [(row["tool_name"], row["tool_use_id"], row["status"]) for row in log.rows()]


@pytest.fixture(params=["real", "fake"])
def log(request):
    if request.param == "fake":
        return FakeLog()
    log_cls = _log_class()
    assert log_cls is not None, "workbench.log.ExecutionLog is missing"
    return log_cls()


def test_executor_writes_every_final_result_to_its_log(log):
    registry = registry_of(add, boom, crunch)
    batch = [
        use("add", {"a": 1, "b": 2}, "l1"),
        use("boom", {"message": "m"}, "l2"),
        use("nope", id="l3"),
        use("crunch", {"steps": 3}, "l4"),
    ]
    executor = SequentialExecutor(log=log)
    executor.on_event(lambda event: None)  # progress events are never logged
    executor.run(batch, registry)
    assert _logged(log) == [
        ("add", "l1", "success"),
        ("boom", "l2", "error"),
        ("nope", "l3", "error"),
        ("crunch", "l4", "success"),
    ]
    if not isinstance(log, FakeLog):
        rows = log.rows()
        assert rows[0]["input"] == {"a": 1, "b": 2}
        assert rows[1]["error_type"] == "ValueError"
        assert rows[0]["latency_ms"] is not None


@pytest.mark.parametrize("executor_cls", EXECUTORS)
def test_log_passed_to_execute_and_run(executor_cls, log):
    registry = registry_of(add, async_add)
    executor = executor_cls()
    asyncio.run(executor.execute([use("async_add", {"a": 1, "b": 1}, "e1")], registry, log=log))
    executor.run([use("add", {"a": 2, "b": 2}, "r1")], registry, log=log)
    executor.run([use("add", {"a": 3, "b": 3}, "r2")], registry)  # no log given: nothing written
    assert _logged(log) == [("async_add", "e1", "success"), ("add", "r1", "success")]


def test_a_failing_log_does_not_lose_the_result():
    class BrokenLog:
        def append(self, result, tool_use):
            raise OSError("disk full")

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        [result] = SequentialExecutor(log=BrokenLog()).run([use("add", {"a": 1, "b": 2})], registry_of(add))
    assert result.status == "success" and result.json == 3
    assert "disk full" in result.metadata["log_error"]
    assert any("disk full" in str(w.message) for w in caught)


# == synthetic mode =================================================================================
WEATHER_SPEC = {
    "name": "get_weather",
    "description": "Weather for a city.",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}},
        "required": ["city"],
    },
    "returns": {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "temperature": {"type": "number", "minimum": -50, "maximum": 60},
            "conditions": {"type": "string", "enum": ["sun", "rain", "snow"]},
            "hourly": {"type": "array", "items": {"type": "integer"}, "minItems": 2},
        },
        "required": ["city", "temperature", "conditions", "hourly"],
    },
}


def _spec_registry():
    registry = ToolRegistry()
    registry.register_spec(WEATHER_SPEC)
    return registry


def test_synthetic_results_follow_the_returns_schema_and_are_deterministic():
    registry = _spec_registry()
    executor = SequentialExecutor(synthetic=True)
    first = executor.run([use("get_weather", {"city": "Oslo", "days": 2})], registry)[0]
    assert first.status == "success", first
    assert first.metadata["synthetic"] is True
    jsonschema.validate(first.value, WEATHER_SPEC["returns"])
    jsonschema.validate(first.json, WEATHER_SPEC["returns"])
    again = executor.run([use("get_weather", {"days": 2, "city": "Oslo"})], registry)[0]
    assert again.value == first.value
    via_registry = registry.call("get_weather", {"city": "Oslo", "days": 2}, synthetic=True)
    assert via_registry.metadata["synthetic"] is True and via_registry.value == first.value
    async_result = asyncio.run(
        ConcurrentExecutor(synthetic=True).execute([use("get_weather", {"city": "Oslo", "days": 2})], registry)
    )[0]
    assert async_result.value == first.value


def test_synthetic_values_still_validate_their_input():
    [result] = SequentialExecutor(synthetic=True).run([use("get_weather", {"days": 0})], _spec_registry())
    assert_error(result, "ToolInputError")


def test_spec_only_tools_without_synthetic_mode_fail_clearly():
    registry = _spec_registry()
    [result] = SequentialExecutor().run([use("get_weather", {"city": "Oslo"})], registry)
    assert_error(result, "NoImplementationError", "no implementation")
    result = registry.call("get_weather", {"city": "Oslo"})
    assert_error(result, "NoImplementationError", "no implementation")
    [result] = asyncio.run(ConcurrentExecutor().execute([use("get_weather", {"city": "Oslo"})], registry))
    assert_error(result, "NoImplementationError", "no implementation")


# == call shapes and misc ===========================================================================
def test_tool_calls_in_other_shapes_are_accepted():
    class ToolCall:
        def __init__(self, id, name, arguments):
            self.id, self.name, self.arguments = id, name, arguments

    registry = registry_of(add)
    results = SequentialExecutor().run(
        [{"id": "x1", "name": "add", "arguments": {"a": 1, "b": 1}}, ToolCall("x2", "add", {"a": 2, "b": 2})], registry
    )
    assert [(r.tool_use_id, r.json) for r in results] == [("x1", 2), ("x2", 4)]


def test_registries_of_other_kinds():
    class MinimalRegistry:
        def get_tool(self, name):
            if name == "add":
                return add
            raise KeyError(f"no tool {name!r}")

    results = SequentialExecutor().run([use("add", {"a": 1, "b": 1}), use("sub")], MinimalRegistry())
    assert results[0].json == 2
    assert_error(results[1], "ToolNotFoundError", "no tool 'sub'")
    results = asyncio.run(ConcurrentExecutor().execute([use("add", {"a": 2, "b": 2})], [add, async_add]))
    assert results[0].json == 4


def test_executor_call_and_options_validation():
    assert SequentialExecutor().call(registry_of(add), "add", {"a": 20, "b": 22}).json == 42
    with pytest.raises(ValueError):
        SequentialExecutor(timeout=0)
    with pytest.raises(ValueError):
        ConcurrentExecutor(max_concurrency=0)


def test_max_concurrency_is_respected():
    state = {"now": 0, "peak": 0}

    @tool
    async def tracked(n: int) -> int:
        """Tracks how many run at once."""
        state["now"] += 1
        state["peak"] = max(state["peak"], state["now"])
        await asyncio.sleep(0.01)
        state["now"] -= 1
        return n

    results = ConcurrentExecutor(max_concurrency=3).run(
        [use("tracked", {"n": n}) for n in range(12)], registry_of(tracked)
    )
    assert [r.json for r in results] == list(range(12))
    assert state["peak"] == 3
