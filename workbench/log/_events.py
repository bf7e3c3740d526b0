"""Subscribers of an execution log: callbacks told of every row appended."""

from __future__ import annotations

import logging
import threading
from typing import Any, Callable

from workbench.log._rows import _row_dict

__all__ = ["LogListener", "Listeners"]

_logger = logging.getLogger("workbench.log")

#: A listener receives the row dict of each appended call.
LogListener = Callable[[dict[str, Any]], Any]


class Listeners:
    """The callbacks subscribed to one log; safe to change from any thread while rows are appended."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._listeners: tuple[LogListener, ...] = ()

    def __bool__(self) -> bool:
        return bool(self._listeners)

    def subscribe(self, callback: LogListener) -> Callable[[], None]:
        """Add ``callback``; returns a function that removes it."""
        with self._lock:
            self._listeners = (*self._listeners, callback)
        return lambda: self.unsubscribe(callback)

    def unsubscribe(self, callback: LogListener) -> None:
        """Remove ``callback`` (no error if it is not subscribed)."""
        with self._lock:
            listeners = list(self._listeners)
            if callback in listeners:
                listeners.remove(callback)
            self._listeners = tuple(listeners)

    def notify(self, raw_rows: list[tuple[Any, ...]]) -> None:
        """Call every listener with the row dict of each raw ``calls`` row (``LOG_COLUMNS`` order)."""
        listeners = self._listeners
        for raw in raw_rows:
            for callback in listeners:
                try:
                    callback(_row_dict(raw))  # a fresh dict each: listeners may mutate it
                except Exception:  # noqa: BLE001 - a UI listener must not break logging
                    _logger.warning("ExecutionLog listener %r failed", callback, exc_info=True)
