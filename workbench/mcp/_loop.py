"""The connection's background thread: an event loop of its own, and calls submitted to it.

The SDK's client session is anyio-based and must stay open across calls, so each connection owns a
thread running its own loop; calls from any thread or loop are submitted to it with
``asyncio.run_coroutine_threadsafe``. Mixed into :class:`~workbench.mcp.McpConnection` (it relies on
its ``label`` and ``_closed``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
import time
from typing import Any, Optional

from workbench.mcp._errors import McpConnectionError

__all__ = ["LoopThread"]


class LoopThread:
    """The loop thread of a connection: started by :meth:`_start_loop`, stopped by :meth:`_stop_loop`."""

    label: str
    _closed: bool

    def _start_loop(self, label: str) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run_loop, name=f"workbench-mcp {label}", daemon=True)
        self._thread.start()

    def _run_loop(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_forever()
        finally:
            try:
                pending = [t for t in asyncio.all_tasks(self._loop) if not t.done()]
                for task in pending:
                    task.cancel()
                if pending:
                    self._loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
                self._loop.run_until_complete(self._loop.shutdown_asyncgens())
            finally:
                self._loop.close()

    def _in_loop_thread(self) -> bool:
        return threading.current_thread() is self._thread

    def _run_sync(self, coro: Any, timeout: Optional[float] = None) -> Any:
        if self._in_loop_thread():
            coro.close()
            raise RuntimeError(
                "McpConnection: a blocking call from the connection's own event loop would deadlock; "
                "await the tool's acall() instead"
            )
        if self._closed or self._loop.is_closed():
            coro.close()
            raise McpConnectionError(f"MCP connection to {self.label} is closed")
        future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise TimeoutError(f"MCP server {self.label} did not answer within {timeout:g} s") from None

    async def _run_async(self, coro: Any) -> Any:
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            return await coro
        if self._closed or self._loop.is_closed():
            coro.close()
            raise McpConnectionError(f"MCP connection to {self.label} is closed")
        future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            future.cancel()  # cancels the request on the connection loop (the SDK tells the server)
            raise

    def _submit_and_wait(self, coro: Any, deadline: float) -> None:
        """Run ``coro`` on the loop until ``deadline`` (``time.monotonic()``); its outcome is not reported
        (teardown)."""
        if not self._loop.is_closed() and self._thread.is_alive() and not self._in_loop_thread():
            future = asyncio.run_coroutine_threadsafe(coro, self._loop)
            with contextlib.suppress(BaseException):
                future.result(max(0.0, deadline - time.monotonic()))
        else:
            coro.close()

    def _stop_loop(self, deadline: float) -> None:
        """Stop the loop and wait for its thread until ``deadline`` (at least a moment)."""
        if not self._loop.is_closed():
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self._loop.stop)
        if not self._in_loop_thread():
            self._thread.join(max(0.05, deadline - time.monotonic()))
