"""What the server asks of the client and tells it: the server → client side of an MCP connection.

Server → client requests (sampling, elicitation, roots) are answered by handlers the user gives,
each answer kept as a row of the connection's log; server notifications (logging, list changes,
resource updates) and every protocol message are recorded and passed to listeners, so notebook views
can follow them live. Mixed into :class:`~workbench.mcp.McpConnection` (through ``ClientFeatures``).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence

import mcp.types as types

from workbench.mcp._elicitation import with_defaults
from workbench.mcp._errors import McpConnectionError
from workbench.mcp._record import Notification, ProtocolMessage, Record, ServerLog, now
from workbench.protocols import LogSink
from workbench.secrets import is_secret_name, mask_arguments
from workbench.types import ToolResult, new_tool_use_id, utc_now_iso

if TYPE_CHECKING:  # pragma: no cover
    from mcp.client import Client

__all__ = ["ELICITATION_ROW", "SAMPLING_ROW", "ServerRequests", "legacy"]

logger = logging.getLogger("workbench.mcp")

SAMPLING_ROW = "mcp:sampling/createMessage"  #: tool_name of the log rows of sampling requests
ELICITATION_ROW = "mcp:elicitation/create"  #: tool_name of the log rows of elicitation requests
_CHANGE_KINDS = {
    "notifications/tools/list_changed": "tools",
    "notifications/resources/list_changed": "resources",
    "notifications/prompts/list_changed": "prompts",
}


def _root(value: Any) -> types.Root:
    """A ``Root`` from a Root, a ``{"uri", "name"}`` dict, a ``file://`` URI or a local path."""
    if isinstance(value, types.Root):
        return value
    if isinstance(value, dict):
        return types.Root.model_validate(value)
    if isinstance(value, str) and "://" in value:
        return types.Root.model_validate({"uri": value})
    import os
    from pathlib import Path

    if isinstance(value, (str, os.PathLike)):
        path = Path(value).expanduser().resolve()
        return types.Root.model_validate({"uri": path.as_uri(), "name": path.name or str(path)})
    raise TypeError(f"a root is a path, a file:// URI, a {{'uri', 'name'}} dict or mcp.types.Root, got {value!r}")


async def _answer(handler: Callable[[Any], Any], params: Any) -> Any:
    """Call a user handler: a coroutine function is awaited; a plain one runs in a worker thread so
    one that waits (for a click in a notebook, for a model) does not stall the connection."""
    if inspect.iscoroutinefunction(handler) or inspect.iscoroutinefunction(getattr(handler, "__call__", None)):  # noqa: B004 - an async __call__, not callability
        return await handler(params)
    value = await asyncio.to_thread(handler, params)
    if inspect.isawaitable(value):
        value = await value
    return value


def _sampling_result(value: Any) -> types.CreateMessageResult | types.ErrorData:
    if isinstance(value, (types.CreateMessageResult, types.ErrorData)):
        return value
    if isinstance(value, str):
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=value),
            model="workbench-user",
            stop_reason="endTurn",
        )
    if isinstance(value, dict):
        return types.CreateMessageResult.model_validate(value)
    raise TypeError(f"a sampling handler returns a str, a dict or mcp.types.CreateMessageResult, got {value!r}")


def _elicit_result(value: Any, params: Any = None) -> types.ElicitResult | types.ErrorData:
    """The handler's answer as an ``ElicitResult``. An accepting answer (``"accept"``, a dict) of a
    form-mode request is completed with the schema's defaults for the fields it leaves out (SEP-1034:
    a default is what a field the user left alone holds); an ``ElicitResult`` goes as given."""
    if isinstance(value, (types.ElicitResult, types.ErrorData)):
        return value
    if value is None:
        return types.ElicitResult(action="cancel")
    if isinstance(value, str) and value in ("decline", "cancel"):
        return types.ElicitResult(action=value)  # type: ignore[arg-type]
    if value == "accept" or isinstance(value, dict):
        content = with_defaults(value if isinstance(value, dict) else {}, params)
        # a bare "accept" of a request without defaults (a URL-mode one) carries no content
        return types.ElicitResult(action="accept", content=content if content or value != "accept" else None)
    raise TypeError(
        "an elicitation handler returns a dict (the accepted content), 'accept', 'decline', 'cancel', "
        f"None (cancel) or mcp.types.ElicitResult, got {value!r}"
    )


def _dump(value: Any) -> Any:
    return value.model_dump(by_alias=True, exclude_none=True, mode="json") if hasattr(value, "model_dump") else value


def _masked_answer(params: Any, answer: Any) -> Any:
    """An elicitation's answer as the log keeps it: the fields whose name says they hold a credential
    (``password``, ``api_key``…) are ``***`` (MCP's elicitation schemas have no secret format)."""
    content = answer.get("content") if isinstance(answer, dict) else None
    if not isinstance(content, dict):
        return answer
    return {**answer, "content": mask_arguments(content, [k for k in content if is_secret_name(k)])}


async def legacy(call: Callable[[], Any]) -> Any:
    """Await a handshake-era method (ping, resources/subscribe, logging/setLevel) without the SDK's
    deprecation warning: the SDK flags them as removed from protocol 2026-07-28 on, but the servers
    that negotiated an earlier version — every one that declares these capabilities — want them."""
    import warnings

    from mcp.shared.exceptions import MCPDeprecationWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        return await call()


class ServerRequests:
    """The handlers of the server's requests, the records of what it sent, and their listeners.

    Relies on the connection's ``_run_sync``, ``_require_client``, ``label``, ``_list_tools`` and
    ``_apply_tools``.
    """

    # set by _init_requests
    sampling_handler: Optional[Callable[[types.CreateMessageRequestParams], Any]]
    elicitation_handler: Optional[Callable[[types.ElicitRequestParams], Any]]
    log: Optional[LogSink]

    def _init_requests(
        self,
        *,
        sampling: Any = None,
        elicitation: Any = None,
        roots: Optional[Sequence[Any]] = None,
        log: Optional[LogSink] = None,
    ) -> None:
        self.sampling_handler = sampling
        self.elicitation_handler = elicitation
        # the client capabilities declared to the server: only what connect() was given a way to answer
        self._declared = {
            "sampling": sampling is not None,
            "elicitation": elicitation is not None,
            "roots": roots is not None,
        }
        self.log = log
        self._roots: list[types.Root] = [_root(r) for r in roots or ()]
        self._messages: Record[ProtocolMessage] = Record(limit=5000)
        self._notifications: Record[Notification] = Record()
        self._server_logs: Record[ServerLog] = Record()
        self._changes: Record[str] = Record(limit=200)
        self._resource_listeners: dict[str, list[Callable[[str], Any]]] = {}

    # -- the SDK client's callbacks (on the connection loop) ------------------------------------------
    def _client_callbacks(self) -> dict[str, Any]:
        """The SDK client's callbacks. The SDK declares sampling, elicitation and roots for exactly the
        callbacks it is given, so those without a handler are left out: a client must not declare
        what it would answer with an error."""
        callbacks: dict[str, Callable[..., Any]] = {
            "logging_callback": self._on_log,
            "message_handler": self._on_message,
        }
        optional: dict[str, tuple[str, Callable[..., Any]]] = {
            "sampling": ("sampling_callback", self._on_sampling),
            "elicitation": ("elicitation_callback", self._on_elicitation),
            "roots": ("list_roots_callback", self._on_list_roots),
        }
        for capability, (option, callback) in optional.items():
            if self._declared[capability]:
                callbacks[option] = callback
        return callbacks

    def _record_message(self, direction: str, message: Optional[dict]) -> None:
        if message is not None:
            self._messages.add(ProtocolMessage(now(), direction, message))

    async def _on_sampling(self, context: Any, params: types.CreateMessageRequestParams) -> Any:
        return await self._serve_request(SAMPLING_ROW, "sampling", self.sampling_handler, params, _sampling_result)

    async def _on_elicitation(self, context: Any, params: Any) -> Any:
        return await self._serve_request(
            ELICITATION_ROW,
            "elicitation",
            self.elicitation_handler,
            params,
            lambda answer: _elicit_result(answer, params),
        )

    async def _serve_request(
        self, row_name: str, what: str, handler: Any, params: Any, convert: Callable[[Any], Any]
    ) -> Any:
        started = utc_now_iso()
        if handler is None:
            answer: Any = types.ErrorData(
                code=types.INVALID_REQUEST,
                message=f"the client has no {what} handler: connect(..., {what}=handler) "
                f"or set connection.{what}_handler",
            )
        else:
            try:
                answer = convert(await _answer(handler, params))
            except Exception as exc:  # noqa: BLE001 - the server gets an error, the notebook a log row
                logger.warning("MCP %s handler failed: %s", what, exc)
                answer = types.ErrorData(code=types.INTERNAL_ERROR, message=f"{type(exc).__name__}: {exc}")
        self._log_request(row_name, params, answer, started)
        return answer

    def _log_request(self, row_name: str, params: Any, answer: Any, started: str) -> None:
        if self.log is None:
            return
        failed = isinstance(answer, types.ErrorData)
        metadata: dict[str, Any] = {"tool_name": row_name, "server": getattr(self, "label", "")}
        if failed:
            metadata.update(error_type="McpError", error=answer.message)
        answered = None if failed else _masked_answer(params, _dump(answer))
        content = [{"text": f"Error: {answer.message}"}] if failed else [{"json": answered}]
        result = ToolResult(
            toolUseId=new_tool_use_id(),
            status="error" if failed else "success",
            content=content,
            metadata=metadata,
            started_at=started,
            completed_at=utc_now_iso(),
            value=answered,
        )
        try:
            self.log.append(result, {"toolUseId": result.tool_use_id, "name": row_name, "input": _dump(params)})
        except Exception:  # noqa: BLE001 - a closed log must not fail the server's request
            logger.warning("could not log an MCP %s request", row_name, exc_info=True)

    async def _on_list_roots(self, context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=list(self._roots))

    async def _on_log(self, params: types.LoggingMessageNotificationParams) -> None:
        self._server_logs.add(ServerLog(now(), str(params.level), params.logger, params.data))
        # kept in the execution log too (with connect(log=...)), a row per message, as sampling requests are
        self._log_request("mcp:notifications/message", params, _dump(params), utc_now_iso())

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, Exception):
            logger.debug("MCP transport error from %s: %s", getattr(self, "label", "?"), message)
            return
        inner = getattr(message, "root", message)
        method = getattr(inner, "method", None)
        if not isinstance(method, str):
            return
        params = _dump(getattr(inner, "params", None)) or {}
        self._notifications.add(Notification(now(), method, params))
        kind = _CHANGE_KINDS.get(method)
        if kind == "tools":  # announced once the tools are re-registered
            asyncio.get_running_loop().create_task(self._refresh_tools_soon())
        elif kind is not None:
            self._changes.add(kind)
        if method == "notifications/resources/updated":
            uri = params.get("uri", "")
            for listener in list(self._resource_listeners.get(uri, ())):
                try:
                    listener(uri)
                except Exception:  # noqa: BLE001
                    logger.warning("a resource listener for %s failed", uri, exc_info=True)

    async def _follow_changes(self, client: "Client") -> None:
        """On the 2026-07-28 protocol, list changes come through a ``subscriptions/listen`` stream
        rather than standing notifications: open one for what the server can announce and keep it open.
        The SDK hands each event to the connection's message handler as the notification it replaces
        (earlier protocols send those directly), so the events are not handled here again."""
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        caps = client.server_capabilities
        if client.protocol_version not in MODERN_PROTOCOL_VERSIONS or caps is None:
            return
        tools_changed = bool(caps.tools and caps.tools.list_changed)
        prompts_changed = bool(caps.prompts and caps.prompts.list_changed)
        resources_changed = bool(caps.resources and caps.resources.list_changed)
        if not (tools_changed or prompts_changed or resources_changed):
            return
        try:
            async with client.listen(
                tools_list_changed=tools_changed,
                prompts_list_changed=prompts_changed,
                resources_list_changed=resources_changed,
            ) as subscription:
                async for _event in subscription:  # delivered to _on_message by the SDK already
                    pass
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - the session ended, or the server does not serve listen after all
            logger.debug("the change stream of %s ended", getattr(self, "label", "?"), exc_info=True)

    async def _refresh_tools_soon(self) -> None:
        """Re-list the tools after ``notifications/tools/list_changed`` (off the message loop: the
        refresh itself is a request whose answer the message loop must deliver)."""
        try:
            tools = await self._list_tools()  # type: ignore[attr-defined]
            self._apply_tools(tools)  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - e.g. the connection closed meanwhile
            logger.debug("refreshing the tools of %s failed", getattr(self, "label", "?"), exc_info=True)
            return
        self._changes.add("tools")

    # -- what the server sent, and its listeners ------------------------------------------------------
    @property
    def server_logs(self) -> list[ServerLog]:
        """The server's ``notifications/message`` entries, oldest first."""
        return self._server_logs.items()

    def on_server_log(self, callback: Callable[[ServerLog], Any]) -> Callable[[], None]:
        """Call ``callback(ServerLog)`` for each new server log entry; returns an unsubscribe."""
        return self._server_logs.subscribe(callback)

    @property
    def notifications(self) -> list[Notification]:
        """Every notification the server sent, oldest first."""
        return self._notifications.items()

    def on_notification(self, callback: Callable[[Notification], Any]) -> Callable[[], None]:
        """Call ``callback(Notification)`` for each new server notification; returns an unsubscribe."""
        return self._notifications.subscribe(callback)

    def on_change(self, callback: Callable[[str], Any]) -> Callable[[], None]:
        """Call ``callback(kind)`` when the server's ``tools``, ``resources`` or ``prompts`` list changed
        (tools are re-listed and re-registered first). The callback runs on the connection's thread:
        calling the connection's blocking methods from it would deadlock — hand work to another
        thread. Returns an unsubscribe."""
        return self._changes.subscribe(callback)

    @property
    def messages(self) -> list[ProtocolMessage]:
        """The connection's JSON-RPC messages, newest first (as MCP Inspector's history)."""
        return self._messages.items()[::-1]

    def on_message(self, callback: Callable[[ProtocolMessage], Any]) -> Callable[[], None]:
        """Call ``callback(ProtocolMessage)`` for each message sent or received; returns an unsubscribe."""
        return self._messages.subscribe(callback)

    # -- roots -------------------------------------------------------------------------------------------
    @property
    def roots(self) -> list[types.Root]:
        """The roots this client offers the server (``roots/list``)."""
        return list(self._roots)

    def set_roots(self, roots: Sequence[Any], timeout: Optional[float] = 30.0) -> None:
        """Replace the roots (paths, ``file://`` URIs or ``{"uri", "name"}`` dicts) and send
        ``notifications/roots/list_changed``. Only on a connection made with ``roots=`` (which
        declared the roots capability); others raise ``McpConnectionError`` saying so."""
        if not self._declared["roots"]:
            raise McpConnectionError(
                f"MCP connection to {getattr(self, 'label', '?')} did not declare the roots capability, so the server "
                "never asks for roots: connect(..., roots=[...]) offers them (roots=[] to start with none)"
            )
        self._roots = [_root(r) for r in roots]
        if getattr(self, "connected", False):
            client = self._require_client()  # type: ignore[attr-defined]
            self._run_sync(legacy(client.send_roots_list_changed), timeout)  # type: ignore[attr-defined]
