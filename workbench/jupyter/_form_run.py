"""``FormRunner``: one form's calls — start, follow (progress, log, approval), finish, cancel.

Running never blocks the kernel: the Run button schedules ``executor.execute`` on the running event loop
(the kernel's) or, without one, on a background thread. ``run()`` is the synchronous programmatic path
(tests, scripts) — except for a call that needs the user's approval made where blocking would deadlock (a
notebook cell): it returns a :class:`PendingRun` at once, and ``await run_async()`` waits for the click
without blocking the loop that delivers it.

It drives the form through the form's public parts: ``prepare()`` (the checked call, or the error result of
invalid input), ``outcome``, ``progress_panel``, ``saver``, ``history_box``, ``set_runnable``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import sys
import threading
import time
from typing import Any, Optional

from workbench._html import display_status
from workbench.secrets import mask_arguments, mask_result, secret_values
from workbench.types import Permission, ToolResult, error_result, utc_now_iso

__all__ = ["FormRunner", "PendingRun", "KEY_RUN_DELAY"]

#: seconds a keyboard Run waits, so the typed value's own sync message (sent just before) lands first
KEY_RUN_DELAY = 0.05


class FormRunner:
    """The call state of one form: ``running``, ``current_id``, ``done`` (a future of the last call's
    result), ``task``, ``tool_use`` (the call on screen, secrets masked), ``result``, ``shown_result``
    (``result`` masked) and ``secrets`` (the call's secret values)."""

    def __init__(self, form: Any) -> None:
        self.form = form
        self.running = False
        self.current_id: Optional[str] = None
        self.done: Optional[concurrent.futures.Future] = None
        self.task: Any = None
        self.tool_use: Optional[dict] = None
        self.result: Optional[ToolResult] = None
        self.shown_result: Optional[ToolResult] = None
        self.secrets: list[str] = []
        self._unsubscribe: Any = None
        self.lock = form.progress_panel.lock

    # -- the ways to run -------------------------------------------------------------------------------
    def run(self) -> "ToolResult | PendingRun":
        """See ``ToolForm.run``."""
        form = self.form
        if self.needs_prompt() and blocking_would_deadlock():
            done = self.submit()
            if done is None:
                return self.result  # type: ignore[return-value]  # invalid input: the error result
            return PendingRun(form, done)
        prepared = self._prepare()
        if isinstance(prepared, ToolResult):
            return prepared
        self.start(prepared)
        try:
            result = form.workbench.executor.run(
                [prepared], form.registry(), log=form.workbench.log, invocation_state=form.invocation_state()
            )[0]
        except BaseException as exc:  # noqa: BLE001 - the executor should not raise; keep the form usable
            result = self.failed(prepared, exc)
        self.finish(result)
        return result

    async def run_async(self) -> ToolResult:
        """See ``ToolForm.run_async``."""
        prepared = self._prepare()
        if isinstance(prepared, ToolResult):
            return prepared
        self.start(prepared)
        task = asyncio.get_running_loop().create_task(self.execute(prepared))
        self.task = task
        return await task

    def submit(self) -> Optional[concurrent.futures.Future]:
        """See ``ToolForm.submit``."""
        prepared = self._prepare()
        if isinstance(prepared, ToolResult):
            return None
        self.start(prepared)
        done = self.done
        loop = running_loop()
        if loop is not None:
            self.task = loop.create_task(self.execute(prepared))
        else:
            thread = threading.Thread(
                target=lambda: asyncio.run(self.execute(prepared)),
                name=f"workbench-form-{self.form.spec.name}",
                daemon=True,
            )
            self.task = thread
            thread.start()
        return done

    def _prepare(self) -> "dict | ToolResult":
        if self.running:
            raise RuntimeError(f"The form of '{self.form.spec.name}' is already running a call (cancel it first)")
        prepared = self.form.prepare()
        if isinstance(prepared, ToolResult):
            self.result = prepared
        return prepared

    async def execute(self, tool_use: dict) -> ToolResult:
        """Run ``tool_use`` on the running loop and finish it."""
        form = self.form
        try:
            results = await form.workbench.executor.execute(
                [tool_use], form.registry(), log=form.workbench.log, invocation_state=form.invocation_state()
            )
            result = results[0]
        except BaseException as exc:  # noqa: BLE001 - includes the task being cancelled
            result = self.failed(tool_use, exc)
        self.finish(result)
        return result

    def wait(self, timeout: Optional[float] = None) -> Optional[ToolResult]:
        """See ``ToolForm.wait``."""
        done = self.done
        if done is None:
            return self.result
        self.check_can_block(done)
        return done.result(timeout=timeout)

    def check_can_block(self, done: concurrent.futures.Future) -> None:
        """``RuntimeError`` when waiting for ``done`` here would block the loop its call runs on."""
        if done.done():
            return
        task, loop = self.task, running_loop()
        if loop is not None and isinstance(task, asyncio.Future) and task.get_loop() is loop:
            raise RuntimeError(
                f"Waiting for '{self.form.spec.name}' here would block the event loop its call runs on (the kernel's), "
                "so it could never finish: use `await form.run_async()` (or `await` the PendingRun), or read "
                "`form.result` once the form shows the result"
            )

    def needs_prompt(self) -> bool:
        """True when a call would wait for this form's Approve / Deny (and not for a user-set approver)."""
        form = self.form
        try:
            permission = Permission.coerce(form.tool.permission)
        except (TypeError, ValueError):
            return False  # the executor reports the malformed permission as the call's error
        approver = getattr(form.workbench.executor, "approver", None)
        return permission is Permission.ASK_USER and approver == form.workbench._approve

    # -- the call's life -------------------------------------------------------------------------------
    def start(self, tool_use: dict) -> None:
        """A checked call starts: show it (secrets masked) and follow the executor's events."""
        form = self.form
        with self.lock:
            self.running = True
            self.current_id = tool_use["toolUseId"]
            self.done = concurrent.futures.Future()
        # what shows (and is saved with the notebook: request, code, pins) has the secrets masked; the call has them
        secret = form.spec.secret_parameters
        self.secrets = secret_values(tool_use["input"], secret)
        shown = {**tool_use, "input": mask_arguments(tool_use["input"], secret)} if secret else tool_use
        self.tool_use = shown
        self.result = self.shown_result = None
        form.progress_panel.start(self.done)
        form.outcome.started(shown)
        form.run_button.disabled = True
        form.cancel_button.disabled = False
        form.saver.ready(False)
        form.shortcuts.busy = True
        form.workbench._approval_handlers[tool_use["toolUseId"]] = form.approval.ask
        self._unsubscribe = form.workbench.executor.on_event(self._on_event)

    def _on_event(self, event: Any) -> None:
        if event.tool_use_id != self.current_id:
            return
        if event.kind == "progress" and event.progress is not None:
            self.form.progress_panel.report(float(event.progress), event.message)
        elif event.kind == "log" and event.message:
            self.form.progress_panel.log(event.message)

    def finish(self, result: ToolResult) -> None:
        """The call ended with ``result``: show it (masked), log it in the history, free the controls."""
        form = self.form
        form.progress_panel.flush()
        if form.elicitation is not None:  # a question the ended run left open (a cancelled sync tool) is withdrawn
            form.elicitation.cancel()
        unsubscribe, self._unsubscribe = self._unsubscribe, None
        if unsubscribe is not None:
            unsubscribe()
        form.workbench._approval_handlers.pop(result.tool_use_id, None)
        self.result = result
        shown = self.shown_result = mask_result(result, self.secrets)
        form.history_box.refresh()
        status = display_status(result)
        cancelled = status == "cancelled"
        ours = self.tool_use is not None and self.tool_use.get("toolUseId") == result.tool_use_id
        form.outcome.finished(shown, form.spec.returns, pinnable=ours)
        with self.lock:
            self.current_id = None
            form.progress_panel.finish(status, result.metadata.get("latency_ms"))
            form.run_button.disabled = form.disconnected
            form.cancel_button.disabled = True
            form.saver.ready(not cancelled and ours, cancelled=cancelled)
            form.shortcuts.busy = False
            self.running = False
            done = self.done
            if done is not None and not done.done():
                done.set_result(result)

    def failed(self, tool_use: dict, exc: BaseException) -> ToolResult:
        """The error result of a call the executor raised on (it should not)."""
        now = utc_now_iso()
        return error_result(
            tool_use["toolUseId"],
            f"{type(exc).__name__}: {exc}",
            type(exc).__name__,
            tool_name=self.form.spec.name,
            started_at=now,
            completed_at=now,
        )

    def cancel(self) -> bool:
        """Cancel the running call (a pending approval is denied). Returns False if nothing was running."""
        approval, executor = self.form.approval, self.form.workbench.executor
        if approval.pending:
            return approval.deny()
        use_id = self.current_id
        if use_id is None:
            return False
        if executor.cancel(use_id):
            return True

        def retry() -> None:  # not yet registered as running (still starting): retry briefly
            for _ in range(40):
                time.sleep(0.025)
                if self.current_id != use_id:
                    return
                if approval.pending:
                    approval.deny()
                    return
                if executor.cancel(use_id):
                    return

        threading.Thread(target=retry, daemon=True).start()
        return True

    def last_run(self) -> "Optional[tuple[dict, ToolResult]]":
        """The last finished call as ``(input, result)`` (masked), or None."""
        result, use = self.result, self.tool_use
        if result is None or use is None or use.get("toolUseId") != result.tool_use_id or self.running:
            return None
        return use.get("input") or {}, self.shown_result or result

    def forget(self) -> None:
        """No call on screen any more (a reset form)."""
        self.result = self.shown_result = None


class PendingRun:
    """A call that ``ToolForm.run()`` started but that waits for the user's Approve / Deny.

    Displayed in a cell it shows the form's approval prompt; ``await handle`` gives the
    ``ToolResult`` after the click; ``done()`` / ``result()`` poll it (``result()`` refuses to block
    the event loop the call needs). The result also lands in the form and in the log.
    """

    def __init__(self, form: Any, future: concurrent.futures.Future) -> None:
        self.form = form
        self.tool_use_id: str = (form.tool_use or {}).get("toolUseId", "")
        self._future = future

    def done(self) -> bool:
        """True once the user decided and the call ended."""
        return self._future.done()

    def result(self, timeout: Optional[float] = None) -> ToolResult:
        """The ``ToolResult``; blocks until the call ends (``RuntimeError`` where that would deadlock)."""
        self.form.runner.check_can_block(self._future)
        return self._future.result(timeout=timeout)

    def __await__(self) -> Any:
        return asyncio.wrap_future(self._future).__await__()

    def _text(self) -> str:
        name = self.form.spec.name
        if self._future.done():
            result = self._future.result()
            return f"<PendingRun {name!r}: done, status={result.status}>"
        return (
            f"<PendingRun {name!r}: waiting for your approval — click Approve or Deny in the form; "
            f"the result will appear there and in form.result (or `await` this handle)>"
        )

    def __repr__(self) -> str:
        return self._text()

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict:
        if self._future.done():
            return {"text/plain": self._text()}
        bundle = self.form.approval.widget._repr_mimebundle_() or {}  # the same prompt, shown in the cell
        return {**bundle, "text/plain": self._text()}


def blocking_would_deadlock() -> bool:
    """True where a widget click can only arrive once this thread returns: the thread runs an event loop
    (a cell in ipykernel runs inside the kernel's loop), or it is the main thread of a kernel."""
    if running_loop() is not None:
        return True
    if threading.current_thread() is not threading.main_thread() or "IPython" not in sys.modules:
        return False
    from IPython import get_ipython

    return getattr(get_ipython(), "kernel", None) is not None


def running_loop() -> Optional[asyncio.AbstractEventLoop]:
    """The event loop running in this thread (the kernel's, inside a widget callback), or None."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
