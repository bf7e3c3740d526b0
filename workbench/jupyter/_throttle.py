"""``Throttle``: call a function at most once per interval, always delivering the latest arguments."""

from __future__ import annotations

import threading
import time
from typing import Any, Callable, Optional

__all__ = ["Throttle"]


class Throttle:
    """Rate-limit ``fn``: the first call runs at once (leading edge); calls within ``interval`` of the
    previous run are coalesced and the latest arguments run when the interval ends (trailing edge),
    from a timer thread. ``flush()`` runs a pending call now. Thread-safe.
    """

    def __init__(self, fn: Callable[..., Any], interval: float) -> None:
        self.fn = fn
        self.interval = interval
        self.calls = 0  # how many times fn actually ran
        self._lock = threading.Lock()
        self._last = float("-inf")
        self._pending: Optional[tuple] = None
        self._timer: Optional[threading.Timer] = None

    def __call__(self, *args: Any) -> None:
        with self._lock:
            self._pending = args
            now = time.monotonic()
            wait = self._last + self.interval - now
            if self._timer is not None:
                return
            if wait > 0:
                self._timer = threading.Timer(wait, self._on_timer)
                self._timer.daemon = True
                self._timer.start()
                return
            args, self._pending, self._last = self._pending, None, now
        self._run(args)

    def _on_timer(self) -> None:
        with self._lock:
            self._timer = None
            args, self._pending = self._pending, None
            self._last = time.monotonic()
        if args is not None:
            self._run(args)

    def flush(self) -> None:
        """Run the pending call (if any) now and cancel its timer."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            args, self._pending = self._pending, None
            if args is not None:
                self._last = time.monotonic()
        if args is not None:
            self._run(args)

    def cancel(self) -> None:
        """Drop the pending call."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            self._pending = None

    def _run(self, args: tuple) -> None:
        self.calls += 1
        self.fn(*args)
