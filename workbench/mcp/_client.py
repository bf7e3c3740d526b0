"""Connect to an MCP server and register its tools as workbench proxy tools.

The SDK's client session is anyio-based and must stay open across calls, so each
:class:`McpConnection` owns a background thread running its own event loop; the session lives
in one task on that loop, and calls from any thread or loop are submitted to it with
``asyncio.run_coroutine_threadsafe``.
"""

from __future__ import annotations

import asyncio
import atexit
import builtins
import concurrent.futures
import contextlib
import logging
import os
import threading
import time
import weakref
from typing import Any, Callable, Optional, Sequence

import anyio
import mcp.types as types
from mcp.client import Client
from mcp_types import LOG_LEVEL_META_KEY

from workbench.context import ToolContext
from workbench.mcp._auth import oauth_failure
from workbench.mcp._cache import CacheHints
from workbench.mcp._config import ConfigExport, read_server_config
from workbench.mcp._convert import (
    call_tool_result_to_value,
    is_result_wrapper,
    local_tool_name,
    mcp_tool_to_spec,
)
from workbench.mcp._eras import answers, client_mode, keep_alive
from workbench.mcp._errors import McpConnectionError, McpTimeoutError
from workbench.mcp._features import ClientFeatures
from workbench.mcp._lenient import ToolListRepair
from workbench.mcp._record import wire_dict
from workbench.mcp._tasks import TaskFeatures, task_support
from workbench.mcp._transports import open_transport, refusal_note
from workbench.mcp._url_elicitation import retry_after_url_elicitation
from workbench.secrets import scrub_text
from workbench.spec import ToolSpec
from workbench.tools import BaseTool

__all__ = ["connect", "McpConnection", "McpProxyTool", "McpConnectionError", "McpTimeoutError"]

logger = logging.getLogger("workbench.mcp")

_LIVE: "weakref.WeakSet[McpConnection]" = weakref.WeakSet()
_PAGE_CAP = 100
_GIVE_UP_TIMEOUT = 1.0  # seconds to stop a server that let connect_timeout run out (it is not answering)


def _fraction(progress: float, total: Optional[float]) -> float:
    if total:
        return progress / total
    return progress


class _StreamWrapper:
    """A transport stream passed through, with a hook; everything else goes to the wrapped stream."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    async def __aenter__(self) -> "_StreamWrapper":
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.aclose()

    def close(self) -> None:
        self._inner.close()

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class _EndWatch(_StreamWrapper):
    """A transport's read stream that calls ``on_end()`` when it ends — the server closed its side
    (a stdio server process that exited or was killed, a dropped HTTP stream) — and shows each item to
    ``on_item``. The SDK's session only fails later requests when the stream ends; this lets the
    connection say at once that it is gone."""

    def __init__(self, inner: Any, on_end: Callable[[], None], on_item: Callable[[Any], None],
                 repair: Callable[[Any], Any] = lambda item: item) -> None:
        super().__init__(inner)
        self._on_end = on_end
        self._on_item = on_item
        self._repair = repair

    @property
    def last_context(self) -> Any:  # the SDK's ContextReceiveStream keeps the sender's contextvars here
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        try:
            item = await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._on_end()
            raise
        self._on_item(item)
        return self._repair(item)

    def __aiter__(self) -> "_EndWatch":
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None


class _SendWatch(_StreamWrapper):
    """A transport's write stream that shows each message to ``on_item`` before sending it."""

    def __init__(self, inner: Any, on_item: Callable[[Any], None]) -> None:
        super().__init__(inner)
        self._on_item = on_item

    async def send(self, item: Any) -> None:
        self._on_item(item)
        await self._inner.send(item)


@contextlib.asynccontextmanager
async def _watch(transport: Any, on_end: Callable[[], None], record: Callable[[str, Any], None],
                 tool_lists: ToolListRepair) -> Any:
    """``transport`` with its streams wrapped: the end of the read stream is noticed at once, every
    message either way is recorded (the connection's raw protocol history), and malformed tools are
    taken out of ``tools/list`` results (``tool_lists``) before the SDK validates them."""
    def sent(item: Any) -> None:
        tool_lists.sent(item)
        record("sent", item)

    async with transport as (read_stream, write_stream):
        yield (_EndWatch(read_stream, on_end, lambda item: record("received", item), tool_lists.received),
               _SendWatch(write_stream, sent))


class McpProxyTool(BaseTool):
    """A tool of an MCP server, callable like a local tool.

    Its spec comes from the server's tool list (``inputSchema`` → parameters, ``outputSchema`` →
    returns). It is an async tool: the executor awaits :meth:`invoke`, which sends ``tools/call``
    on the connection's loop and forwards the server's progress notifications to the call's
    ``ToolContext`` (so forms and executor listeners see them). ``isError`` results raise
    :class:`~workbench.mcp.McpToolError` with the server's message.
    """

    _supports_async = True
    removed = False  #: True once the server no longer lists this tool

    def __init__(self, connection: "McpConnection", mcp_tool: types.Tool, spec: ToolSpec) -> None:
        # no BaseTool.__init__: the spec is given, not declared by a subclass
        self.connection = connection
        self.mcp_tool = mcp_tool
        self.remote_name = mcp_tool.name
        self._unwrap = bool(mcp_tool.output_schema) and is_result_wrapper(mcp_tool.output_schema)
        self.__dict__["_wb_spec"] = spec
        self.__dict__["_wb_ctx"] = "tool_context"  # the executor then builds a ToolContext for progress

    @property
    def tool_type(self) -> str:
        return "mcp"

    def _call_target_is_async(self) -> bool:
        return True

    # -- calling ------------------------------------------------------------------------------------
    def invoke(self, arguments: dict[str, Any], context: Optional[ToolContext] = None) -> Any:
        """The coroutine the executor awaits."""
        return self._send(arguments, context)

    async def acall(self, *args: Any, **kwargs: Any) -> Any:
        """Call the server's tool from any event loop; returns the converted result."""
        return await self._send(self.spec.build_input(*args, **kwargs), None)

    async def _send(self, arguments: dict[str, Any], context: Optional[ToolContext]) -> Any:
        callback: Any = None
        if context is not None:
            async def callback(progress: float, total: Optional[float], message: Optional[str]) -> None:
                try:
                    context.report_progress(_fraction(progress, total), message)
                except Exception:  # noqa: BLE001 - a malformed progress value must not fail the call
                    logger.debug("ignored a progress notification", exc_info=True)

        connection = self.connection
        result = await connection._run_async(connection._call_tool(self.remote_name, arguments, callback))
        return call_tool_result_to_value(result, unwrap=self._unwrap, has_returns=bool(self.spec.returns))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call synchronously (blocks until the server answers; not from the connection's own thread)."""
        arguments = self.spec.build_input(*args, **kwargs)
        result = self.connection._run_sync(self.connection._call_tool(self.remote_name, arguments, None))
        return call_tool_result_to_value(result, unwrap=self._unwrap, has_returns=bool(self.spec.returns))

    @property
    def connected(self) -> bool:
        """False once the tool's connection was disconnected (or its session ended)."""
        return self.connection.connected

    def on_disconnect(self, callback: Callable[[], Any]) -> Callable[[], None]:
        """Call ``callback()`` once when the tool's connection ends (at once if it already has);
        returns an unsubscribe function. Forms use it to show a disconnected tool as such."""
        return self.connection.on_disconnect(callback)

    def get_display_properties(self) -> dict[str, str]:
        props = super().get_display_properties()
        props["Server"] = self.connection.label
        if self.remote_name != self.tool_name:
            props["Remote name"] = self.remote_name
        return props

    def __repr__(self) -> str:
        return f"<McpProxyTool {self.tool_name!r} of {self.connection.label}>"


class McpConnection(ClientFeatures, TaskFeatures, CacheHints, ConfigExport):
    """A live connection to an MCP server whose tools are registered as :class:`McpProxyTool`.

    Made by :func:`connect`. ``tools`` lists the registered names; :meth:`disconnect` (or leaving
    a ``with`` block) unregisters them, closes the session and stops the background thread
    (and, for ``command=``, the server process).
    """

    def __init__(self, transport: Any, *, label: str, registry: Any, prefix: str = "", replace: bool = False,
                 timeout: Optional[float] = None, read_timeout: Optional[float] = None,
                 stderr_file: Any = None, sampling: Any = None, elicitation: Any = None,
                 roots: Optional[Sequence[Any]] = None, log: Any = None, keepalive: Optional[float] = None,
                 use_tasks: bool = False, protocol_version: Optional[str] = None) -> None:
        self._init_features(sampling=sampling, elicitation=elicitation, roots=roots, log=log)
        self._init_tasks(use_tasks)
        self._init_cache_hints()
        self.label = label
        self.registry = registry
        self.prefix = prefix
        self.replace = replace
        self.timeout = timeout
        self.proxies: dict[str, McpProxyTool] = {}
        self._tools_lock = threading.RLock()
        self._capabilities: Optional[types.ServerCapabilities] = None
        self._instructions: Optional[str] = None
        self.skipped: dict[str, str] = {}
        self.server_info: Optional[types.Implementation] = None
        self.protocol_version: Optional[str] = None
        self._tool_lists = ToolListRepair(lambda: self.protocol_version)
        self._transport = transport
        self._mode = client_mode(protocol_version)
        self._read_timeout = read_timeout
        self._stderr_file = stderr_file
        self._stderr_text = ""
        self._process: Any = None  # the ServerProcess of a command= connection (set by connect())
        self._refused: list[int] = []  # HTTP 401/403 answers seen (url= connections)
        self._secrets: list[str] = []  # credentials in the command, URL or headers (set by connect())
        self._connect_arguments: Optional[dict[str, Any]] = None  # what connect() was given (for reconnect)
        self._client: Optional[Client] = None
        self._closed = False
        self._close_lock = threading.Lock()
        self._ended = False  # disconnected, or the session ended by itself
        self._end_reason = "the server ended it"  # said by calls after the session ended by itself
        self.keepalive = keepalive  #: seconds between liveness probes (None: no probes)
        self._disconnect_callbacks: list[Callable[[], Any]] = []
        self._loop = asyncio.new_event_loop()
        self._stop: Optional[asyncio.Event] = None
        self._main: Optional[asyncio.Task] = None
        self._thread = threading.Thread(target=self._run_loop, name=f"workbench-mcp {label}", daemon=True)
        self._thread.start()

    # -- the background loop ---------------------------------------------------------------------------
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
            raise RuntimeError("McpConnection: a blocking call from the connection's own event loop would deadlock; "
                               "await the tool's acall() instead")
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

    # -- session (runs on the background loop) -------------------------------------------------------
    async def _open(self) -> None:
        self._stop = asyncio.Event()
        ready: asyncio.Future = asyncio.get_running_loop().create_future()
        self._main = asyncio.ensure_future(self._session_main(ready))
        await ready

    async def _session_main(self, ready: asyncio.Future) -> None:
        from workbench._version import __version__

        try:
            client = Client(_watch(self._transport, self._stream_ended, self._record_wire, self._tool_lists),
                            read_timeout_seconds=self._read_timeout, mode=self._mode,
                            client_info=types.Implementation(name="tool-workbench", version=__version__),
                            **self._client_callbacks())
            async with client:
                self._client = client
                self.server_info = client.server_info
                self.protocol_version = client.protocol_version
                self._capabilities = client.server_capabilities
                self._instructions = client.instructions
                ready.set_result(None)
                assert self._stop is not None
                helpers = [asyncio.ensure_future(self._follow_changes(client))]
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
        self._record_message(direction, wire_dict(item))

    def _stream_ended(self) -> None:
        """The server closed the connection (on the loop): end the session, which marks it disconnected."""
        if self._stop is not None and not self._stop.is_set():
            if not self._closed:
                logger.warning("MCP server %s closed the connection", self.label)
            self._stop.set()

    async def _list_tools(self, cache_mode: str = "refresh") -> list[types.Tool]:
        client = self._require_client()
        tools: list[types.Tool] = []
        cursor = None
        for _ in range(_PAGE_CAP):
            page = await client.list_tools(cursor=cursor, cache_mode=cache_mode)  # type: ignore[arg-type]
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        return tools

    async def _call_tool(self, name: str, arguments: dict[str, Any], progress: Any,
                         as_task: Optional[bool] = None) -> types.CallToolResult:
        if self._wants_task(name, as_task):  # execution.taskSupport (see _tasks.py)
            return await self._call_tool_as_task(name, arguments, progress)
        client = self._require_client()
        # a RequestParamsMeta, whose key is a constant mypy does not read as a literal
        meta: Any = {LOG_LEVEL_META_KEY: self.log_level} if self.log_level is not None else None
        return await retry_after_url_elicitation(  # a -32042 answer: the user's browser flow, then once more
            self, lambda: client.call_tool(name, arguments, progress_callback=progress, meta=meta))

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

    # -- public API ------------------------------------------------------------------------------------
    def _start(self, connect_timeout: Optional[float]) -> "McpConnection":
        """The handshake and the tool list, together within ``connect_timeout`` seconds."""
        deadline = None if connect_timeout is None else time.monotonic() + connect_timeout
        try:
            self._run_sync(self._open(), connect_timeout)
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            tools = self._run_sync(self._list_tools(), remaining)
            with self._tools_lock:  # a list_changed refresh may already be registering them
                self._register(tools)
        except BaseException as exc:
            detail = self.stderr.strip()
            timed_out = isinstance(exc, TimeoutError) and deadline is not None and time.monotonic() >= deadline
            self.disconnect(timeout=_GIVE_UP_TIMEOUT if timed_out else 10.0)
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            if isinstance(exc, ValueError):  # a name clash in the registry
                raise
            if timed_out:
                message = (f"Could not connect to MCP server {self.label}: no answer to the handshake and the tool list "
                           f"within connect_timeout={connect_timeout:g} s")
                if detail:
                    message += "\nserver stderr:\n" + "\n".join(detail.splitlines()[-20:])
                raise McpTimeoutError(scrub_text(message, self._secrets)) from (None if self._secrets else exc)
            auth = (self._connect_arguments or {}).get("auth")
            failed_flow = oauth_failure(exc) if auth is not None else None
            if failed_flow is not None:  # says what failed; the 401 that started the flow adds nothing
                grant = getattr(auth, "grant", None)
                message = (f"Could not connect to MCP server {self.label}: the OAuth {grant + ' ' if grant else ''}"
                           f"flow failed: {_describe(failed_flow)}")
            else:
                message = f"Could not connect to MCP server {self.label}: {_describe(exc)}"
                if self._refused:
                    message += f" ({refusal_note(self._refused[-1], auth=auth is not None)})"
            if detail:
                message += "\nserver stderr:\n" + "\n".join(detail.splitlines()[-20:])
            # an SDK or httpx message, or the server's stderr, may quote the URL or the command line; so may
            # the SDK's exception, which a traceback would print as the cause: with credentials, none is kept
            raise McpConnectionError(scrub_text(message, self._secrets)) from (None if self._secrets else exc)
        _LIVE.add(self)
        return self

    def _register(self, mcp_tools: Sequence[types.Tool]) -> None:
        """Register a proxy per tool; on a name clash undo this batch and raise ``ValueError``."""
        self.skipped.update(self._tool_lists.rejected)  # listed by the server, but not as a valid MCP Tool
        added: list[str] = []
        try:
            for mcp_tool in mcp_tools:
                name = local_tool_name(mcp_tool.name, self.prefix)
                self._task_support[mcp_tool.name] = task_support(mcp_tool)
                reason = self._task_refusal(mcp_tool)
                if reason is not None:  # listed with the reason, never a proxy that always fails
                    self.skipped[mcp_tool.name] = reason
                    continue
                try:
                    spec = mcp_tool_to_spec(mcp_tool, name, timeout=self.timeout)
                    proxy = McpProxyTool(self, mcp_tool, spec)
                    spec.validate_structure()
                except Exception as exc:  # noqa: BLE001 - an unusable schema: skip this tool, keep the others
                    self.skipped[mcp_tool.name] = f"{type(exc).__name__}: {exc}"
                    logger.warning("MCP server %s: skipped tool %r: %s", self.label, mcp_tool.name, exc)
                    continue
                current = self.proxies.get(name)
                replace = self.replace or (current is not None and self.registry.get(name) is current)
                try:
                    self.registry.register_tool(proxy, replace=replace)
                except ValueError as exc:
                    raise ValueError(f"{exc} — connect(..., prefix='...') gives the server's tools distinct "
                                     f"names, replace=True overwrites") from None
                self.proxies[name] = proxy
                added.append(name)
        except BaseException:
            for name in added:
                if self.registry.get(name) is self.proxies.get(name):
                    self.registry.unregister(name)
                self.proxies.pop(name, None)
            raise

    @property
    def tools(self) -> list[str]:
        """Names (in the registry) of the server's tools."""
        with self._tools_lock:
            return list(self.proxies)

    def tool_listing(self) -> tuple[dict[str, "McpProxyTool"], dict[str, str]]:
        """The proxies by registered name and the skipped tools with their reasons, read together
        (a list_changed refresh may be re-registering them on the connection's thread)."""
        with self._tools_lock:
            return dict(self.proxies), dict(self.skipped)

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

    @property
    def stderr(self) -> str:
        """What the server process wrote to stderr so far (``command=`` connections)."""
        handle = self._stderr_file
        if handle is None:
            return self._stderr_text
        try:
            handle.flush()
            with open(handle.name, encoding="utf-8", errors="replace") as reader:
                return reader.read()
        except (OSError, ValueError):
            return ""

    def list_mcp_tools(self, timeout: Optional[float] = 30.0, *, refresh: bool = False) -> list[types.Tool]:
        """The server's current tool list (MCP ``Tool`` objects); within the server's ``ttlMs``
        (2026-07-28 cache hints) from the client's cache unless ``refresh=True``."""
        return self._run_sync(self._list_tools("refresh" if refresh else "use"), timeout)

    def refresh(self, timeout: Optional[float] = 30.0) -> list[str]:
        """Fetch the tool list again: register new tools, update changed ones, drop removed ones
        (their proxies get ``removed = True``, so forms show them as removed). The server's
        ``notifications/tools/list_changed`` does this by itself."""
        self._apply_tools(self.list_mcp_tools(timeout, refresh=True))
        return self.tools

    def _apply_tools(self, mcp_tools: Sequence[types.Tool]) -> None:
        with self._tools_lock:
            names = {local_tool_name(t.name, self.prefix) for t in mcp_tools}
            for name in [n for n in self.proxies if n not in names]:
                proxy = self.proxies.pop(name)
                proxy.removed = True
                if self.registry.get(name) is proxy:
                    self.registry.unregister(name)
            self.skipped.clear()
            self._register(mcp_tools)

    def call_tool(self, name: str, arguments: Optional[dict[str, Any]] = None, *,
                  as_task: Optional[bool] = None) -> types.CallToolResult:
        """Send ``tools/call`` directly (no executor, no conversion): the raw ``CallToolResult``.
        ``name`` is the server's tool name (or the registered name of one of its proxies). A tool
        with ``execution.taskSupport: "required"`` runs as a task (created, polled, its result
        fetched); ``as_task=True`` does that for an ``"optional"`` one too."""
        proxy = self.proxies.get(name)
        remote = proxy.remote_name if proxy is not None else name
        return self._run_sync(self._call_tool(remote, dict(arguments or {}), None, as_task))

    def disconnect(self, timeout: float = 10.0) -> None:
        """Unregister the proxy tools, close the session and the thread, and end a ``command=`` server
        process — all within ``timeout`` seconds: its stdin is closed, then it gets SIGTERM, then
        SIGKILL (its whole process group), each after a share of the time; a server that ignores
        SIGTERM or hangs is still gone when this returns."""
        deadline = time.monotonic() + timeout
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
        _LIVE.discard(self)
        for name, proxy in list(self.proxies.items()):
            if self.registry.get(name) is proxy:
                self.registry.unregister(name)
        self.proxies.clear()
        self._notify_disconnected()
        process = self._process
        if process is not None:
            process.stop_timeout = timeout * 0.75  # the rest is for the session's own teardown
        try:
            if not self._loop.is_closed() and self._thread.is_alive() and not self._in_loop_thread():
                future = asyncio.run_coroutine_threadsafe(self._close_session(timeout * 0.9), self._loop)
                with contextlib.suppress(BaseException):
                    future.result(max(0.0, deadline - time.monotonic()))
        finally:
            if not self._loop.is_closed():
                with contextlib.suppress(RuntimeError):
                    self._loop.call_soon_threadsafe(self._loop.stop)
            if not self._in_loop_thread():
                self._thread.join(max(0.05, deadline - time.monotonic()))
            if process is not None and process.running:  # the loop could not finish in time: the last resort
                process.kill()
                while process.running and time.monotonic() < deadline + 0.5:
                    time.sleep(0.01)
            if self._stderr_file is not None:
                self._stderr_text = self.stderr  # kept after the file is gone
                handle, self._stderr_file = self._stderr_file, None
                with contextlib.suppress(OSError):
                    handle.close()
                    os.unlink(handle.name)

    close = disconnect

    def reconnect(self, connect_timeout: Optional[float] = 30.0) -> "McpConnection":
        """Connect to the same server again — same command or URL and options, the handlers and roots
        as they are now — and return the new connection, whose tools take this one's place in the
        registry (same names). This connection is disconnected first if it is not already (its
        server died, or it was closed). Forms of the old proxies stay disconnected; the workbench's
        forms (``workbench.form(name)``, the dashboard) are rebuilt for the new tools."""
        if self._connect_arguments is None:
            raise McpConnectionError(f"MCP connection to {self.label} was not made by connect(): nothing to reconnect to")
        self.disconnect()
        arguments = {**self._connect_arguments, "sampling": self.sampling_handler, "elicitation": self.elicitation_handler,
                     "roots": list(self._roots) if self._declared["roots"] else None, "log": self.log,
                     "connect_timeout": connect_timeout, "use_tasks": self.use_tasks}
        fresh = connect(**arguments)
        if self.log_level is not None:
            with contextlib.suppress(Exception):
                fresh.set_logging_level(self.log_level)
        return fresh

    def __enter__(self) -> "McpConnection":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.disconnect()

    def __repr__(self) -> str:
        state = "closed" if self._closed else f"{len(self.proxies)} tools"
        return f"<McpConnection {self.label} ({state})>"


def _describe(exc: BaseException) -> str:
    """A readable message, looking inside exception groups."""
    group = getattr(builtins, "BaseExceptionGroup", None)  # Python 3.11+
    if group is not None and isinstance(exc, group) and exc.exceptions:
        return "; ".join(_describe(e) for e in exc.exceptions)
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _server_given_as_command(command: Any, server: Any) -> tuple[Any, None]:
    """``connect(server_object)``: the object is the server (in memory); anything else that is no
    command line is refused, naming what ``connect()`` takes."""
    from workbench.mcp._memory import SERVER_CLASSES

    if isinstance(command, SERVER_CLASSES):
        if server is not None:
            raise ValueError("connect() got an MCP server object given both as the first argument and as server=: "
                             "pass it once")
        return command, None
    raise TypeError(f"connect() takes a command line (a string or a list of strings), url=, config= or server= "
                    f"(an MCP server object in this process), not {type(command).__module__}."
                    f"{type(command).__qualname__}")


def connect(command: Optional[Sequence[str] | str] = None, *, url: Optional[str] = None, registry: Any = None,
            prefix: str = "", replace: bool = False, env: Optional[dict[str, str]] = None,
            cwd: Optional[str | os.PathLike] = None, headers: Optional[dict[str, str]] = None,
            token: Optional[str] = None, timeout: Optional[float] = None, connect_timeout: Optional[float] = 30.0,
            read_timeout: Optional[float] = None, transport: Optional[str] = None, keepalive: Optional[float] = None,
            auth: Any = None, sampling: Optional[Callable[[Any], Any]] = None,
            elicitation: Optional[Callable[[Any], Any]] = None, roots: Optional[Sequence[Any]] = None,
            log: Any = None, use_tasks: bool = False, config: Any = None,
            server: Any = None, protocol_version: Optional[str] = None) -> McpConnection:
    """Connect to an MCP server and register its tools as proxy tools.

    Args:
        command: start a server over stdio: ``["python", "-m", "pkg.server"]`` (or one string,
            split with ``shlex``; an ``http(s)://`` string is taken as ``url=``, an MCP server object
            as ``server=``). The process gets only a minimal environment (the SDK's default:
            ``PATH``, ``HOME``…) plus ``env``; it runs in ``cwd``. Its stderr is kept
            (``connection.stderr``) and shown when connecting fails.
        url: a Streamable HTTP endpoint (``http://127.0.0.1:8000/mcp``); ``headers`` are sent
            with every request.
        token: the server's bearer token (sent as ``Authorization: Bearer <token>``; the same as
            ``headers={"Authorization": "Bearer <token>"}``). A workbench server bound beyond
            loopback requires one: it prints it at start unless given one.
        registry: where the proxies go (default ``workbench.registry.default_registry()``).
        prefix: put before every tool name (``prefix="remote_"``); names are also made valid
            workbench names (other characters become ``_``).
        replace: overwrite tools of the same name already in the registry (else ``ValueError``).
        timeout: a per-call timeout the executor enforces on the proxies.
        connect_timeout: seconds for the handshake and the tool list together; a server that has
            not answered by then is stopped and ``McpTimeoutError`` (a ``TimeoutError`` and an
            ``McpConnectionError``) names it and the timeout.
        keepalive: probe the server every so many seconds (``ping``; ``server/discover`` on protocol
            2026-07-28); one that leaves a probe unanswered for that long (at least 5 s) is treated
            as disconnected, as :meth:`McpConnection.check_alive` does.
        read_timeout: the SDK's per-request read timeout.
        transport: for ``url=``: ``"streamable-http"`` (the default) or ``"sse"`` (older servers).
        protocol_version: the MCP protocol era to speak: ``None`` (the default) the newest the server
            speaks (``server/discover``, falling back to the ``initialize`` handshake); ``"2025-11-25"``
            the handshake (as every client before 2026-07-28 connects: how most clients see a server);
            ``"2026-07-28"`` that revision without a probe. ``connection.protocol_version`` says
            which was negotiated.
        auth: for ``url=``: :class:`workbench.mcp.OAuth` (authorization code, pre-registered or
            URL-based client ids, client credentials, SEP-990 jwt-bearer) or any ``httpx.Auth`` (an SDK
            provider too) sent with every request; a failed OAuth flow is reported as what failed.
        sampling: answers the server's ``sampling/createMessage`` requests:
            ``sampling(params: mcp.types.CreateMessageRequestParams)`` returns the assistant's text
            (or a ``CreateMessageResult``); sync (run in a worker thread) or async. The client
            declares the ``sampling`` capability only when given one (then
            ``connection.sampling_handler`` can be changed later; set to ``None``, the server gets an
            error saying so).
        elicitation: answers ``elicitation/create`` (form and URL modes):
            ``elicitation(params)`` returns the accepted content (a dict; the fields it leaves out
            get the requested schema's defaults, as does a bare ``"accept"``), ``"decline"``,
            ``"cancel"``/``None``, or an ``ElicitResult`` (sent as built). Declares ``elicitation`` only when given;
            ``connection.elicitation_handler``.
        roots: the roots offered to the server (paths, ``file://`` URIs or ``{"uri", "name"}``);
            given (even ``[]``), the client declares the ``roots`` capability and
            ``connection.set_roots([...])`` changes them and notifies the server.
        log: an ``ExecutionLog`` where each sampling and elicitation request lands as a row
            (``mcp:sampling/createMessage`` / ``mcp:elicitation/create``: input = the request,
            output = the answer).
        use_tasks: also call tools whose ``execution.taskSupport`` is ``"optional"`` as tasks
            (``"required"`` ones always are; see ``workbench.mcp._tasks``).
        config: instead of ``command``/``url``: an ``mcpServers`` config file (path) or dict, as
            Claude Desktop, Cursor, VS Code and MCP Inspector write them; ``server`` (a name) picks
            the entry (needed when there are several). Its ``env`` and ``headers`` come from the file, ``${VAR}``
            expanded from the environment; ``env=`` / ``headers=`` given here are added on top.
            ``connection.config()`` writes such an entry, secrets masked (``workbench.mcp._config``).
        server: with ``config=``, the name of its entry; otherwise an MCP server object in this process
            (``MCPServer``/FastMCP, ``mcp.server.Server``, ``build_server(registry)``), connected in
            memory: no subprocess, no port (``workbench.mcp._memory``).

    Returns an :class:`McpConnection` (also a context manager).
    """
    if command is not None and not isinstance(command, (str, os.PathLike, list, tuple)):
        server, command = _server_given_as_command(command, server)
    if config is not None:
        if command is not None or url is not None:
            raise ValueError("connect() got config= and also command=/url=: the server comes from the config entry")
        entry = read_server_config(config, server)
        command, url = entry.get("command"), entry.get("url")
        if entry.get("env"):
            env = {**entry["env"], **(env or {})}
        if entry.get("headers"):
            headers = {**entry["headers"], **(headers or {})}
        cwd = cwd if cwd is not None else entry.get("cwd")
        transport = transport or (entry.get("transport") if url is not None else None)
    elif isinstance(server, str):
        raise ValueError(f"connect(server={server!r}) names an entry of config=; pass config= too "
                         "(an MCP server object in this process is connected in memory)")
    if url is None and isinstance(command, str) and command.startswith(("http://", "https://")):
        url, command = command, None  # connect("http://…/mcp")
    if keepalive is not None and not (isinstance(keepalive, (int, float)) and not isinstance(keepalive, bool)
                                      and keepalive > 0 and keepalive != float("inf")):
        raise ValueError(f"connect(keepalive={keepalive!r}): expected a positive number of seconds between "
                         "liveness probes (or None for none)")
    client_mode(protocol_version)  # a bad value is refused before anything starts
    in_memory = server is not None and config is None
    if in_memory:  # in memory (workbench.mcp._memory): instead of open_transport below
        from workbench.mcp._memory import open_in_memory

        opened = open_in_memory(server, command=command, url=url, token=token, env=env, cwd=cwd, headers=headers,
                                transport=transport, auth=auth)
    elif (command is None) == (url is None):
        raise ValueError("connect() needs exactly one of command=[...] (stdio), url='http://…' (streamable HTTP) "
                         "or server=<an MCP server object> (in memory)")
    if token is not None:
        if url is None:
            raise ValueError("connect(token=...) is for url= (streamable HTTP) servers; a command= server needs none")
        if any(key.lower() == "authorization" for key in headers or {}):
            raise ValueError("connect() got both token= and an Authorization header: pass the token once")
        headers = {**(headers or {}), "Authorization": f"Bearer {token}"}
    if registry is None:
        from workbench.registry import default_registry

        registry = default_registry()
    if not in_memory:
        opened = open_transport(command=command, url=url, env=env, cwd=cwd, headers=headers, transport=transport,
                                auth=auth)
    label, stderr_file = opened.label, opened.stderr_file
    connection = McpConnection(opened.transport, label=label, registry=registry, prefix=prefix, replace=replace,
                               timeout=timeout, read_timeout=read_timeout, stderr_file=stderr_file,
                               sampling=sampling, elicitation=elicitation, roots=roots, log=log, keepalive=keepalive,
                               use_tasks=use_tasks, protocol_version=protocol_version)
    connection._refused = opened.refused
    connection._secrets = opened.secrets
    connection._process = opened.process
    connection._connect_arguments = dict(
        command=command, url=url, registry=registry, prefix=prefix, replace=replace, env=env, cwd=cwd,
        headers=headers, timeout=timeout, read_timeout=read_timeout, transport=transport, auth=auth,
        keepalive=keepalive, use_tasks=use_tasks, protocol_version=protocol_version,
        server=server if in_memory else None)  # a config entry is already read into command/url/env/headers
    return connection._start(connect_timeout)


@atexit.register
def _disconnect_all() -> None:
    for connection in list(_LIVE):
        with contextlib.suppress(Exception):
            connection.disconnect(timeout=3.0)
