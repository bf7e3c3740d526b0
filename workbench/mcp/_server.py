"""Serve a ``ToolRegistry`` over MCP with the SDK's low-level ``Server``.

Every ``tools/call`` runs through a workbench executor (permissions, validation, timeouts,
idempotency) and lands in the execution log; progress a tool reports through its
``ToolContext`` is forwarded as ``notifications/progress`` (``progress`` in 0..1,
``total=1.0``) when the client asked for it, its log lines as ``notifications/message`` (level
set by ``logging/setLevel``), and its questions (``ctx.elicit`` / ``ctx.sample``) go to the
client as ``elicitation/create`` / ``sampling/createMessage`` (see ``_tool_peer``).
"""

from __future__ import annotations

import asyncio
import collections
import logging
import os
import socket
import sys
import threading
import weakref
from typing import TYPE_CHECKING, Any, Iterable, Optional

import anyio
import mcp.types as types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import ToolsListChanged

from workbench._events import ToolEvent
from workbench._peer import PEER_KEY
from workbench.executor import ConcurrentExecutor, ToolExecutor
from workbench.mcp import _security
from workbench.mcp._convert import output_schema_of, result_to_call_tool_result, served_result, spec_to_mcp_tool
from workbench.mcp._http import streamable_http_app
from workbench.mcp._sessions import connection_of as _connection_of
from workbench.mcp._tool_peer import LogLevels, ServedPeer, _quietly
from workbench.registry import ToolRegistry
from workbench.types import ToolResult, error_result, make_tool_use

if TYPE_CHECKING:
    from workbench.mcp._served_server import ServedHandlers

__all__ = ["build_server", "serve", "serve_async", "as_registry", "open_log", "TRANSPORTS"]

logger = logging.getLogger("workbench.mcp")

TRANSPORTS = ("stdio", "streamable-http")
_DONE = object()


def as_registry(tools: Any) -> ToolRegistry:
    """A ``ToolRegistry`` from a registry, a module path / ``module:function`` string, a module,
    or a list of any of those (and of tools or functions)."""
    if isinstance(tools, ToolRegistry) or (hasattr(tools, "get_tool") and hasattr(tools, "list_tools")):
        return tools
    registry = ToolRegistry()
    registry.process_tools(list(tools) if isinstance(tools, (list, tuple)) else [tools])
    return registry


def open_log(log: Any) -> Any:
    """``None`` → no log; a path → ``ExecutionLog(path)``; anything else is used as the log."""
    if log is None or hasattr(log, "append"):
        return log
    if isinstance(log, (str, os.PathLike)):
        from workbench.log import ExecutionLog

        return ExecutionLog(os.fspath(log))
    raise TypeError(f"log must be an ExecutionLog or a path, got {type(log).__name__}")


def _is_legacy(ctx: Any) -> bool:
    """Whether the request's session speaks a protocol before 2026-07-28 (no subscriptions/listen)."""
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    return getattr(ctx, "protocol_version", None) not in MODERN_PROTOCOL_VERSIONS


async def _announce(peers: "weakref.WeakKeyDictionary[Any, Any]", peer: Any) -> None:
    try:
        await peer.send_tool_list_changed()
    except Exception:  # noqa: BLE001 - a gone client: forget it
        logger.debug("could not send notifications/tools/list_changed", exc_info=True)
        peers.pop(peer, None)


_CANCEL_GRACE = 5.0  # seconds a cancelled call may take to wind down before it is abandoned


class _ServedLog:
    """The server's log as the executor of one call sees it: the row written is the result the client
    is sent (:func:`served_result`), so a return that broke ``outputSchema`` is logged as the error
    the client got, not as a success."""

    __slots__ = ("log", "spec", "output_schema")

    def __init__(self, log: Any, spec: Any, output_schema: Optional[dict[str, Any]]) -> None:
        self.log = log
        self.spec = spec
        self.output_schema = output_schema

    def append(self, result: ToolResult, tool_use: Any = None, **kwargs: Any) -> Any:
        return self.log.append(served_result(result, self.spec, self.output_schema), tool_use, **kwargs)


class _Bridge:
    """The MCP handlers of one server: registry + executor + log."""

    served: ServedHandlers  # the resources and prompts: set by build_server once the bridge exists

    def __init__(self, registry: ToolRegistry, executor: ToolExecutor, log: Any) -> None:
        self.registry = registry
        self.executor = executor
        self.log = log
        self._progress: dict[str, tuple[asyncio.AbstractEventLoop, Any]] = {}
        self._lock = threading.Lock()
        # each client connection on a protocol before 2026-07-28 (weakly: it goes when its session ends)
        self._peers: "weakref.WeakKeyDictionary[Any, asyncio.AbstractEventLoop]" = weakref.WeakKeyDictionary()
        self.levels = LogLevels()  # logging/setLevel, per client connection
        self.bus = InMemorySubscriptionBus()
        self._listen = ListenHandler(self.bus)
        self.loop: Optional[asyncio.AbstractEventLoop] = None
        stop_events = executor.on_event(self._on_event)
        on_change = getattr(registry, "on_change", None)
        stop_changes = on_change(self._tools_changed) if on_change is not None else (lambda: None)

        def unsubscribe() -> None:
            stop_events()
            stop_changes()

        self.unsubscribe = unsubscribe

    # -- notifications/tools/list_changed -------------------------------------------------------------
    def _seen(self, ctx: Any) -> None:
        """Remember a client's connection (and its loop) so registry changes can be announced to it."""
        if self.loop is None:
            self.loop = asyncio.get_running_loop()
        if not _is_legacy(ctx):
            return  # modern sessions listen on the bus
        session = getattr(ctx, "session", None)
        if session is not None:
            try:
                self._peers[_connection_of(session)] = asyncio.get_running_loop()
            except TypeError:  # an object that cannot be weakly referenced: not announced to
                pass

    async def listen(self, ctx: Any, params: Any) -> Any:
        """``subscriptions/listen`` (2026-07-28): a stream on the bus, which the server's loop feeds."""
        self._seen(ctx)
        return await self._listen(ctx, params)

    async def initialized(self, ctx: Any, params: Any) -> None:
        """``notifications/initialized``: a client finished its handshake — it hears changes from now
        on, before it lists or calls anything."""
        self._seen(ctx)

    def _tools_changed(self, *_change: Any) -> None:
        """The registry gained or lost a tool (any thread): tell every client — on the 2026-07-28
        protocol through the ``subscriptions/listen`` streams (the bus), before it with
        ``notifications/tools/list_changed`` to each session seen."""
        loop = self.loop
        if loop is not None:
            try:
                loop.call_soon_threadsafe(lambda: asyncio.ensure_future(self.bus.publish(ToolsListChanged())))
            except RuntimeError:  # the server's loop has closed
                pass
        for peer, loop in list(self._peers.items()):
            try:
                # (mypy cannot type a lambda with a default argument)
                loop.call_soon_threadsafe(lambda p=peer: asyncio.ensure_future(_announce(self._peers, p)))  # type: ignore[misc]
            except RuntimeError:  # that connection's loop has closed
                self._peers.pop(peer, None)

    # -- logging/setLevel ---------------------------------------------------------------------------
    async def set_logging_level(self, ctx: Any, params: types.SetLevelRequestParams) -> types.EmptyResult:
        """The least severe level of the log messages (``ToolContext.log``) this client wants."""
        self._seen(ctx)
        self.levels.set(_connection_of(ctx.session), params.level)
        return types.EmptyResult()

    # -- tools/list ---------------------------------------------------------------------------
    async def list_tools(self, ctx: Any, params: Any) -> types.ListToolsResult:
        self._seen(ctx)
        return types.ListToolsResult(tools=[spec_to_mcp_tool(item.spec) for item in list(self.registry)])

    def input_schema(self, name: str) -> Optional[dict[str, Any]]:
        item = self.registry.get(name)
        return None if item is None else item.spec.parameters

    # -- tools/call -----------------------------------------------------------------------------
    async def call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        self._seen(ctx)
        name = params.name
        tool_use = make_tool_use(name, dict(params.arguments or {}))
        state = dict(self.executor.invocation_state or {})
        state["mcp"] = {"request_id": ctx.request_id, "protocol_version": ctx.protocol_version}
        item = self.registry.get(name)
        if item is None:
            # the executor answers (and logs: every call is one row) with ToolNotFoundError; MCP wants
            # an unknown tool as a protocol error, with the same message
            [missing] = await self.executor.execute([tool_use], self.registry, log=self.log, invocation_state=state)
            raise MCPError(types.INVALID_PARAMS, str(missing.metadata.get("error") or f"Unknown tool '{name}'"))
        spec = item.spec
        output_schema = output_schema_of(spec)
        log = None if self.log is None else _ServedLog(self.log, spec, output_schema)

        loop = asyncio.get_running_loop()
        pending: collections.deque = collections.deque()
        wake = asyncio.Event()

        def push(item_: Any) -> None:
            pending.append(item_)
            wake.set()

        async def forward() -> None:
            while True:
                await wake.wait()
                wake.clear()
                while pending:
                    entry = pending.popleft()
                    if entry is _DONE:
                        return
                    try:
                        if callable(entry):  # a log message or a stream release (ServedPeer)
                            await entry()
                        else:
                            progress, message = entry
                            await ctx.session.report_progress(progress, 1.0, message)
                    except Exception:  # noqa: BLE001 - a gone client must not fail the call
                        logger.debug("could not send a notification", exc_info=True)

        # the tool's way back to this client (ToolContext.log / elicit / sample / release_stream)
        state[PEER_KEY] = ServedPeer(ctx, loop, push, self.levels, _connection_of(ctx.session))
        use_id = tool_use["toolUseId"]
        with self._lock:
            self._progress[use_id] = (loop, push)
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(forward)
                running = asyncio.ensure_future(
                    self.executor.execute([tool_use], self.registry, log=log, invocation_state=state)
                )
                try:
                    results = await asyncio.shield(running)
                except asyncio.CancelledError:
                    # the client cancelled (notifications/cancelled): cancel the call through the
                    # executor so it ends as a logged "cancelled" row, then let the cancellation go on
                    with anyio.CancelScope(shield=True):
                        await self._cancel(running, use_id, tool_use)
                    raise
                finally:
                    with self._lock:
                        self._progress.pop(use_id, None)
                    push(_DONE)  # every progress event is queued before the result: drain, then stop
        finally:
            with self._lock:
                self._progress.pop(use_id, None)
        return result_to_call_tool_result(results[0], spec, output_schema)

    async def _cancel(self, running: "asyncio.Future[Any]", use_id: str, tool_use: Any) -> None:
        """End a call whose request was cancelled; every call gets exactly one log row."""
        for _ in range(200):  # the call may not have reached the executor's running set yet
            if running.done() or self.executor.cancel(use_id):
                break
            await asyncio.sleep(0.005)
        else:
            running.cancel()
        try:
            await asyncio.wait_for(asyncio.shield(running), _CANCEL_GRACE)
            return
        except (asyncio.CancelledError, asyncio.TimeoutError, Exception):  # noqa: BLE001
            running.cancel()
        if self.log is not None:  # the executor ended without a result: log the cancellation here
            message = f"Tool '{tool_use['name']}' was cancelled by the client"
            self.log.append(error_result(use_id, message, "CancelledError", tool_name=tool_use["name"]))

    def _on_event(self, event: ToolEvent) -> None:
        if event.kind != "progress":
            return
        entry = self._progress.get(event.tool_use_id)
        if entry is None:
            return
        loop, push = entry
        item = (float(event.progress or 0.0), event.message)
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            push(item)
        else:  # a sync tool in a worker thread
            try:
                loop.call_soon_threadsafe(push, item)
            except RuntimeError:  # the loop has closed
                pass


def build_server(
    registry: Any,
    executor: Optional[ToolExecutor] = None,
    log: Any = None,
    *,
    name: str = "workbench",
    version: Optional[str] = None,
    instructions: Optional[str] = None,
    timeout: Optional[float] = None,
    approver: Any = None,
    served: Iterable[Any] = (),
) -> Server:
    """The SDK's low-level ``Server`` exposing every tool of ``registry``, and the resources and
    prompts declared with ``@resource`` / ``@prompt`` in the modules it names or in ``served``.

    Args:
        registry: a ``ToolRegistry`` (or a module path, ``.py`` file, module, or list of those and of
            tools); modules also give their resources and prompts.
        executor: runs the calls; default ``ConcurrentExecutor(timeout=timeout, approver=approver)``
            (sync tools in threads, so the server stays responsive).
        log: an ``ExecutionLog`` or a path to one; every call is appended.
        name, version, instructions: what the server tells clients about itself.
        timeout: default per-call timeout of the default executor (a tool's own wins).
        approver: ``approver(tool_use, tool) -> bool`` for ``ask_user`` tools of the default
            executor (without one they are denied).
        served: more resources and prompts (what ``@resource`` and ``@prompt`` return).

    The workbench side is reachable as ``server.workbench`` (``registry``, ``executor``, ``log``,
    ``served``: the resources and prompts, with their subscriptions).
    """
    from workbench._version import __version__
    from workbench.mcp._discover import collect
    from workbench.mcp._served_server import ServedHandlers

    tools, found = collect(registry)
    if executor is None:
        executor = ConcurrentExecutor(timeout=timeout, approver=approver)
    bridge = _Bridge(tools, executor, open_log(log))
    bridge.served = ServedHandlers([*found, *served], bridge, name)
    # logging/setLevel is a handshake-era method (the SDK warns it is gone from 2026-07-28): the
    # sessions that negotiate an earlier protocol use it
    server: Server = _quietly(
        lambda: Server(
            name,
            version=version or __version__,
            instructions=instructions,
            on_list_tools=bridge.list_tools,
            on_call_tool=bridge.call_tool,
            get_tool_input_schema=bridge.input_schema,
            on_subscriptions_listen=bridge.listen,
            **bridge.served.server_handlers(),
            on_set_logging_level=bridge.set_logging_level,
        )
    )
    server.add_notification_handler("notifications/initialized", types.NotificationParams, bridge.initialized)
    server.workbench = bridge  # type: ignore[attr-defined]
    # the tool list follows the registry, and clients are told (notifications/tools/list_changed):
    # every transport builds its initialize answer through this method
    declare = server.create_initialization_options

    def create_initialization_options(notification_options: Any = None, *args: Any, **kwargs: Any) -> Any:
        return declare(notification_options or NotificationOptions(tools_changed=True), *args, **kwargs)

    server.create_initialization_options = create_initialization_options  # type: ignore[method-assign]
    return server


def _bind(host: str, port: int) -> socket.socket:
    """A listening socket (``port=0`` picks a free one)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
        sock.setblocking(False)
    except BaseException:
        sock.close()
        raise
    return sock


async def serve_async(
    registry: Any,
    transport: str = "stdio",
    host: str = "127.0.0.1",
    port: int = 8000,
    *,
    executor: Optional[ToolExecutor] = None,
    log: Any = None,
    name: str = "workbench",
    path: str = "/mcp",
    timeout: Optional[float] = None,
    approver: Any = None,
    json_response: bool = False,
    stateless: bool = False,
    log_level: str = "warning",
    ready: Any = None,
    token: Optional[str] = None,
    allowed_hosts: Iterable[str] = (),
    allowed_origins: Iterable[str] = (),
    served: Iterable[Any] = (),
) -> None:
    """Run an MCP server for ``registry`` until cancelled (or, for stdio, until stdin closes).

    ``transport`` is ``"stdio"`` or ``"streamable-http"`` (served by uvicorn on ``host:port`` at
    ``path``; ``port=0`` picks a free port). Once listening, the server's address is printed to
    stderr (``workbench.mcp: serving N tools at http://host:port/mcp``) and ``ready(url)`` is
    called when given. Other arguments as for :func:`build_server`.

    Streamable HTTP only — who may call (see ``workbench.mcp._security``):

    * ``token``: clients must send ``Authorization: Bearer <token>`` (else 401). Default:
      ``$WORKBENCH_MCP_TOKEN``; failing that, a server bound beyond loopback (``0.0.0.0``…)
      generates a random token and prints it to stderr, a loopback server runs without one.
      Pass your own (``secrets.token_urlsafe()``) to know it in code.
    * ``allowed_hosts`` / ``allowed_origins``: added to the Host/Origin allow-lists, which are
      checked on every bind (bad Host → 421, bad Origin → 403). Defaults: loopback names and
      origins, plus the bound address (or, on ``0.0.0.0``/``::``, this machine's host name). A
      name without a port allows any port (``"api.example"``; ``"https://app.example"``).
    """
    if transport not in TRANSPORTS:
        raise ValueError(f"Unknown MCP transport {transport!r}: expected one of {', '.join(TRANSPORTS)}")
    _security.check_token_argument(token)  # argument errors before a port is bound
    host_patterns, origin_patterns = _security.allow_lists(allowed_hosts, allowed_origins)
    server = build_server(registry, executor, log, name=name, timeout=timeout, approver=approver, served=served)
    bridge = server.workbench  # type: ignore[attr-defined]
    bridge.loop = asyncio.get_running_loop()  # registry changes are announced from this loop
    count = f"{len(bridge.registry)} tools{bridge.served.counts()}"
    try:
        if transport == "stdio":
            from mcp.server.stdio import stdio_server

            async with stdio_server() as (read_stream, write_stream):
                print(f"workbench.mcp: serving {count} over stdio", file=sys.stderr, flush=True)
                if ready is not None:
                    ready("stdio")
                await server.run(read_stream, write_stream, server.create_initialization_options())
            return
        import uvicorn

        sock = _bind(host, port)
        try:
            bound_host, bound_port = sock.getsockname()[:2]
            shown_host = f"[{bound_host}]" if ":" in bound_host else bound_host
            url = f"http://{shown_host}:{bound_port}{path}"
            policy = _security.host_policy(bound_host, host_patterns, origin_patterns)
            secret, generated = _security.resolve_token(token, bound_host)
            app = streamable_http_app(
                server,
                path=path,
                json_response=json_response,
                stateless=stateless,
                host=host,
                policy=policy,
                token=secret,
            )
        except BaseException:
            sock.close()
            raise
        notes = _security_notes(bound_host, secret, generated, policy)
        config = uvicorn.Config(app, host=host, port=bound_port, log_level=log_level, lifespan="on")
        uv_server = uvicorn.Server(config)

        async def announce() -> None:
            while not uv_server.started:
                await asyncio.sleep(0.02)
            for note in notes:
                print(f"workbench.mcp: {note}", file=sys.stderr, flush=True)
            print(f"workbench.mcp: serving {count} at {url}", file=sys.stderr, flush=True)
            if ready is not None:
                ready(url)

        announcer = asyncio.ensure_future(announce())
        serving = asyncio.ensure_future(uv_server.serve(sockets=[sock]))
        try:
            # shielded: a cancelled caller asks uvicorn to exit instead of cancelling it mid-lifespan,
            # which would make starlette log a CancelledError traceback
            await asyncio.shield(serving)
        except asyncio.CancelledError:
            uv_server.should_exit = True
            await serving
            raise
        finally:
            announcer.cancel()
            sock.close()
    finally:
        bridge.unsubscribe()
        bridge.served.close()


def _security_notes(bound_host: str, secret: Optional[str], generated: bool, policy: Any) -> list[str]:
    """What the server prints before "serving …": the token policy and, beyond loopback, a warning."""
    notes = []
    if not _security.is_loopback(bound_host):
        notes.append(
            f"WARNING: listening on {bound_host}, beyond loopback: anyone who can reach this port and holds "
            "the token can run these tools; the traffic is plain HTTP (put a TLS proxy in front on "
            "untrusted networks)"
        )
        hosts = ", ".join(map(str, policy.hosts))
        notes.append(f"allowed Host headers: {hosts}, any port unless one is shown (add others with --allow-host)")
    if generated:
        notes.append(f"clients must send 'Authorization: Bearer <token>'; generated bearer token: {secret}")
    elif secret is not None:
        notes.append(
            f"clients must send 'Authorization: Bearer <token>' with the token given "
            f"(--token / ${_security.TOKEN_ENV} / token=)"
        )
    return notes


def serve(registry: Any, transport: str = "stdio", host: str = "127.0.0.1", port: int = 8000, **options: Any) -> None:
    """Serve ``registry`` over MCP; blocks until the server stops. See :func:`serve_async`."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        raise RuntimeError(
            "serve() blocks and cannot run inside a running event loop (e.g. Jupyter): "
            "use `await serve_async(registry, ...)`, or run serve() in a thread"
        )
    anyio.run(lambda: serve_async(registry, transport, host, port, **options))
