"""MCP tasks (protocol 2025-11-25, SEP-1686) on the client: task-augmented ``tools/call``,
``tasks/get`` / ``tasks/result`` / ``tasks/list`` / ``tasks/cancel``, mixed into
:class:`~workbench.mcp.McpConnection`.

A tool whose ``execution.taskSupport`` is ``"required"`` is called as a task (``"optional"`` ones
too with ``connect(..., use_tasks=True)`` or ``call_tool(..., as_task=True)``): the call sends
``tools/call`` with a ``task`` field, the server answers at once with the task, the client polls
``tasks/get`` every ``pollInterval`` (the task's status message goes to the call's progress) and,
once the task is done or needs input, fetches the result with ``tasks/result`` — the server
delivers its elicitation/sampling requests while that request is open. Cancelling the call sends
``tasks/cancel``.

The SDK (mcp 2.3) has the task *types* but no task methods: ``tasks/*`` go out through the
session's ``send_request`` (their results are not validated against a protocol table), and the
task-augmented ``tools/call`` through the session's dispatcher directly, because ``send_request``
validates every ``tools/call`` answer as a ``CallToolResult`` and a ``CreateTaskResult`` is not one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from typing import TYPE_CHECKING, Any, Callable, Optional

import mcp.types as types
from mcp.shared.exceptions import MCPError

from workbench.mcp._record import Record

if TYPE_CHECKING:  # pragma: no cover
    from mcp.client import Client
    from mcp.shared.dispatcher import CallOptions

__all__ = ["TERMINAL", "TaskFeatures", "task_support"]

logger = logging.getLogger("workbench.mcp")

TERMINAL = frozenset({"completed", "failed", "cancelled"})  #: task statuses that never change again
_DEFAULT_POLL = 1.0  # seconds between tasks/get when the server suggests no pollInterval
_POLL_BOUNDS = (0.05, 30.0)  # a server's pollInterval is clamped to this range (seconds)
_STATUS_METHOD = "notifications/tasks/status"


def task_support(mcp_tool: types.Tool) -> str:
    """The tool's ``execution.taskSupport``: ``"required"``, ``"optional"`` or ``"forbidden"``."""
    execution = getattr(mcp_tool, "execution", None)
    return getattr(execution, "task_support", None) or "forbidden"


def _poll_seconds(task: types.Task) -> float:
    interval = task.poll_interval
    if interval is None:
        return _DEFAULT_POLL
    low, high = _POLL_BOUNDS
    return min(max(interval / 1000.0, low), high)


async def _send_raw(
    client: "Client", method: str, params: dict[str, Any], *, timeout: Optional[float] = None
) -> dict[str, Any]:
    """Send a request and return the raw result dict, without the SDK's per-method result check
    (see the module docstring). Headers are stamped as the session stamps every request."""
    session = client.session
    data: dict[str, Any] = {"method": method, "params": params}
    opts: CallOptions = {}
    session._stamp(data, opts)  # the protocol-version header / _meta every request carries
    if timeout is not None:
        opts["timeout"] = timeout
    return await session._dispatcher.send_raw_request(method, data.get("params"), opts)


class TaskFeatures:
    """``list_tasks``, ``get_task``, ``cancel_task``, ``task_result``, ``start_task`` and the
    task-augmented calls of the proxies. Relies on the connection's ``_run_sync``,
    ``_require_client``, ``server_capabilities`` and ``_messages``."""

    use_tasks: bool  #: call ``taskSupport: "optional"`` tools as tasks too

    def _init_tasks(self, use_tasks: bool = False) -> None:
        self.use_tasks = bool(use_tasks)
        self._task_support: dict[str, str] = {}  # remote tool name -> taskSupport
        self._known_tasks: dict[str, types.Task] = {}  # task id -> latest state seen, creation order
        self._task_tools: dict[str, str] = {}  # task id -> the tool it runs
        self._task_updates: Record[types.Task] = Record(limit=1000)
        self._messages.subscribe(self._watch_task_status)  # type: ignore[attr-defined]

    # -- capability --------------------------------------------------------------------------------
    @property
    def supports_tasks(self) -> bool:
        """True when the server accepts task-augmented ``tools/call`` (``capabilities.tasks.requests.tools.call``)."""
        caps = self.server_capabilities  # type: ignore[attr-defined]
        tasks = getattr(caps, "tasks", None) if caps is not None else None
        requests = getattr(tasks, "requests", None)
        return getattr(getattr(requests, "tools", None), "call", None) is not None

    def _task_refusal(self, mcp_tool: types.Tool) -> Optional[str]:
        """Why a ``taskSupport: "required"`` tool cannot be called here (``None`` if it can)."""
        if task_support(mcp_tool) == "required" and not self.supports_tasks:
            return (
                "requires task-augmented calls (execution.taskSupport = 'required') but the server does not "
                "declare capabilities.tasks.requests.tools.call"
            )
        return None

    def _wants_task(self, remote_name: str, as_task: Optional[bool]) -> bool:
        support = self._task_support.get(remote_name, "forbidden")
        if support == "required":
            return True
        if support == "optional":
            wanted = self.use_tasks if as_task is None else bool(as_task)
            if wanted and not self.supports_tasks:
                if as_task:
                    raise ValueError(
                        f"MCP tool {remote_name!r}: the server does not declare "
                        "capabilities.tasks.requests.tools.call, so it takes no task-augmented calls"
                    )
                return False  # use_tasks: a server without tasks gets plain calls
            return wanted
        if as_task:
            raise ValueError(
                f"MCP tool {remote_name!r} does not support task-augmented calls (execution.taskSupport is {support!r})"
            )
        return False

    # -- the record of tasks -------------------------------------------------------------------------
    @property
    def tasks(self) -> list[types.Task]:
        """The tasks this connection created or saw, newest first, each in the latest state seen."""
        return list(self._known_tasks.values())[::-1]

    def task_tool(self, task_id: str) -> Optional[str]:
        """The server's name of the tool a task (created by this connection) runs."""
        return self._task_tools.get(task_id)

    def on_task(self, callback: Callable[[types.Task], Any]) -> Callable[[], None]:
        """Call ``callback(Task)`` on each new task state seen (created, polled, status notification,
        cancelled); returns an unsubscribe. It may run on the connection's thread."""
        return self._task_updates.subscribe(callback)

    def _seen(self, task: types.Task) -> types.Task:
        task = types.Task.model_validate(task.model_dump(by_alias=True))  # GetTaskResult etc. → plain Task
        previous = self._known_tasks.get(task.task_id)
        self._known_tasks[task.task_id] = task
        if previous is None or previous.model_dump() != task.model_dump():
            self._task_updates.add(task)
        return task

    def _watch_task_status(self, message: Any) -> None:
        if message.direction == "received" and message.method == _STATUS_METHOD:
            try:
                self._seen(types.Task.model_validate(message.message.get("params") or {}))
            except Exception:  # noqa: BLE001 - a malformed notification is only not followed
                logger.debug("ignored a malformed %s", _STATUS_METHOD, exc_info=True)

    # -- task methods ----------------------------------------------------------------------------------
    async def _task_request(self, request: Any, result_type: Any) -> Any:
        client: "Client" = self._require_client()  # type: ignore[attr-defined]
        return await client.session.send_request(request, result_type)

    async def _get_task(self, task_id: str) -> types.Task:
        request = types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=task_id))
        return self._seen(await self._task_request(request, types.GetTaskResult))

    async def _cancel_task(self, task_id: str) -> types.Task:
        request = types.CancelTaskRequest(params=types.CancelTaskRequestParams(task_id=task_id))
        return self._seen(await self._task_request(request, types.CancelTaskResult))

    async def _task_result(self, task_id: str) -> types.CallToolResult:
        client: "Client" = self._require_client()  # type: ignore[attr-defined]
        raw = await _send_raw(client, "tasks/result", {"taskId": task_id})
        return types.CallToolResult.model_validate(raw)

    async def _start_task(
        self, name: str, arguments: dict[str, Any], *, ttl: Optional[int] = None, progress_token: Optional[str] = None
    ) -> types.Task | types.CallToolResult:
        """The created task — or the tool's result when the server ran the call at once (a receiver
        that does not support tasks for a request processes it normally, as the spec says)."""
        client: "Client" = self._require_client()  # type: ignore[attr-defined]
        params: dict[str, Any] = {"name": name, "arguments": arguments, "task": {} if ttl is None else {"ttl": ttl}}
        if progress_token is not None:
            params["_meta"] = {"progressToken": progress_token}
        raw = await _send_raw(client, "tools/call", params)
        if "task" not in raw:
            return types.CallToolResult.model_validate(raw)
        task = self._seen(types.CreateTaskResult.model_validate(raw).task)
        self._task_tools[task.task_id] = name
        return task

    async def _call_tool_as_task(
        self, name: str, arguments: dict[str, Any], progress: Any = None, ttl: Optional[int] = None
    ) -> types.CallToolResult:
        """Create the task, poll it, fetch its result; ``tasks/cancel`` if this coroutine is cancelled.
        ``progress(progress, total, message)`` gets the server's progress and each status change."""
        last = [0.0, None]  # the last progress and total, repeated with status messages

        async def on_progress(value: float, total: Optional[float], message: Optional[str]) -> None:
            last[0], last[1] = value, total
            if progress is not None:
                await progress(value, total, message)

        # The progress token stays valid for the task's lifetime, but the SDK's dispatcher forgets a
        # request's progress handler once it is answered (here: with the task at once), so progress
        # notifications are picked up from the connection's message record instead.
        token = f"task-call-{uuid.uuid4().hex}"
        loop = asyncio.get_running_loop()

        def follow(message: Any) -> None:
            params = message.message.get("params") or {}
            if (
                message.direction == "received"
                and message.method == "notifications/progress"
                and params.get("progressToken") == token
            ):
                loop.create_task(on_progress(params.get("progress", 0.0), params.get("total"), params.get("message")))

        unfollow = self._messages.subscribe(follow)  # type: ignore[attr-defined]
        try:
            return await self._follow_task(name, arguments, ttl, progress, token, last)
        finally:
            unfollow()

    async def _follow_task(
        self, name: str, arguments: dict[str, Any], ttl: Optional[int], progress: Any, token: str, last: list
    ) -> types.CallToolResult:
        task = await self._start_task(name, arguments, ttl=ttl, progress_token=token if progress else None)
        if isinstance(task, types.CallToolResult):
            return task
        shown: Optional[tuple] = None
        try:
            while True:
                if progress is not None and (task.status, task.status_message) != shown:
                    shown = (task.status, task.status_message)
                    text = f"task {task.status}" + (f": {task.status_message}" if task.status_message else "")
                    await progress(last[0], last[1], text)
                if task.status in TERMINAL or task.status == "input_required":
                    break
                await asyncio.sleep(_poll_seconds(task))
                task = await self._get_task(task.task_id)
            if task.status == "cancelled":
                raise McpTaskError(
                    f"MCP task {task.task_id} of {name!r} was cancelled"
                    + (f": {task.status_message}" if task.status_message else "")
                )
            # completed, failed (the result says why) or input_required (tasks/result delivers the
            # server's requests and waits for the end)
            try:
                result = await self._task_result(task.task_id)
            except MCPError as exc:
                if task.status != "failed":
                    raise
                # a failed task may have no result to fetch: its status message is the reason
                raise McpTaskError(
                    f"MCP task {task.task_id} of {name!r} failed: {task.status_message or exc.message}"
                ) from None
        except asyncio.CancelledError:
            await self._cancel_quietly(task.task_id)
            raise
        if task.status not in TERMINAL:  # note the final state (the server may have dropped the task by now)
            with contextlib.suppress(Exception):
                await self._get_task(task.task_id)
        return result

    async def _cancel_quietly(self, task_id: str) -> None:
        try:
            await asyncio.wait_for(self._cancel_task(task_id), 5.0)
        except Exception as exc:  # noqa: BLE001 - the call is cancelled either way
            logger.warning("tasks/cancel of %s failed: %s", task_id, exc)

    # -- public API --------------------------------------------------------------------------------------
    def list_tasks(self, timeout: Optional[float] = 30.0) -> list[types.Task]:
        """``tasks/list`` (every page) when the server declares ``capabilities.tasks.list``, else the
        tasks this connection knows of (:attr:`tasks`)."""
        caps = self.server_capabilities  # type: ignore[attr-defined]
        if getattr(getattr(caps, "tasks", None), "list", None) is None:
            return self.tasks

        async def go() -> list[types.Task]:
            items: list[types.Task] = []
            cursor: Optional[str] = None
            for _ in range(100):
                request = types.ListTasksRequest(params=types.PaginatedRequestParams(cursor=cursor))
                page = await self._task_request(request, types.ListTasksResult)
                items.extend(self._seen(task) for task in page.tasks)
                cursor = page.next_cursor
                if not cursor:
                    break
            return items

        return self._run_sync(go(), timeout)  # type: ignore[attr-defined]

    def get_task(self, task_id: str, timeout: Optional[float] = 30.0) -> types.Task:
        """``tasks/get``: the task's current state."""
        return self._run_sync(self._get_task(str(task_id)), timeout)  # type: ignore[attr-defined]

    def cancel_task(self, task_id: str, timeout: Optional[float] = 30.0) -> types.Task:
        """``tasks/cancel``: ask the server to cancel the task; its state after that."""
        return self._run_sync(self._cancel_task(str(task_id)), timeout)  # type: ignore[attr-defined]

    def task_result(self, task_id: str, timeout: Optional[float] = None) -> types.CallToolResult:
        """``tasks/result``: waits until the task is done and returns its ``CallToolResult``."""
        return self._run_sync(self._task_result(str(task_id)), timeout)  # type: ignore[attr-defined]

    def start_task(
        self,
        name: str,
        arguments: Optional[dict[str, Any]] = None,
        *,
        ttl: Optional[int] = None,
        timeout: Optional[float] = 30.0,
    ) -> types.Task:
        """Send a task-augmented ``tools/call`` and return the created task at once (poll it with
        :meth:`get_task`, fetch its result with :meth:`task_result`). ``name`` is the server's tool
        name or a proxy's registered name; ``ttl`` (ms) asks the server to keep the task that long."""
        proxy = getattr(self, "proxies", {}).get(name)
        remote = proxy.remote_name if proxy is not None else name
        self._wants_task(remote, True)  # a clear error for a tool that forbids tasks
        task = self._run_sync(self._start_task(remote, dict(arguments or {}), ttl=ttl), timeout)  # type: ignore[attr-defined]
        if not isinstance(task, types.Task):
            raise McpTaskError(
                f"MCP server {getattr(self, 'label', '?')} ran {name!r} at once instead of creating a "
                "task (it does not support tasks for it): call it with call_tool()"
            )
        return task


class McpTaskError(RuntimeError):
    """A task-augmented call did not produce a result: the task was cancelled, or ``start_task``
    got the tool's result at once instead of a task."""
