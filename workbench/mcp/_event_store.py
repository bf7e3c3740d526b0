"""Stream resumption for the streamable-HTTP server (SEP-1699): every event sent on a session's SSE
streams is kept (bounded) so a client whose stream dropped reconnects with ``Last-Event-ID`` and
gets what it missed; the SDK then sends a priming event (an id, empty data, ``retry``) first on each
stream of a 2025-11-25 client.

One store per session: the SDK names a POST's stream after the client's JSON-RPC request id, which
two sessions may both use, so a store shared by sessions could replay one session's messages to
another.
"""

from __future__ import annotations

import collections
import itertools
from typing import Any, Optional

from mcp.server.streamable_http import EventCallback, EventMessage, EventStore

__all__ = ["SessionEventStore", "session_event_stores", "RETRY_MS", "EVENTS_PER_SESSION"]

#: the ``retry`` (ms) a priming event tells clients to wait before reconnecting
RETRY_MS = 1000
#: events kept per session (the oldest go first)
EVENTS_PER_SESSION = 2000


class SessionEventStore(EventStore):
    """The events of one session, oldest first, at most ``limit`` of them."""

    def __init__(self, limit: int = EVENTS_PER_SESSION) -> None:
        self._events: "collections.OrderedDict[str, tuple[str, Any]]" = collections.OrderedDict()
        self._limit = limit
        self._ids = itertools.count(1)

    async def store_event(self, stream_id: str, message: Any) -> str:
        event_id = str(next(self._ids))
        self._events[event_id] = (stream_id, message)
        while len(self._events) > self._limit:
            self._events.popitem(last=False)
        return event_id

    async def replay_events_after(self, last_event_id: str, send_callback: EventCallback) -> Optional[str]:
        """Send the events of ``last_event_id``'s stream that came after it; its stream id, or ``None``
        when that event is unknown (or already dropped)."""
        seen = self._events.get(last_event_id)
        if seen is None:
            return None
        stream_id = seen[0]
        after = False
        for event_id, (stream, message) in list(self._events.items()):
            if after and stream == stream_id and message is not None:
                await send_callback(EventMessage(message, event_id))
            elif event_id == last_event_id:
                after = True
        return stream_id


def session_event_stores(manager: Any) -> None:
    """Give every session the SDK's ``StreamableHTTPSessionManager`` opens its own event store.

    The manager hands each new session's transport its one ``event_store``; it has no per-session
    hook, so the transport's store is replaced as the session is admitted.
    """
    admit = manager._admit_session

    def admit_session(*args: Any, **kwargs: Any) -> Any:
        transport = admit(*args, **kwargs)
        if transport is not None:  # the store lives (and goes) with its session's transport
            transport._event_store = SessionEventStore()
        return transport

    manager._admit_session = admit_session
