"""SequentialExecutor cancels running sync calls as ConcurrentExecutor does (issue 18, item 6).

A sync call that runs inline in its caller's thread (``SequentialExecutor.run``, or on the loop in
``execute``) is listed by ``running()``; ``cancel(id)`` returns True, sets its
``ToolContext.cancelled`` and the call is answered as cancelled (``CancelledError``) — once the tool
returns, since the thread running it is the caller's own. A *plain* call (no log, no listener: nobody
follows it) runs without run state and is not listed: see ``test_a_plain_call_with_nobody_following_it``.
"""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from tests.form_catalogue import wait_until, wb  # noqa: F401 - fixtures
from workbench import ConcurrentExecutor, ExecutionLog, SequentialExecutor, ToolContext, ToolRegistry, tool
from workbench.jupyter import ToolForm, reset_workbench
from workbench.jupyter._workbench import Workbench

SEEN: dict = {}


@tool
def poll(ctx: ToolContext, seconds: float = 5.0) -> str:
    """Loop until cancelled (or the time is up)."""
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        if ctx.cancelled:
            SEEN["cancelled"] = True
            return "stopped"
        time.sleep(0.005)
    return "done"


RELEASE = threading.Event()


@tool
def held(x: int = 1) -> int:
    """Wait until the test releases it (no ToolContext: it cannot see a cancellation)."""
    RELEASE.wait(5)
    return x


@pytest.fixture(autouse=True)
def _fresh():
    SEEN.clear()
    RELEASE.clear()
    yield
    RELEASE.set()


def _run_in_thread(fn):
    box: dict = {}

    def target():
        box["value"] = fn()

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread, box


def _cancel_when_running(executor, use_id: str) -> bool:
    assert wait_until(lambda: use_id in executor.running()), f"{use_id} never showed in running(): {executor.running()}"
    return executor.cancel(use_id)


def _assert_cancelled(result, use_id: str, name: str) -> None:
    assert result.tool_use_id == use_id and result.status == "error"
    assert result.metadata["error_type"] == "CancelledError" and f"Tool '{name}' was cancelled" in result.error


EXECUTORS = [SequentialExecutor, ConcurrentExecutor]


@pytest.mark.parametrize("executor_class", EXECUTORS)
@pytest.mark.parametrize("api", ["run", "execute"])
def test_a_running_context_tool_is_listed_and_cancelled(executor_class, api):
    executor = executor_class()
    use = {"toolUseId": "p1", "name": "poll", "input": {}}
    registry = ToolRegistry([poll])
    call = (
        (lambda: executor.run([use], registry))
        if api == "run"
        else (lambda: asyncio.run(executor.execute([use], registry)))
    )
    thread, box = _run_in_thread(call)
    assert _cancel_when_running(executor, "p1") is True
    thread.join(5)
    [result] = box["value"]
    _assert_cancelled(result, "p1", "poll")
    # its ToolContext said so and it stops early (a worker thread may still be finishing it)
    assert wait_until(lambda: SEEN.get("cancelled") is True)
    assert executor.running() == [] and executor.cancel("p1") is False
    executor.close()


@pytest.mark.parametrize("executor_class", EXECUTORS)
@pytest.mark.parametrize("api", ["run", "execute"])
@pytest.mark.parametrize("follower", ["log", "listener"])
def test_a_running_sync_tool_without_context_is_answered_as_cancelled(executor_class, api, follower, tmp_path):
    executor = executor_class()
    log = ExecutionLog(tmp_path / "log.db") if follower == "log" else None
    events = []
    if follower == "listener":
        executor.on_event(events.append)
    uses = [
        {"toolUseId": "h1", "name": "held", "input": {"x": 7}},
        {"toolUseId": "h2", "name": "held", "input": {"x": 8}},
    ]
    registry = ToolRegistry([held])
    call = (
        (lambda: executor.run(uses, registry, log=log))
        if api == "run"
        else (lambda: asyncio.run(executor.execute(uses, registry, log=log)))
    )
    thread, box = _run_in_thread(call)
    assert _cancel_when_running(executor, "h1") is True
    RELEASE.set()
    thread.join(5)
    first, second = box["value"]
    _assert_cancelled(first, "h1", "held")
    assert second.status == "success" and second.value == 8  # the rest of the batch runs
    if log is not None:
        assert [r["error_type"] for r in log.rows()] == ["CancelledError", None]
    else:
        ends = [e.result for e in events if e.kind == "end"]
        assert [r.metadata.get("error_type") for r in ends] == ["CancelledError", None]
    assert executor.running() == []
    executor.close()


def test_a_plain_call_with_nobody_following_it_is_not_listed():
    """No log and no listener: SequentialExecutor.run takes its one-step plain path (no run state), so the
    call is neither listed nor cancellable — documented; subscribe a listener to follow and cancel calls."""
    executor = SequentialExecutor()
    thread, box = _run_in_thread(
        lambda: executor.run([{"toolUseId": "q", "name": "held", "input": {}}], ToolRegistry([held]))
    )
    time.sleep(0.1)
    assert executor.running() == [] and executor.cancel("q") is False
    RELEASE.set()
    thread.join(5)
    assert box["value"][0].status == "success"


# -- a form's Cancel with a SequentialExecutor ------------------------------------------------------------


@pytest.fixture
def seq_wb(monkeypatch):
    from workbench import registry as registry_module

    monkeypatch.setattr(registry_module, "_DEFAULT", None)
    workbench = reset_workbench(Workbench(executor=SequentialExecutor()))
    yield workbench
    workbench.executor.close()
    reset_workbench()


@pytest.mark.parametrize("item", [poll, held], ids=["context-tool", "sync-tool"])
def test_form_cancel_with_a_sequential_executor(seq_wb, item):
    seq_wb.registry.register_tool(item, replace=True)
    form = ToolForm(item, seq_wb)
    started = time.monotonic()
    done = form.submit()
    assert form.running and not form.cancel_button.disabled
    assert wait_until(lambda: form._current_id in seq_wb.executor.running())
    form.cancel_button.click()
    RELEASE.set()
    result = done.result(5)
    assert time.monotonic() - started < 5
    _assert_cancelled(result, result.tool_use_id, item.tool_name)
    assert not form.running and form.cancel_button.disabled and not form.run_button.disabled
    assert form.progress.bar_style == "warning" and "cancelled" in form.result_html.value
    assert seq_wb.log.rows()[-1]["error_type"] == "CancelledError"
    assert form.cancel() is False


def test_a_cancelled_idempotent_call_is_not_reused_for_its_identical_sibling():
    calls = []

    @tool(idempotent=True)
    def once(x: int) -> int:
        """Idempotent, held until released."""
        calls.append(x)
        RELEASE.wait(5)
        return x

    executor = SequentialExecutor()
    uses = [
        {"toolUseId": "i1", "name": "once", "input": {"x": 3}},
        {"toolUseId": "i2", "name": "once", "input": {"x": 3}},
    ]
    thread, box = _run_in_thread(lambda: executor.run(uses, ToolRegistry([once])))
    assert _cancel_when_running(executor, "i1") is True
    RELEASE.set()
    thread.join(5)
    first, second = box["value"]
    _assert_cancelled(first, "i1", "once")
    assert second.status == "success" and second.value == 3 and calls == [3, 3]
