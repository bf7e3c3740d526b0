"""What an MCP connection keeps of its traffic: the raw JSON-RPC messages (the Inspector's history),
server notifications and server log messages — each with listeners, for live notebook views."""

from __future__ import annotations

import collections
import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Generic, Iterator, Optional, TypeVar

__all__ = ["Notification", "ProtocolMessage", "Record", "ServerLog", "wire_dict"]

logger = logging.getLogger("workbench.mcp")

Item = TypeVar("Item")


@dataclass(frozen=True)
class ProtocolMessage:
    """One JSON-RPC message of a connection, as on the wire."""

    time: float  #: ``time.time()`` when it was sent or received
    direction: str  #: ``"sent"`` or ``"received"``
    message: dict[str, Any]

    @property
    def method(self) -> Optional[str]:
        """The request or notification method (``None`` for a response)."""
        return self.message.get("method")

    @property
    def kind(self) -> str:
        """``request``, ``notification``, ``response`` or ``error``."""
        if "method" in self.message:
            return "request" if "id" in self.message else "notification"
        return "error" if "error" in self.message else "response"


@dataclass(frozen=True)
class Notification:
    """A notification the server sent (``notifications/...``)."""

    time: float
    method: str
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ServerLog:
    """A ``notifications/message`` log entry from the server."""

    time: float
    level: str
    logger: Optional[str]
    data: Any


class Record(Generic[Item]):
    """A bounded, thread-safe list of items with listeners called on each new one."""

    def __init__(self, limit: int = 2000) -> None:
        self._items: collections.deque[Item] = collections.deque(maxlen=limit)
        self._listeners: list[Callable[[Item], Any]] = []
        self._lock = threading.Lock()

    def add(self, item: Item) -> None:
        with self._lock:
            self._items.append(item)
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(item)
            except Exception:  # noqa: BLE001 - a broken view must not break the connection
                logger.warning("an MCP record listener failed", exc_info=True)

    def items(self) -> list[Item]:
        """The items, oldest first."""
        with self._lock:
            return list(self._items)

    def subscribe(self, listener: Callable[[Item], Any]) -> Callable[[], None]:
        """Call ``listener(item)`` for every new item (in the thread that adds it); returns an unsubscribe."""
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def __iter__(self) -> Iterator[Item]:
        return iter(self.items())

    def __len__(self) -> int:
        return len(self._items)


def wire_dict(item: Any) -> Optional[dict[str, Any]]:
    """The JSON-RPC message of a transport item (an SDK ``SessionMessage``), as a plain dict."""
    message = getattr(item, "message", None)
    if message is None:
        return None
    inner = getattr(message, "root", message)  # older SDKs wrap the message in a RootModel
    try:
        return inner.model_dump(by_alias=True, exclude_none=True, mode="json")
    except Exception:  # noqa: BLE001 - never fail the transport for the record's sake
        return {"unrecorded": repr(inner)[:500]}


def now() -> float:
    return time.time()
