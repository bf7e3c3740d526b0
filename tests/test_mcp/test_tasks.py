"""MCP tasks (protocol 2025-11-25) on ``workbench.mcp.connect``, against real servers: the reference
``server-everything`` (its ``simulate-research-query`` requires tasks and asks for input mid-task)
and tests/node/task_server.mjs (a TypeScript-SDK server with an ``"optional"`` task tool)."""

from __future__ import annotations

import threading
import time

import pytest

from tests.mcp_servers import EVERYTHING, ROOT, WAIT, eventually, npm_server
from workbench.executor import ConcurrentExecutor, SequentialExecutor
from workbench.registry import ToolRegistry

TASK_SERVER = ["node", str(ROOT / "tests" / "node" / "task_server.mjs")]


@pytest.fixture(scope="module")
def everything():
    from workbench.mcp import connect

    answers: list = []

    def elicit(params):
        answers.append(params)
        return {"interpretation": "historical"}

    registry = ToolRegistry()
    conn = connect(command=[npm_server(EVERYTHING)], registry=registry, elicitation=elicit, connect_timeout=WAIT)
    try:
        yield conn, registry, answers
    finally:
        conn.disconnect()


@pytest.fixture()
def steps_server():
    from workbench.mcp import connect

    registry = ToolRegistry()
    with connect(command=TASK_SERVER, registry=registry, connect_timeout=WAIT) as conn:
        yield conn, registry


def test_a_tool_that_requires_tasks_is_registered_and_runs_as_a_task_through_an_executor(everything):
    conn, registry, _ = everything
    assert conn.supports_tasks and "simulate-research-query" not in conn.skipped
    assert "simulate-research-query" in registry.list_tools()
    executor = ConcurrentExecutor()
    events = []
    executor.on_event(lambda event: events.append(event) if event.kind == "progress" else None)
    result = executor.call(registry, "simulate-research-query", {"topic": "tides"})
    assert result.status == "success", result.error
    assert "# Research Report: tides" in result.text
    messages = [event.message for event in events]
    assert messages[0].startswith("task working") and "task working: Generating report..." in messages
    sent = [m.method for m in conn.messages if m.direction == "sent"]
    assert {"tasks/get", "tasks/result"} <= set(sent)
    created = next(
        m
        for m in conn.messages
        if m.direction == "sent"
        and m.method == "tools/call"
        and m.message["params"]["name"] == "simulate-research-query"
    )
    assert "task" in created.message["params"]
    task = next(t for t in conn.tasks if conn.task_tool(t.task_id) == "simulate-research-query")
    assert task.status == "completed"


def test_polling_honours_the_poll_interval(everything):
    conn, registry, _ = everything
    before = {m.message.get("id") for m in conn.messages if m.method == "tasks/get"}
    started = time.monotonic()
    conn.call_tool("simulate-research-query", {"topic": "rain"})
    elapsed = time.monotonic() - started
    gets = [
        m
        for m in conn.messages
        if m.method == "tasks/get" and m.direction == "sent" and m.message.get("id") not in before
    ]
    # the server suggests pollInterval 1000 ms for a ~4 s task: about one tasks/get a second, not a busy loop
    assert 2 <= len(gets) <= elapsed + 1
    times = sorted(m.time for m in gets)
    assert all(later - earlier >= 0.9 for earlier, later in zip(times, times[1:]))


def test_a_task_that_needs_input_is_answered_by_the_elicitation_handler(everything):
    conn, registry, answers = everything
    before = len(answers)
    result = SequentialExecutor().call(registry, "simulate-research-query", {"topic": "python", "ambiguous": True})
    assert result.status == "success", result.error
    assert len(answers) == before + 1 and "python" in answers[-1].message
    assert "Research Report: python (historical)" in result.text


def test_list_get_and_the_task_list(everything):
    conn, *_ = everything
    listed = conn.list_tasks()
    assert listed and {t.status for t in listed} <= {"working", "input_required", "completed", "failed", "cancelled"}
    known = conn.tasks[0]
    assert conn.get_task(known.task_id).task_id == known.task_id


def test_cancelling_the_executor_call_cancels_the_task(everything):
    conn, registry, _ = everything
    executor = ConcurrentExecutor(timeout=1.5)
    result = executor.call(registry, "simulate-research-query", {"topic": "cancel me"})
    assert result.status == "error" and result.metadata["error_type"] == "TimeoutError"
    cancels = eventually(
        lambda: [m for m in conn.messages if m.direction == "sent" and m.method == "tasks/cancel"],
        what="a tasks/cancel request",
    )
    task_id = cancels[0].message["params"]["taskId"]
    assert conn.get_task(task_id).status == "cancelled"
    assert conn.task_tool(task_id) == "simulate-research-query"


def test_an_optional_tool_is_called_normally_unless_asked(steps_server):
    conn, registry = steps_server
    result = SequentialExecutor().call(registry, "steps", {"n": 2, "ms": 50})
    assert result.status == "success" and result.text == "counted 2 steps"
    assert conn.tasks == [] and not any(m.method == "tasks/get" for m in conn.messages)
    raw = conn.call_tool("steps", {"n": 3, "ms": 50}, as_task=True)
    assert raw.content[0].text == "counted 3 steps"
    assert [t.status for t in conn.tasks] == ["completed"]
    with pytest.raises(ValueError, match="'plain' does not support task-augmented calls"):
        conn.call_tool("plain", as_task=True)
    conn.use_tasks = True
    try:
        failed = SequentialExecutor().call(registry, "steps", {"n": 3, "ms": 20, "fail": True})
    finally:
        conn.use_tasks = False
    assert failed.status == "error" and failed.metadata["error_type"] == "McpTaskError"
    assert "failed: boom at step 1" in failed.error
    assert conn.tasks[0].status == "failed"


def test_use_tasks_calls_optional_tools_as_tasks_with_status_as_progress():
    from workbench.mcp import connect

    registry = ToolRegistry()
    with connect(command=TASK_SERVER, registry=registry, use_tasks=True, connect_timeout=WAIT) as conn:
        executor = SequentialExecutor()
        events = []
        executor.on_event(
            lambda event: events.append((round(event.progress, 3), event.message)) if event.kind == "progress" else None
        )
        result = executor.call(registry, "steps", {"n": 3, "ms": 150})
        assert result.status == "success" and result.text == "counted 3 steps"
        messages = [message for _progress, message in events]
        assert "task working: step 2/3" in messages
        # the server's progress notifications after the task was created still reach the call
        assert [event for event in events if event[1].startswith("progress")] == [
            (0.333, "progress 1/3"),
            (0.667, "progress 2/3"),
            (1.0, "progress 3/3"),
        ]
        assert len(conn.tasks) == 1
        fresh = conn.reconnect()
        try:
            assert fresh.use_tasks
        finally:
            fresh.disconnect()


def test_start_get_cancel_and_result_by_hand(steps_server):
    conn, _ = steps_server
    task = conn.start_task("steps", {"n": 100, "ms": 50})
    assert task.status == "working" and task.poll_interval == 100
    eventually(lambda: (conn.get_task(task.task_id).status_message or "").startswith("step"), what="a step")
    assert conn.cancel_task(task.task_id).status == "cancelled"
    assert conn.get_task(task.task_id).status == "cancelled"
    updates = []
    unsubscribe = conn.on_task(updates.append)
    done = conn.start_task("steps", {"n": 1, "ms": 10})
    assert conn.task_result(done.task_id, timeout=WAIT).content[0].text == "counted 1 steps"
    unsubscribe()
    assert updates and updates[0].task_id == done.task_id


def test_a_required_tool_on_a_server_without_the_tasks_capability_is_skipped_with_the_reason():
    """The project's own server has no tasks; a tool listing taskSupport 'required' there would be
    uncallable — the check is the capability, so a plain connection to it skips nothing."""
    import sys

    import mcp.types as types

    from workbench.mcp import connect
    from workbench.mcp._tasks import task_support

    registry = ToolRegistry()
    with connect(
        command=[sys.executable, str(ROOT / "notebooks" / "docs_server.py")], registry=registry, connect_timeout=WAIT
    ) as conn:
        assert not conn.supports_tasks and conn.skipped == {}
        tool = types.Tool(
            name="needs", input_schema={"type": "object"}, execution=types.ToolExecution(task_support="required")
        )
        assert task_support(tool) == "required"
        assert "does not declare capabilities.tasks" in conn._task_refusal(tool)
        assert conn.list_tasks() == []


def test_cancelling_a_running_form_thread_call(steps_server):
    """A call cancelled through ``executor.cancel`` (a form's Cancel button) cancels the task."""
    conn, registry = steps_server
    conn.use_tasks = True
    try:
        executor = ConcurrentExecutor()
        use = {"toolUseId": "cancel-1", "name": "steps", "input": {"n": 100, "ms": 50}}
        results = []
        runner = threading.Thread(target=lambda: results.extend(executor.run([use], registry)))
        runner.start()
        eventually(lambda: conn.tasks, what="the task to be created")
        assert executor.cancel("cancel-1")
        runner.join(WAIT)
        assert results[0].status == "error"
        eventually(lambda: conn.get_task(conn.tasks[0].task_id).status == "cancelled", what="the task cancelled")
    finally:
        conn.use_tasks = False


def test_a_server_that_runs_a_task_augmented_call_at_once_gives_its_result():
    """A receiver that does not support tasks for a request processes it normally (spec 2025-11-25):
    the SDK's MCPServer (tests/mcp_modern_server.py) answers a task-augmented call with the result."""
    import sys

    from workbench.mcp import connect

    with connect(
        command=[sys.executable, str(ROOT / "tests" / "mcp_modern_server.py")],
        registry=ToolRegistry(),
        cwd=str(ROOT),
        env={"PYTHONPATH": str(ROOT)},
        connect_timeout=WAIT,
    ) as conn:
        result = conn._run_sync(conn._call_tool_as_task("add_note", {"name": "now"}), WAIT)
        assert result.content[0].text == "added notes://now" and conn.tasks == []
        # were it listed as "optional": a server without the tasks capability gets no task-augmented call
        conn._task_support["add_note"] = "optional"
        with pytest.raises(ValueError, match="does not declare capabilities.tasks.requests.tools.call"):
            conn.start_task("add_note", {"name": "again"})
        conn.use_tasks = True
        assert conn.call_tool("add_note", {"name": "plain"}).content[0].text == "added notes://plain"
        assert conn.tasks == []


def test_status_notifications_update_the_known_tasks_without_polling(everything):
    conn, *_ = everything
    task = conn.start_task("simulate-research-query", {"topic": "notified"})
    try:
        seen = eventually(
            lambda: next(
                (t for t in conn.tasks if t.task_id == task.task_id and t.status_message == "Analyzing content..."),
                None,
            ),
            what="a notifications/tasks/status for the second stage",
        )
        assert seen.status == "working"
        assert not any(
            m.method == "tasks/get" and m.message["params"]["taskId"] == task.task_id
            for m in conn.messages
            if m.direction == "sent"
        )
    finally:
        conn.cancel_task(task.task_id)
