"""The connection's session with the server: opened on the loop thread, watched, and ended.

The session lives in one task on the connection's loop (:meth:`Session._session_main`); the server
closing its side, a liveness probe left unanswered or :meth:`disconnect` end it, and the
disconnect listeners (forms showing a disconnected tool) are told once. Mixed into
:class:`~workbench.mcp.McpConnection`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from typing import Any, Callable, Optional

import mcp.types as types
from mcp.client import Client

from workbench.mcp._eras import answers, keep_alive
from workbench.mcp._errors import McpConnectionError
from workbench.mcp._lenient import ToolListRepair
from workbench.mcp._loop import LoopThread
from workbench.mcp._record import wire_dict
from workbench.mcp._wire import watch

__all__ = ["Session"]

logger = logging.getLogger("workbench.mcp")


class Session(LoopThread):
    """The session part of a connection: its state, its task on the loop, and how it ends."""

    label: str
    keepalive: Optional[float]

    def _init_session(self, transport: Any, *, read_timeout: Optional[float], mode: Any) -> None:
        self._transport = transport
        self._mode = mode
        self._read_timeout = read_timeout
        self._client: Optional[Client] = None
        self._closed = False
        self._close_lock = threading.Lock()
        self._ended = False  # disconnected, or the session ended by itself
        self._end_reason = "the server ended it"  # said by calls after the session ended by itself
        self._disconnect_callbacks: list[Callable[[], Any]] = []
        self._stop: Optional[asyncio.Event] = None
        self._main: Optional[asyncio.Task] = None
        self._capabilities: Optional[types.ServerCapabilities] = None
        self._instructions: Optional[str] = None
        self.server_info: Optional[types.Implementation] = None
        self.protocol_version: Optional[str] = None
        self._tool_lists = ToolListRepair(lambda: self.protocol_version)
        self._process: Any = None  # the ServerProcess of a command= connection (set by connect())

    # -- on the background loop ----------------------------------------------------------------------
    async def _open(self) -> None:
        self._stop = asyncio.Event()
        ready: asyncio.Future = asyncio.get_running_loop().create_future()
        self._main = asyncio.ensure_future(self._session_main(ready))
        await ready

    async def _session_main(self, ready: asyncio.Future) -> None:
        from workbench._version import __version__

        try:
            client = Client(
                watch(self._transport, self._stream_ended, self._record_wire, self._tool_lists),
                read_timeout_seconds=self._read_timeout,
                mode=self._mode,
                client_info=types.Implementation(name="tool-workbench", version=__version__),
                **self._client_callbacks(),  # type: ignore[attr-defined]  # ServerRequests
            )
            async with client:
                self._client = client
                self.server_info = client.server_info
                self.protocol_version = client.protocol_version
                self._capabilities = client.server_capabilities
                self._instructions = client.instructions
                ready.set_result(None)
                assert self._stop is not None
                helpers = [asyncio.ensure_future(self._follow_changes(client))]  # type: ignore[attr-defined]
                if self.keepalive:
                    helpers.append(asyncio.ensure_future(keep_alive(client, self.keepalive, self._hung)))
                try:
                    await self._stop.wait()
                finally:
                    for helper in helpers:
                        helper.cancel()
                        with contextlib.suppress(BaseException):
                            await helper
        except BaseException as exc:  # noqa: BLE001 - reported to connect() or logged
            if not ready.done():
                ready.set_exception(exc if isinstance(exc, Exception) else McpConnectionError(repr(exc)))
            elif not isinstance(exc, asyncio.CancelledError):
                logger.warning("MCP connection to %s ended with %s: %s", self.label, type(exc).__name__, exc)
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            self._client = None
            if ready.done() and not ready.cancelled() and ready.exception() is None:
                self._notify_disconnected()  # the session ended (closed or lost): proxies are no longer live

    def _record_wire(self, direction: str, item: Any) -> None:
        self._record_message(direction, wire_dict(item))  # type: ignore[attr-defined]  # ServerRequests

    def _stream_ended(self) -> None:
        """The server closed the connection (on the loop): end the session, which marks it disconnected."""
        if self._stop is not None and not self._stop.is_set():
            if not self._closed:
                logger.warning("MCP server %s closed the connection", self.label)
            self._stop.set()

    def _require_client(self) -> Client:
        if self._client is None or self._closed or self._ended:
            ended = f" ({self._end_reason})" if self._ended and not self._closed else ""
            raise McpConnectionError(f"MCP connection to {self.label} is closed{ended}")
        return self._client

    def _hung(self, waited: float) -> None:
        """The server left a liveness probe unanswered: the same end as a server that died —
        ``connected`` turns false, the disconnect listeners run, the session and its process end."""
        if self._ended:
            return
        logger.warning("MCP server %s did not answer within %g s: treating it as disconnected", self.label, waited)
        self._end_reason = f"the server did not answer within {waited:g} s"
        self._notify_disconnected()
        if self._process is not None:
            self._process.stop_timeout = 2.0  # a hung server will not exit on its own: on to the signals
        if self._stop is not None and not self._loop.is_closed():
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self._stop.set)

    def check_alive(self, timeout: float = 5.0) -> bool:
        """Whether the server answers a liveness probe (``ping``; ``server/discover`` on protocol
        2026-07-28) within ``timeout`` seconds. One that does not is treated as gone, as a server
        that died: ``connected`` turns false, :meth:`on_disconnect` listeners run (forms show the
        disconnected banner), calls fail, and its session ends (a ``command=`` process is stopped).
        ``connect(..., keepalive=seconds)`` runs this check periodically."""
        if not self.connected:
            return False
        try:
            alive = self._run_sync(answers(self._require_client(), timeout), timeout + 1.0)
        except McpConnectionError:
            return False
        except TimeoutError:
            alive = False
        if not alive:
            self._hung(timeout)
        return alive

    async def _close_session(self, timeout: float) -> None:
        """End the session within ``timeout`` seconds: ask it to stop, then cancel it (at once when
        it is still in the handshake, which does not look at the stop)."""
        deadline = time.monotonic() + timeout
        if self._stop is not None:
            self._stop.set()
        main = self._main
        if main is not None and not main.done() and self._client is None:
            main.cancel()
        if main is not None and not main.done():
            try:
                await asyncio.wait_for(asyncio.shield(main), timeout * 0.9)
            except (asyncio.TimeoutError, asyncio.CancelledError):
                main.cancel()
                with contextlib.suppress(BaseException):
                    await asyncio.wait_for(main, max(0.05, deadline - time.monotonic()))
            except BaseException:  # noqa: BLE001 - teardown noise
                pass

    # -- state ---------------------------------------------------------------------------------------
    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def connected(self) -> bool:
        """True while the session is open (not disconnected, not ended)."""
        return not self._closed and not self._ended and self._client is not None

    def on_disconnect(self, callback: Callable[[], Any]) -> Callable[[], None]:
        """Call ``callback()`` once when this connection ends — :meth:`disconnect` or a session that
        ended by itself — or at once if it already has. Returns a function that unsubscribes."""
        with self._close_lock:
            ended = self._ended
            if not ended:
                self._disconnect_callbacks.append(callback)
        if ended:
            callback()

        def unsubscribe() -> None:
            with self._close_lock:
                with contextlib.suppress(ValueError):
                    self._disconnect_callbacks.remove(callback)

        return unsubscribe

    def _notify_disconnected(self) -> None:
        with self._close_lock:
            if self._ended:
                return
            self._ended = True
            callbacks, self._disconnect_callbacks = self._disconnect_callbacks, []
        for callback in callbacks:
            try:
                callback()
            except Exception:  # noqa: BLE001 - a listener must not break disconnecting
                logger.warning("MCP connection to %s: a disconnect listener failed", self.label, exc_info=True)
