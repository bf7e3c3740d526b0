"""Connect to an MCP server and register its tools as workbench proxy tools.

:class:`McpConnection` is made of parts with one job each: the loop thread (``_loop``), the session
(``_session``), the proxy tools (``_proxies``), the client features — sampling, elicitation, roots,
resources, prompts (``_features``) —, tasks (``_tasks``), cache hints (``_cache``) and config export
(``_config``). This module puts them together, and :func:`connect` makes one from a transport
object (``_transport_objects``) or the keywords that build one.
"""

from __future__ import annotations

import atexit
import builtins
import contextlib
import logging
import os
import time
import weakref
from typing import Any, Callable, Optional, Sequence

from workbench.mcp._auth import oauth_failure
from workbench.mcp._cache import CacheHints
from workbench.mcp._config import ConfigExport
from workbench.mcp._eras import client_mode
from workbench.mcp._errors import McpConnectionError, McpTimeoutError
from workbench.mcp._features import ClientFeatures
from workbench.mcp._proxies import McpProxyTool, ProxyTools
from workbench.mcp._tasks import TaskFeatures
from workbench.mcp._transport_objects import McpTransport, transport_of
from workbench.mcp._transports import refusal_note
from workbench.protocols import LogSink
from workbench.secrets import scrub_text

__all__ = ["connect", "McpConnection", "McpProxyTool", "McpConnectionError", "McpTimeoutError"]

logger = logging.getLogger("workbench.mcp")

_LIVE: "weakref.WeakSet[McpConnection]" = weakref.WeakSet()
_GIVE_UP_TIMEOUT = 1.0  # seconds to stop a server that let connect_timeout run out (it is not answering)


class McpConnection(ProxyTools, ClientFeatures, TaskFeatures, CacheHints, ConfigExport):
    """A live connection to an MCP server whose tools are registered as :class:`McpProxyTool`.

    Made by :func:`connect`. ``tools`` lists the registered names; :meth:`disconnect` (or leaving
    a ``with`` block) unregisters them, closes the session and stops the background thread
    (and, for ``command=``, the server process). It is a tool source
    (``workbench.protocols.ToolSource``): ``run_agent(model, prompt, tools=connection)`` offers the
    server's tools.
    """

    def __init__(
        self,
        transport: Any,
        *,
        label: str,
        registry: Any,
        prefix: str = "",
        replace: bool = False,
        timeout: Optional[float] = None,
        read_timeout: Optional[float] = None,
        stderr_file: Any = None,
        sampling: Any = None,
        elicitation: Any = None,
        roots: Optional[Sequence[Any]] = None,
        log: Optional[LogSink] = None,
        keepalive: Optional[float] = None,
        use_tasks: bool = False,
        protocol_version: Optional[str] = None,
    ) -> None:
        self._init_features(sampling=sampling, elicitation=elicitation, roots=roots, log=log)
        self._init_tasks(use_tasks)
        self._init_cache_hints()
        self.label = label
        self.registry = registry
        self.prefix = prefix
        self.replace = replace
        self.timeout = timeout
        self._init_proxies()
        self._init_session(transport, read_timeout=read_timeout, mode=client_mode(protocol_version))
        self._stderr_file = stderr_file
        self._stderr_text = ""
        self._refused: list[int] = []  # HTTP 401/403 answers seen (url= connections)
        self._secrets: list[str] = []  # credentials in the command, URL or headers (set by connect())
        self._connect_arguments: Optional[dict[str, Any]] = None  # what connect() was given (for reconnect)
        self.transport: Optional[McpTransport] = None  #: how connect() reached the server (a transport object)
        self.keepalive = keepalive  #: seconds between liveness probes (None: no probes)
        self._start_loop(label)

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
                message = (
                    f"Could not connect to MCP server {self.label}: no answer to the handshake and the tool list "
                    f"within connect_timeout={connect_timeout:g} s"
                )
                if detail:
                    message += "\nserver stderr:\n" + "\n".join(detail.splitlines()[-20:])
                raise McpTimeoutError(scrub_text(message, self._secrets)) from (None if self._secrets else exc)
            auth = getattr(self.transport, "auth", None)
            failed_flow = oauth_failure(exc) if auth is not None else None
            if failed_flow is not None:  # says what failed; the 401 that started the flow adds nothing
                grant = getattr(auth, "grant", None)
                message = (
                    f"Could not connect to MCP server {self.label}: the OAuth {grant + ' ' if grant else ''}"
                    f"flow failed: {_describe(failed_flow)}"
                )
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
        self._unregister_all()
        self._notify_disconnected()
        process = self._process
        if process is not None:
            process.stop_timeout = timeout * 0.75  # the rest is for the session's own teardown
        try:
            self._submit_and_wait(self._close_session(timeout * 0.9), deadline)
        finally:
            self._stop_loop(deadline)
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
            raise McpConnectionError(
                f"MCP connection to {self.label} was not made by connect(): nothing to reconnect to"
            )
        self.disconnect()
        arguments = {
            **self._connect_arguments,
            "sampling": self.sampling_handler,
            "elicitation": self.elicitation_handler,
            "roots": list(self._roots) if self._declared["roots"] else None,
            "log": self.log,
            "connect_timeout": connect_timeout,
            "use_tasks": self.use_tasks,
        }
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


def connect(
    command: Optional[Sequence[str] | str | McpTransport] = None,
    *,
    url: Optional[str] = None,
    registry: Any = None,
    prefix: str = "",
    replace: bool = False,
    env: Optional[dict[str, str]] = None,
    cwd: Optional[str | os.PathLike] = None,
    headers: Optional[dict[str, str]] = None,
    token: Optional[str] = None,
    timeout: Optional[float] = None,
    connect_timeout: Optional[float] = 30.0,
    read_timeout: Optional[float] = None,
    transport: Optional[str | McpTransport] = None,
    keepalive: Optional[float] = None,
    auth: Any = None,
    sampling: Optional[Callable[[Any], Any]] = None,
    elicitation: Optional[Callable[[Any], Any]] = None,
    roots: Optional[Sequence[Any]] = None,
    log: Optional[LogSink] = None,
    use_tasks: bool = False,
    config: Any = None,
    server: Any = None,
    protocol_version: Optional[str] = None,
) -> McpConnection:
    """Connect to an MCP server and register its tools as proxy tools.

    The server is a transport object — ``connect(StdioTransport(["python", "-m", "pkg.server"], env=...))``,
    ``connect(HttpTransport(url, token=...))``, ``connect(InProcessTransport(server))`` (as the first
    argument or ``transport=``; ``connection.transport`` is it) — or given by the keywords below that
    build one (``command=``, ``url=``, ``env=``, ``cwd=``, ``headers=``, ``token=``, ``auth=``,
    ``transport="sse"``, ``server=``, ``config=``). The other keywords are the session's settings.

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
        transport: a transport object, or for ``url=``: ``"streamable-http"`` (the default) or ``"sse"``
            (older servers).
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
    target = transport_of(
        command,
        url=url,
        env=env,
        cwd=cwd,
        headers=headers,
        token=token,
        transport=transport,
        auth=auth,
        config=config,
        server=server,
    )
    if keepalive is not None and not (
        isinstance(keepalive, (int, float))
        and not isinstance(keepalive, bool)
        and keepalive > 0
        and keepalive != float("inf")
    ):
        raise ValueError(
            f"connect(keepalive={keepalive!r}): expected a positive number of seconds between "
            "liveness probes (or None for none)"
        )
    client_mode(protocol_version)  # a bad value is refused before anything starts
    if registry is None:
        from workbench.registry import default_registry

        registry = default_registry()
    opened = target.open()
    connection = McpConnection(
        opened.transport,
        label=opened.label,
        registry=registry,
        prefix=prefix,
        replace=replace,
        timeout=timeout,
        read_timeout=read_timeout,
        stderr_file=opened.stderr_file,
        sampling=sampling,
        elicitation=elicitation,
        roots=roots,
        log=log,
        keepalive=keepalive,
        use_tasks=use_tasks,
        protocol_version=protocol_version,
    )
    connection._refused = opened.refused
    connection._secrets = opened.secrets
    connection._process = opened.process
    connection.transport = target
    connection._connect_arguments = dict(  # for reconnect(); a config entry is already read into the transport
        transport=target,
        registry=registry,
        prefix=prefix,
        replace=replace,
        timeout=timeout,
        read_timeout=read_timeout,
        keepalive=keepalive,
        use_tasks=use_tasks,
        protocol_version=protocol_version,
    )
    return connection._start(connect_timeout)


@atexit.register
def _disconnect_all() -> None:
    for connection in list(_LIVE):
        with contextlib.suppress(Exception):
            connection.disconnect(timeout=3.0)
