"""Async helpers shared by the executors, the agent loop and the model clients: run a coroutine from
sync code (also inside a running loop), and the small pieces the executors' fast async path needs."""

from __future__ import annotations

import asyncio
import concurrent.futures
import types
from typing import Any

__all__ = ["run_sync", "await_value", "resume_started", "uncancel"]


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


async def await_value(awaitable: Any) -> Any:
    """A coroutine awaiting ``awaitable`` (for ``run_sync`` of an awaitable that is not a coroutine)."""
    return await awaitable


def uncancel(task: Any) -> None:
    """Undo the ``task.cancel()`` of a cancelled call (Python ≥ 3.11), so the task carries on."""
    undo = getattr(task, "uncancel", None)
    if undo is not None and task.cancelling():
        undo()


@types.coroutine
def resume_started(coro: Any, waits_for: Any) -> Any:
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
