"""``ChatDriver``: runs one Send — every column's agent run on the same prompt — and can stop it.

The runs go on the kernel's event loop when one is running (so the kernel stays live while models
answer and step-mode calls wait), else on a thread of their own. ``PlaygroundRun`` is what a Send
returns: ``await`` it, or ``.result()`` where blocking cannot deadlock.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from typing import Any, Callable, Optional, Sequence

__all__ = ["ChatDriver", "PlaygroundRun"]


class PlaygroundRun:
    """One Send: the runs of every column on the same prompt.

    ``await run`` (or ``run.result()``, where blocking cannot deadlock) gives the list of
    ``Transcript`` (one per column, ``None`` for a column whose model could not be built).
    """

    def __init__(self, future: concurrent.futures.Future, loop_thread: Optional[int]) -> None:
        self._future = future
        self._loop_thread = loop_thread  # the thread whose event loop runs it (None: a thread of its own)

    def done(self) -> bool:
        """True once every column's run ended."""
        return self._future.done()

    def result(self, timeout: Optional[float] = None) -> list:
        """The transcripts; blocks until the runs end. ``RuntimeError`` on the thread whose event loop
        runs them (waiting there would deadlock: ``await`` the run instead)."""
        if not self._future.done() and self._loop_thread == threading.get_ident():
            raise RuntimeError("this run goes on on this thread's event loop: `await` it instead of .result()")
        return self._future.result(timeout=timeout)

    def __await__(self) -> Any:
        return asyncio.wrap_future(self._future).__await__()

    def __repr__(self) -> str:
        return f"<PlaygroundRun {'done' if self._future.done() else 'running'}>"


class ChatDriver:
    """Starts and stops Sends; tells ``on_busy(True)`` as one starts and ``on_end(error)`` (``None``
    when every run ended) then ``on_busy(False)`` as it ends."""

    def __init__(self, on_busy: Callable[[bool], None], on_end: Callable[[Optional[BaseException]], None]) -> None:
        self._on_busy = on_busy
        self._on_end = on_end
        self.running = False
        self.last: Optional[PlaygroundRun] = None
        self._tasks: set[Any] = set()
        self._current: Optional[tuple] = None  # (event loop, the column runs' tasks) of the Send going on

    def start(self, prompt: str, columns: Sequence[Any], settings: dict[str, Any]) -> PlaygroundRun:
        """Run ``column.arun(prompt, **settings)`` for every column at once; returns at once."""
        if self.running:
            raise RuntimeError("the previous Send still runs: wait for it (or Approve / Deny its calls)")
        self.running = True
        self._on_busy(True)
        done: concurrent.futures.Future = concurrent.futures.Future()

        async def go() -> None:
            try:
                loop = asyncio.get_running_loop()
                runs = [loop.create_task(column.arun(prompt, **settings)) for column in columns]
                self._current = (loop, runs)
                transcripts = await asyncio.gather(*runs)
                self._on_end(None)
                done.set_result(list(transcripts))
            except BaseException as exc:  # noqa: BLE001 - handed to whoever awaits the run, and shown
                self._on_end(exc)
                done.set_exception(exc)
            finally:
                self._current = None
                self.running = False
                self._on_busy(False)

        try:
            loop: Optional[asyncio.AbstractEventLoop] = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is not None:
            task = loop.create_task(go())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            run = PlaygroundRun(done, threading.get_ident())
        else:
            threading.Thread(target=lambda: asyncio.run(go()), name="workbench-playground", daemon=True).start()
            run = PlaygroundRun(done, None)
        self.last = run
        return run

    def stop(self) -> bool:
        """Cancel the Send going on (each run ends ``cancelled``). False if nothing was running."""
        current = self._current
        if current is None:
            return False
        loop, runs = current
        for task in runs:
            loop.call_soon_threadsafe(task.cancel)
        return True
