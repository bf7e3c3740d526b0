"""What the client does differently on the two MCP protocol eras.

The SDK's ``Client`` picks the era at connect time (``mode="auto"``: it probes ``server/discover`` and
falls back to the ``initialize`` handshake): a 2026-07-28 connection has no ``ping`` and no
``resources/subscribe``, which that revision removed. Their replacements:

* liveness: ``server/discover`` (any answer proves the server is there) instead of ``ping``;
* resource updates: a ``subscriptions/listen`` stream naming the resource, held open until
  unsubscribed, instead of ``resources/subscribe`` / ``resources/unsubscribe``. Its
  ``notifications/resources/updated`` frames reach the connection's message handler as on the
  handshake era (the SDK tees listen-stream events there).
"""

from __future__ import annotations

import asyncio
import logging
import warnings
from typing import Any, Awaitable, Callable, Optional

from mcp_types.version import LATEST_HANDSHAKE_VERSION, MODERN_PROTOCOL_VERSIONS

from workbench.mcp._errors import McpConnectionError

__all__ = [
    "KEEPALIVE_MIN_WAIT",
    "PROTOCOL_MODES",
    "answers",
    "client_mode",
    "is_modern",
    "keep_alive",
    "probe",
    "ResourceSubscriptions",
]

#: a keepalive probe fails only after this long at least: a busy machine must not turn a slow answer
#: into a killed server
KEEPALIVE_MIN_WAIT = 5.0

logger = logging.getLogger("workbench.mcp")


#: ``connect(protocol_version=...)`` → the SDK ``Client``'s ``mode``: ``None`` negotiates the newest the
#: server speaks; the handshake era is asked for with the ``initialize`` handshake (whose version the SDK
#: sets: the latest handshake revision); a modern revision is adopted without a probe
PROTOCOL_MODES: dict[Optional[str], str] = {
    None: "auto",
    LATEST_HANDSHAKE_VERSION: "legacy",
    **{version: version for version in MODERN_PROTOCOL_VERSIONS},
}


def client_mode(protocol_version: Optional[str]) -> str:
    """The SDK client's ``mode`` for ``connect(protocol_version=...)``; ``ValueError`` naming the choices."""
    try:
        return PROTOCOL_MODES[protocol_version]
    except (KeyError, TypeError):
        choices = ", ".join(repr(version) for version in PROTOCOL_MODES)
        raise ValueError(
            f"connect(protocol_version={protocol_version!r}): expected one of {choices} "
            "(None: the newest the server speaks)"
        ) from None


def is_modern(client: Any) -> bool:
    """True on a 2026-07-28 (or later) connection."""
    return client.protocol_version in MODERN_PROTOCOL_VERSIONS


async def _legacy(call: Callable[[], Awaitable[Any]]) -> Any:
    """Await a handshake-era method without the SDK's deprecation warning (it is the right method there)."""
    from mcp.shared.exceptions import MCPDeprecationWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        return await call()


async def probe(client: Any) -> None:
    """One round trip that proves the server answers: ``ping``, or ``server/discover`` on 2026-07-28."""
    if is_modern(client):
        await client.session.send_discover(client.protocol_version)
    else:
        await _legacy(client.send_ping)


async def answers(client: Any, timeout: float) -> bool:
    """Whether the server answers a :func:`probe` within ``timeout`` seconds. An error answer counts:
    the server is there (only the SDK's own request timeout does not)."""
    from mcp.shared.exceptions import MCPError
    from mcp_types import REQUEST_TIMEOUT

    try:
        await asyncio.wait_for(probe(client), timeout)
    except asyncio.TimeoutError:
        return False
    except MCPError as exc:
        return exc.error.code != REQUEST_TIMEOUT
    return True


async def keep_alive(client: Any, every: float, on_hung: Callable[[float], None]) -> None:
    """Probe the server every ``every`` seconds; the first probe it leaves unanswered for
    ``max(every, KEEPALIVE_MIN_WAIT)`` seconds calls ``on_hung(that wait)`` and ends the loop."""
    wait = max(every, KEEPALIVE_MIN_WAIT)
    while True:
        await asyncio.sleep(every)
        try:
            alive = await answers(client, wait)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - the session is ending: the connection notices that itself
            logger.debug("keepalive probe failed", exc_info=True)
            return
        if not alive:
            on_hung(wait)
            return


class ResourceSubscriptions:
    """The resources a connection is subscribed to, on either era (runs on the connection's loop)."""

    def __init__(self, label: Callable[[], str]) -> None:
        self._label = label
        self._streams: dict[str, asyncio.Task] = {}  # 2026-07-28: uri -> the task holding its listen stream

    @property
    def label(self) -> str:
        return self._label()

    async def subscribe(self, client: Any, uri: str) -> None:
        """Subscribe to ``uri``; raises (leaving nothing behind) when the server does not offer it."""
        resources = client.server_capabilities.resources if client.server_capabilities else None
        if is_modern(client):
            if resources is None:
                raise McpConnectionError(
                    f"MCP server {self.label} has no resources capability: nothing to subscribe to"
                )
            await self._listen(client, uri)
            return
        if resources is None or not resources.subscribe:
            raise McpConnectionError(
                f"MCP server {self.label} does not offer resource subscriptions "
                "(its capabilities have no resources.subscribe)"
            )
        await _legacy(lambda: client.subscribe_resource(uri))

    async def unsubscribe(self, client: Any, uri: str) -> None:
        task = self._streams.pop(uri, None)
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        elif not is_modern(client):
            await _legacy(lambda: client.unsubscribe_resource(uri))

    async def _listen(self, client: Any, uri: str) -> None:
        ready: asyncio.Future = asyncio.get_running_loop().create_future()
        task = asyncio.ensure_future(self._hold(client, uri, ready))
        try:
            await ready
        except BaseException:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            raise
        self._streams[uri] = task

    async def _hold(self, client: Any, uri: str, ready: asyncio.Future) -> None:
        """Open the listen stream for ``uri``, say so through ``ready``, and keep it open (drained)."""
        try:
            async with client.listen(resource_subscriptions=[uri]) as subscription:
                if uri not in (subscription.honored.resource_subscriptions or ()):
                    raise McpConnectionError(f"MCP server {self.label} did not accept a subscription to {uri}")
                ready.set_result(None)
                async for _event in subscription:  # drained; the updates reach the message handler
                    pass
        except asyncio.CancelledError:
            if not ready.done():
                ready.cancel()
            raise
        except BaseException as exc:  # noqa: BLE001 - to the subscriber, or logged once subscribed
            if not ready.done():
                ready.set_exception(exc if isinstance(exc, Exception) else McpConnectionError(repr(exc)))
            else:
                logger.debug("the subscription of %s to %s ended", self.label, uri, exc_info=True)
        finally:
            if self._streams.get(uri) is asyncio.current_task():
                self._streams.pop(uri, None)
