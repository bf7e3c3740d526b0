"""The MCP handlers of a server's resources, prompts and completion (``@resource`` / ``@prompt``).

Reading a resource, expanding a template and rendering a prompt are the SDK's: the declarations are
registered into an ``MCPServer`` (``mcp.server.mcpserver``) whose handlers answer ``resources/*``
and ``prompts/*``. This module adds what that server leaves to its author: ``resources/subscribe``
bookkeeping with ``notifications/resources/updated`` (and ``subscriptions/listen`` events on the
2026-07-28 protocol), ``completion/complete`` from the declarations' hooks, and protocol errors that
name the unknown prompt or the missing arguments.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import weakref
from typing import Any, Iterable, Optional

import mcp.types as types
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import ResourceUpdated

from workbench.mcp._served import COMPLETION_LIMIT, Prompt, Resource, Served, sdk_server
from workbench.mcp._sessions import connection_of

__all__ = ["ServedHandlers", "check_served"]

logger = logging.getLogger("workbench.mcp")


def check_served(served: Iterable[Any]) -> list[Served]:
    """The declarations as a list; a clear error for anything else or for two with one URI / name."""
    items: list[Served] = []
    seen: dict[tuple[str, Any], Served] = {}
    for item in served:
        if not isinstance(item, Served):
            raise TypeError(
                f"served= takes what @resource and @prompt return, not {type(item).__name__} "
                f"{item!r:.80} (tools go in the registry)"
            )
        key = (item.kind, item.uri if isinstance(item, Resource) else item.name)
        other = seen.get(key)
        if other is not None and other is not item:
            raise ValueError(f"two {item.kind}s are declared as {key[1]!r}: {other!r} and {item!r}")
        if other is None:
            seen[key] = item
            items.append(item)
    return items


class ServedHandlers:
    """Resources, templates and prompts of one server, and who subscribed to which resource."""

    def __init__(self, served: Iterable[Any], bridge: Any, name: str) -> None:
        from mcp.server.mcpserver import MCPServer

        self.items = check_served(served)
        self.bridge = bridge
        # the SDK's server as the catalogue: its handlers answer; the bus is the workbench server's
        self.sdk = sdk_server(MCPServer, name, subscriptions=bridge.bus)
        for item in self.items:
            item.register(self.sdk)
            item._servers.add(self)
        self.resources = [item for item in self.items if isinstance(item, Resource)]
        self.prompts = {item.name: item for item in self.items if isinstance(item, Prompt)}
        self.templates = {item.uri: item for item in self.resources if item.is_template}
        # uri → the client connections subscribed to it, each with its event loop (weakly: a
        # connection goes when its session ends)
        self._subscribers: dict[str, "weakref.WeakKeyDictionary[Any, asyncio.AbstractEventLoop]"] = {}
        self._lock = threading.Lock()  # updated() may run in any thread while the loop (un)subscribes

    def server_handlers(self) -> dict[str, Any]:
        """The low-level ``Server`` constructor's ``on_*`` arguments for what is declared."""
        handlers: dict[str, Any] = {}
        if self.resources:
            handlers.update(
                on_list_resources=self.sdk._handle_list_resources,
                on_list_resource_templates=self.sdk._handle_list_resource_templates,
                on_read_resource=self.sdk._handle_read_resource,
                on_subscribe_resource=self.subscribe,
                on_unsubscribe_resource=self.unsubscribe,
            )
        if self.prompts:
            handlers.update(on_list_prompts=self.sdk._handle_list_prompts, on_get_prompt=self.get_prompt)
        if self.prompts or self.templates:
            handlers["on_completion"] = self.complete
        return handlers

    def counts(self) -> str:
        """``", 3 resources, 2 prompts"`` for the start-up line (empty when nothing is declared)."""
        parts = [(len(self.resources), "resource"), (len(self.prompts), "prompt")]
        return "".join(f", {n} {word}{'s' if n != 1 else ''}" for n, word in parts if n)

    # -- prompts/get --------------------------------------------------------------------------------
    async def get_prompt(self, ctx: Any, params: types.GetPromptRequestParams) -> Any:
        declared = self.prompts.get(params.name)
        if declared is None:
            known = ", ".join(sorted(self.prompts)) or "none"
            raise MCPError(types.INVALID_PARAMS, f"Unknown prompt {params.name!r} (this server has: {known})")
        given = params.arguments or {}
        missing = [a.name for a in declared._declared.arguments or [] if a.required and a.name not in given]
        if missing:
            raise MCPError(
                types.INVALID_PARAMS, f"Prompt {params.name!r} needs the argument(s) {', '.join(map(repr, missing))}"
            )
        return await self.sdk._handle_get_prompt(ctx, params)

    # -- resources/subscribe, resources/unsubscribe ---------------------------------------------------
    def _known(self, uri: str) -> bool:
        return any(item.matches(uri) for item in self.resources)

    async def subscribe(self, ctx: Any, params: types.SubscribeRequestParams) -> types.EmptyResult:
        uri = str(params.uri)
        if not self._known(uri):
            raise MCPError(types.INVALID_PARAMS, f"Unknown resource {uri!r}: cannot subscribe to it")
        self.bridge._seen(ctx)
        connection = connection_of(ctx.session)
        try:
            with self._lock:
                self._subscribers.setdefault(uri, weakref.WeakKeyDictionary())[connection] = asyncio.get_running_loop()
        except TypeError:  # a connection that cannot be weakly referenced cannot be followed
            raise MCPError(types.INTERNAL_ERROR, "this transport's sessions cannot subscribe") from None
        return types.EmptyResult()

    async def unsubscribe(self, ctx: Any, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
        with self._lock:
            subscribers = self._subscribers.get(str(params.uri))
            if subscribers is not None:
                subscribers.pop(connection_of(ctx.session), None)
        return types.EmptyResult()

    def _forget(self, uri: str, connection: Any) -> None:
        with self._lock:
            self._subscribers.get(uri, {}).pop(connection, None)

    async def _send_updated(self, connection: Any, uri: str) -> None:
        try:
            await connection.send_resource_updated(uri)
        except Exception:  # noqa: BLE001 - a gone client: forget it
            logger.debug("could not send notifications/resources/updated", exc_info=True)
            self._forget(uri, connection)

    def subscribed(self, uri: str) -> int:
        """How many client sessions follow ``uri`` through ``resources/subscribe``."""
        with self._lock:
            return len(self._subscribers.get(uri, ()))

    def resource_updated(self, uri: str) -> None:
        """Announce a change of ``uri`` (any thread): on ``subscriptions/listen`` streams, and as
        ``notifications/resources/updated`` to each session subscribed to it."""
        loop = self.bridge.loop
        if loop is not None:
            try:
                loop.call_soon_threadsafe(lambda: asyncio.ensure_future(self.bridge.bus.publish(ResourceUpdated(uri))))
            except RuntimeError:  # the server's loop has closed
                pass
        with self._lock:
            followers = list(self._subscribers.get(uri, {}).items())
        for connection, conn_loop in followers:
            try:
                # (mypy cannot type a lambda with a default argument)
                conn_loop.call_soon_threadsafe(lambda c=connection: asyncio.ensure_future(self._send_updated(c, uri)))  # type: ignore[misc]
            except RuntimeError:  # that connection's loop has closed
                self._forget(uri, connection)

    # -- completion/complete ----------------------------------------------------------------------------
    def _completed(self, ref: Any) -> Optional[Served]:
        if isinstance(ref, types.PromptReference):
            return self.prompts.get(ref.name)
        return self.templates.get(str(ref.uri))

    async def complete(self, ctx: Any, params: types.CompleteRequestParams) -> types.CompleteResult:
        ref = params.ref
        item = self._completed(ref)
        if item is None:
            what = (
                f"prompt {ref.name!r}" if isinstance(ref, types.PromptReference) else f"resource template {ref.uri!r}"
            )
            raise MCPError(types.INVALID_PARAMS, f"Cannot complete: this server has no {what}")
        arguments = params.context.arguments if params.context is not None else None
        try:
            values = await item.complete(params.argument.name, params.argument.value, arguments)
        except Exception as exc:  # noqa: BLE001 - the author's hook failed: say which
            logger.exception("completion hook of %r failed", params.argument.name)
            raise MCPError(
                types.INTERNAL_ERROR, f"Completing {params.argument.name!r} failed: {type(exc).__name__}: {exc}"
            ) from exc
        return types.CompleteResult(
            completion=types.Completion(
                values=values[:COMPLETION_LIMIT], total=len(values), has_more=len(values) > COMPLETION_LIMIT
            )
        )

    def close(self) -> None:
        """Stop announcing updates to this server's clients."""
        for item in self.items:
            item._servers.discard(self)
