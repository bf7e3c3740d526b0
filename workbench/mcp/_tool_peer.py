"""The peer of a served tool's ``ToolContext``: the MCP client of the request that called it.

``ctx.log`` → ``notifications/message`` (at or above the level the client set with
``logging/setLevel``); ``ctx.elicit`` → ``elicitation/create``; ``ctx.sample`` →
``sampling/createMessage``; ``ctx.release_stream`` closes the request's SSE stream (the client
resumes with ``Last-Event-ID``). Everything rides the calling request's stream, in order with its
progress notifications and before its result.
"""

from __future__ import annotations

import asyncio
import logging
import warnings
import weakref
from typing import Any, Callable, Optional

import mcp.types as types

from workbench._peer import LOG_LEVELS, Elicitation, NobodyToAsk, Sampled

__all__ = ["ServedPeer", "LogLevels"]

logger = logging.getLogger("workbench.mcp")


def _quietly(call: Callable[[], Any]) -> Any:
    """Call an SDK method flagged as removed from protocol 2026-07-28 (logging, sampling): the
    sessions that negotiated an earlier version — the ones that declare these capabilities — use them."""
    from mcp.shared.exceptions import MCPDeprecationWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        return call()


class LogLevels:
    """The least severe level each client connection asked for (``logging/setLevel``); weakly keyed,
    so a level goes with its connection. A connection that set none gets every level."""

    def __init__(self) -> None:
        self._levels: "weakref.WeakKeyDictionary[Any, str]" = weakref.WeakKeyDictionary()

    def set(self, connection: Any, level: str) -> None:
        try:
            self._levels[connection] = level
        except TypeError:  # not weakly referenceable: every level goes
            pass

    def allows(self, connection: Any, level: str) -> bool:
        try:
            least = self._levels.get(connection, LOG_LEVELS[0])
        except TypeError:
            least = LOG_LEVELS[0]
        return LOG_LEVELS.index(level) >= LOG_LEVELS.index(least)


class ServedPeer:
    """One ``tools/call``'s way back to its client. ``send(factory)`` queues a coroutine factory on
    the call's ordered outbox (progress and logs leave in the order the tool made them)."""

    def __init__(
        self,
        ctx: Any,
        loop: asyncio.AbstractEventLoop,
        send: Callable[[Callable[[], Any]], None],
        levels: LogLevels,
        connection: Any,
    ) -> None:
        self.ctx = ctx
        self.loop = loop
        self._send = send
        self._levels = levels
        self._connection = connection

    # -- logging ---------------------------------------------------------------------------------
    def log(self, level: str, message: str, tool_name: str) -> None:
        if not self._levels.allows(self._connection, level):
            return
        session, request_id = self.ctx.session, self.ctx.request_id
        self._post(
            lambda: _quietly(
                lambda: session.send_log_message(
                    level, message, logger=tool_name or None, related_request_id=request_id
                )
            )
        )

    def _post(self, factory: Callable[[], Any]) -> None:
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self.loop:
            self._send(factory)
        else:  # a sync tool in a worker thread
            try:
                self.loop.call_soon_threadsafe(self._send, factory)
            except RuntimeError:  # the server's loop has closed
                pass

    # -- asking the client -------------------------------------------------------------------------
    def _require(self, capability: types.ClientCapabilities, what: str, tool_name: str) -> None:
        if not self.ctx.session.can_send_request:
            raise NobodyToAsk(
                f"Tool '{tool_name}' asked the MCP client for {what}, but this session (protocol "
                f"{self.ctx.session.protocol_version}) has no channel for server requests: from 2026-07-28 a server "
                "asks through input_required results (multi-round trip), which served workbench tools do not speak "
                "yet. A client on protocol 2025-11-25 or earlier can answer."
            )
        if not self.ctx.session.check_client_capability(capability):
            raise NobodyToAsk(
                f"Tool '{tool_name}' asked the MCP client for {what}, but the client did not declare "
                f"the {what} capability (it cannot answer): the call fails rather than guess"
            )

    async def elicit(self, message: str, schema: dict[str, Any], tool_name: str) -> Elicitation:
        self._require(types.ClientCapabilities(elicitation=types.ElicitationCapability()), "elicitation", tool_name)
        answer = await self.ctx.session.elicit_form(message, schema, related_request_id=self.ctx.request_id)
        return Elicitation(str(answer.action), dict(answer.content or {}))

    async def sample(self, messages: list[dict[str, Any]], options: dict[str, Any], tool_name: str) -> Sampled:
        self._require(types.ClientCapabilities(sampling=types.SamplingCapability()), "sampling", tool_name)
        chat = [types.SamplingMessage.model_validate(message) for message in messages]
        known = {k: v for k, v in options.items() if v is not None}
        answer = await _quietly(
            lambda: self.ctx.session.create_message(chat, related_request_id=self.ctx.request_id, **known)
        )
        content = answer.content
        block = content[0] if isinstance(content, list) and content else content
        text = getattr(block, "text", None)
        dumped = (
            content.model_dump(by_alias=True, exclude_none=True, mode="json")
            if hasattr(content, "model_dump")
            else [c.model_dump(by_alias=True, exclude_none=True, mode="json") for c in content or ()]
        )
        return Sampled(text if isinstance(text, str) else "", str(answer.model or ""), answer.stop_reason, dumped)

    # -- streams -------------------------------------------------------------------------------------
    def release_stream(self) -> bool:
        close: Optional[Callable[[], Any]] = getattr(self.ctx, "close_sse_stream", None)
        if close is None:  # stdio, JSON responses, or a client before 2025-11-25 (it could not resume)
            return False
        self._post(close)
        return True
